"""The one list of output formats. A new format is one module defining a
:class:`~.format_spec.Format` and one line in :data:`FORMATS`; ``report``, ``compare``
and ``plan`` take their ``--format`` choices and ``--out`` suffixes from here."""

from __future__ import annotations

from gpassk_oc.report.data.report_model import Report
from gpassk_oc.report.formats import csvout, html, jsonout, markdown
from gpassk_oc.report.formats.format_spec import Format, RenderOptions

__all__ = ["FORMATS", "Format", "RenderOptions", "format_names", "render", "suffix_formats"]

#: every format, the default (markdown) first
FORMATS: tuple[Format, ...] = (markdown.FORMAT, csvout.FORMAT, jsonout.FORMAT, html.FORMAT)


def format_names(command: str = "report") -> tuple[str, ...]:
    """The formats *command* writes (``report`` writes them all)."""
    return tuple(f.name for f in FORMATS if command == "report" or command in f.also_in)


def suffix_formats() -> dict[str, str]:
    """What an ``--out`` suffix says the file holds: {suffix: format name}."""
    return {suffix: f.name for f in FORMATS for suffix in f.suffixes}


def render(report: Report, name: str, options: RenderOptions | None = None) -> str:
    """*report* as text in the format *name* (one of :func:`format_names`)."""
    by_name = {f.name: f for f in FORMATS}
    return by_name[name].render(report, options or RenderOptions())
