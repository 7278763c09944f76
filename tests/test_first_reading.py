"""What a first-time reader of the issue-35 surfaces met, each pinned by the sentence that
was wrong (a flag the user did not give, a flag that would not help, numbers beside each
other that disagree), on synthetic work dirs (no OpenCompass run)."""

from __future__ import annotations

from tests.report_support import run_cli, workdir  # noqa: F401
from tests.test_audit_classes import _add_votes, _class_sheet
from tests.test_audit_classes import _label as _label_classes
from tests.test_audit import _write


def _corrected_caption(markdown: str) -> str:
    """The caption under '## Corrected for verdict error'."""
    section = markdown.split("## Corrected for verdict error", 1)[1]
    return next(line for line in section.splitlines() if line.strip())


def test_maj_only_correction_names_the_flag_that_shows_its_interval(capsys, workdir, tmp_path):  # noqa: F811
    """Only maj@k corrected (a class audit alone), default --interval rerun, resamples on:
    its cells show no interval because maj@k has no rerun one; the caption said "none was
    computed (--resamples 0)", a flag the user did not give and that would not help."""
    root, _ = workdir
    _add_votes(root)
    sheet = tmp_path / "classes.csv"
    _write(sheet, _label_classes(_class_sheet(capsys, root, sheet)))
    code, out, err = run_cli(
        capsys, "report", root, "--audit-classes", sheet, "--resamples", "200"
    )
    assert code == 0, err
    caption = _corrected_caption(out)
    assert "--resamples 0" not in caption
    assert "no rerun interval" in caption and "--interval benchmark" in caption
    code, out, err = run_cli(
        capsys, "report", root, "--audit-classes", sheet, "--resamples", "200",
        "--interval", "benchmark",
    )
    assert code == 0, err
    caption = _corrected_caption(out)
    assert "Brackets: the corrected value's benchmark interval" in caption
    assert "No interval" not in caption
