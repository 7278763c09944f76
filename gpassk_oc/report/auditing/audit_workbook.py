"""The audit sheet as an Excel workbook (``audit -o SHEET.xlsx``), and reading one back.

A spreadsheet program parses the cells of a CSV: an extracted answer ``-2+3`` shows as
``1``, ``1/2`` as a date, ``007`` as ``7``, ``1e5`` as ``100000``, ``TRUE`` as a boolean, and
``=…`` text from a model may run as a formula — the auditor would judge a value the model
never wrote. In a workbook each text cell is stored as a string, which Excel and
LibreOffice show exactly as written and never evaluate.

Written and read with openpyxl (imported on use: a CSV sheet and ``report`` never load
it). openpyxl leaves SpreadsheetML's ``_xHHHH_`` character escape to its caller: it is
applied here, so that text XML cannot hold (control characters) and a literal ``_x0041_``
in a reply both come back as written.
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Sequence
from datetime import datetime
from typing import Any

__all__ = ["reinterpreted", "workbook_bytes", "workbook_rows"]

#: characters XML 1.0 cannot hold, and the ``_`` of an existing ``_xHHHH_`` (escaped so
#: that a reader does not decode it): written as SpreadsheetML's ``_xHHHH_`` escape
_UNSAFE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]|_(?=x[0-9A-Fa-f]{4}_)")
_ESCAPED = re.compile(r"_x([0-9A-Fa-f]{4})_")
#: the workbook's stated creation time: the same sample gives the same document properties
_FIXED_TIME = datetime(2000, 1, 1)


def workbook_bytes(rows: Sequence[Sequence[str | int]]) -> bytes:
    """An .xlsx of one sheet named "audit": *rows* (the first is the header, kept in view
    when scrolling); strings as text cells (never a formula), ints as numbers."""
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.title = "audit"
    for i, row in enumerate(rows, start=1):
        for j, value in enumerate(row, start=1):
            if isinstance(value, str):
                escaped = _UNSAFE.sub(lambda m: f"_x{ord(m.group()):04X}_", value)
                # set as text: openpyxl would store text starting with "=" as a formula
                sheet.cell(i, j, escaped).data_type = "s"
            else:
                sheet.cell(i, j, value)
    sheet.freeze_panes = "A2"
    book.properties.created = book.properties.modified = _FIXED_TIME
    buf = io.BytesIO()
    book.save(buf)
    return buf.getvalue()


def workbook_rows(data: bytes) -> list[list[str]]:
    """The first worksheet of the .xlsx *data* as rows of cell text (an empty cell is
    ''; a whole number as Excel shows it, ``1`` not ``1.0``; escapes decoded). ValueError
    when *data* is not such a workbook."""
    from openpyxl import load_workbook

    try:
        book = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
        values = list(book.worksheets[0].iter_rows(values_only=True))
    except (zipfile.BadZipFile, KeyError, IndexError, OSError, ValueError, TypeError) as exc:
        raise ValueError(f"not a readable .xlsx workbook ({exc})") from None
    return [[_text(value) for value in row] for row in values]


def _text(value: Any) -> str:
    """A cell's value as the text a person sees in it."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, str):
        return _ESCAPED.sub(lambda m: chr(int(m.group(1), 16)), value)
    return str(value)


#: text a spreadsheet opening a CSV takes for something else (measured with LibreOffice
#: 7.4 and Excel's documented parsing): a formula's start, a number in any of its dress
#: (sign, thousands, exponent, percent, currency, parentheses, leading zeros, more digits
#: than a double keeps), a date or time, a boolean
_PARSED = re.compile(
    r"[=+\-@].*"
    r"|[$€£¥(]?\s*\d[\d,]*(\.\d*)?([eE][-+]?\d+)?\s*%?\)?"
    r"|\.\d+([eE][-+]?\d+)?%?"
    r"|\d{1,4}[/.\-:]\d{1,2}([/.\-:]\d{1,4})?"
    r"|true|false",
    re.IGNORECASE | re.DOTALL,
)


def reinterpreted(text: str) -> bool:
    """Whether a spreadsheet opening the CSV may show *text* as another value (a number,
    date, boolean or formula result) than the characters written: those need the .xlsx.
    A plain number a spreadsheet shows as written (``12``, ``-0.5``; not ``007``, ``0.10``
    or a 20-digit integer) is kept out."""
    text = text.strip()
    if re.fullmatch(r"-?\d+(\.\d+)?", text) and f"{float(text):.15g}" == text:
        return False
    return bool(_PARSED.fullmatch(text))
