"""``gpassk-oc report``: G-Pass@k tables with error bars from OpenCompass work dirs.

The package is a model and its renderers, never the reverse:

* :mod:`.collect` — find results files, read them (:mod:`gpassk_oc.core.runs.results_file`), group runs;
* :mod:`.report_model` — statistics per row and subset, verdict sensitivity (:class:`Report`);
* :mod:`.sweep` — every metric at every k of ``--k 1,2,…`` (maj@k from the votes);
* :mod:`.numbers` — the one rounding rule; :mod:`.tables` — cell text;
* renderers :mod:`.markdown`, :mod:`.html`, :mod:`.csvout`, :mod:`.jsonout`;
* :mod:`.plots` — figures (matplotlib, imported lazily by the CLI);
* :mod:`.worker_pool` — worker processes: a grid's first read, drawing the figures;
* :mod:`.report_command` — flags, validation, output.

Renderers and plots read the model; nothing in the model imports them.
"""

from __future__ import annotations

from gpassk_oc.report.collect import (
    Row,
    Run,
    collect,
    describe_key_difference,
    question_key,
    subset_name,
)
from gpassk_oc.report.csvout import render_csv
from gpassk_oc.report.html import render_html
from gpassk_oc.report.jsonout import to_json_rows
from gpassk_oc.report.markdown import render_markdown
from gpassk_oc.report.report_model import (
    Cell,
    Report,
    ReportError,
    build_report,
    default_k,
    sorted_rows,
)

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
