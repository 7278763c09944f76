"""``gpassk-oc report``: G-Pass@k tables with error bars from OpenCompass work dirs.

The folders by job, each importing only those listed before it (no command module is
imported by another module; worker processes come from :mod:`gpassk_oc.worker_pool`,
shared with ``rescore``):

* :mod:`.data` — read results files and group runs (``collect``), the report model
  (``report_model``: :class:`Report`, typed parts in ``report_parts``), the any-k sweep,
  published values, the one rounding rule (``numbers``) and cell text (``tables``);
* :mod:`.auditing` — audit sheets: sampling verdicts or answer classes, reading them back;
* :mod:`.page` — figures (matplotlib, imported lazily) and the page's drill-down and assets;
* :mod:`.planning` — ``plan``'s model and text;
* :mod:`.ranking` — rank intervals, verdict-error corrections, P(A better than B);
* :mod:`.formats` — one module per output format, listed once in ``formats.format_registry``;
* :mod:`.commands` — the ``report``, ``compare``, ``plan`` and ``audit`` entry points and
  their shared CLI plumbing.

Modules below ``gpassk_oc.report`` are internal (docs/api.md): their paths may change.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpassk_oc._lazy_names import lazy_names

#: public name -> the module that defines it; loaded on first use (PEP 562): a worker
#: process reading results files imports :mod:`.data.collect` alone, not every format
_API = {
    "Row": "gpassk_oc.report.data.collect",
    "Run": "gpassk_oc.report.data.collect",
    "collect": "gpassk_oc.report.data.collect",
    "describe_key_difference": "gpassk_oc.report.data.collect",
    "question_key": "gpassk_oc.report.data.collect",
    "subset_name": "gpassk_oc.report.data.collect",
    "Cell": "gpassk_oc.report.data.report_model",
    "Report": "gpassk_oc.report.data.report_model",
    "ReportError": "gpassk_oc.report.data.report_model",
    "build_report": "gpassk_oc.report.data.report_model",
    "default_k": "gpassk_oc.report.data.report_model",
    "sorted_rows": "gpassk_oc.report.data.report_model",
    "render_csv": "gpassk_oc.report.formats.csvout",
    "render_html": "gpassk_oc.report.formats.html",
    "to_json_rows": "gpassk_oc.report.formats.jsonout",
    "render_markdown": "gpassk_oc.report.formats.markdown",
}

if TYPE_CHECKING:  # the static view of what __getattr__ provides
    from gpassk_oc.report.data.collect import (
        Row,
        Run,
        collect,
        describe_key_difference,
        question_key,
        subset_name,
    )
    from gpassk_oc.report.data.report_model import (
        Cell,
        Report,
        ReportError,
        build_report,
        default_k,
        sorted_rows,
    )
    from gpassk_oc.report.formats.csvout import render_csv
    from gpassk_oc.report.formats.html import render_html
    from gpassk_oc.report.formats.jsonout import to_json_rows
    from gpassk_oc.report.formats.markdown import render_markdown

__all__ = [
    "Cell",
    "Report",
    "ReportError",
    "Row",
    "Run",
    "build_report",
    "collect",
    "default_k",
    "describe_key_difference",
    "question_key",
    "render_csv",
    "render_html",
    "render_markdown",
    "sorted_rows",
    "subset_name",
    "to_json_rows",
]


__getattr__, __dir__ = lazy_names(globals(), _API)
