"""What a results-shaped JSON file is, before anything in it is read as a verdict (pure core).

A file this package wrote carries an explicit marker:

* schemas 2 and 3: ``"schema": "gpassk_oc.results/N"`` (and, from the release that added
  it, ``run.writer`` = ``"gpassk_oc <version>"``);
* schema 1 (release 0.1.0, before the marker existed): no ``schema`` key, but the
  run metadata its writer always put at the top level — integer ``n`` and
  ``num_questions``, a ``ks`` list — beside ``details`` without OpenCompass's per-question
  keys. OpenCompass never writes those top-level keys, so its files never pass for
  schema 1.

Anything else is refused by the reader with one line saying what it looks like — above all
OpenCompass's own LiveMathBench results (``accuracy (n runs average)``, per-question
``example_abbr``/``pred``/``ref``), whose labels are not this package's verdicts even when
a copy holds booleans — and pointing to ``gpassk-oc rescore``, which re-grades the run's
predictions. Standard library only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["RESCORE_HINT", "identify", "refusal"]

SCHEMA_NAME = "gpassk_oc.results"
WRITER_NAME = "gpassk_oc"
#: what every refusal points to
RESCORE_HINT = "re-grade its run with `gpassk-oc rescore OC_WORK_DIR -o OUT`"

#: per-question keys of OpenCompass's evaluators (BaseEvaluator, LiveMathBench, cascade)
_OC_DETAIL_KEYS = ("example_abbr", "pred", "ref", "cascade_correct", "llm_evaluation")


def identify(data: Mapping[str, Any]) -> int | str:
    """The results schema version of a file this package wrote, else a phrase saying what
    the file is (for a one-line refusal; see the module docstring)."""
    tag = data.get("schema")
    if tag is not None:
        if (
            isinstance(tag, str)
            and tag.startswith(SCHEMA_NAME + "/")
            and tag.rpartition("/")[2].isdigit()
        ):
            return _claimed(data, int(tag.rpartition("/")[2]))
        return f"schema: {tag!r} marks another tool's results file, not a gpassk_oc one"
    if _schema1(data):
        return 1
    return f"{_foreign_kind(data)}, not a gpassk_oc results file (no 'schema' marker)"


def _claimed(data: Mapping[str, Any], version: int) -> int | str:
    """*version*, unless the file names a writer that is not this package."""
    run = data.get("run")
    writer = run.get("writer") if isinstance(run, Mapping) else None
    if writer is not None and not (isinstance(writer, str) and writer.split(" ")[0] == WRITER_NAME):
        return f"run.writer: {writer!r} wrote it, not gpassk_oc (its 'schema' tag is borrowed)"
    return version


def _schema1(data: Mapping[str, Any]) -> bool:
    """The shape every schema-1 file had (release 0.1.0's ``build_results``)."""

    def count(name: str) -> bool:
        value = data.get(name)
        return isinstance(value, int) and not isinstance(value, bool)

    details = data.get("details")
    return (
        count("n")
        and count("num_questions")
        and isinstance(data.get("ks"), list)
        and isinstance(details, list)
        and not any(isinstance(d, Mapping) and _oc_detail(d) for d in details[:1])
    )


def _oc_detail(detail: Mapping[str, Any]) -> bool:
    return any(k in detail for k in _OC_DETAIL_KEYS)


def _foreign_kind(data: Mapping[str, Any]) -> str:
    """What an unmarked file looks like, as a short phrase."""
    keys = [str(k) for k in data]
    details = data.get("details")
    first = details[0] if isinstance(details, list) and details else None
    oc_detail = isinstance(first, Mapping) and _oc_detail(first)
    gpass = any("G-Pass@" in k for k in keys)
    averaged = any(k.endswith("(n runs average)") for k in keys)
    if gpass and (oc_detail or averaged or "details" not in data or not keys):
        return "OpenCompass's own LiveMathBench (G-Pass@k) results file"
    if oc_detail or averaged or (keys and all(isinstance(data[k], (int, float)) for k in keys)):
        return "OpenCompass's own results file"
    return "an unmarked JSON file"


def refusal(where: str, what: str) -> str:
    """The one line a reader raises for a file that is not this package's."""
    return f"{where}: {what}; {RESCORE_HINT}"
