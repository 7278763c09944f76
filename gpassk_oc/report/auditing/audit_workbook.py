"""The audit sheet as an Excel workbook (``audit -o SHEET.xlsx``), and reading one back.

A spreadsheet program parses the cells of a CSV: an extracted answer ``-2+3`` shows as
``1``, ``1/2`` as a date, ``007`` as ``7``, ``1e5`` as ``100000``, ``TRUE`` as a boolean, and
``=…`` text from a model may run as a formula — the auditor would judge a value the model
never wrote. In a workbook each text cell is stored as a string (an inline string of
SpreadsheetML), which Excel and LibreOffice show exactly as written and never evaluate.

Written and read with the standard library (zipfile, ElementTree): the package needs no
spreadsheet library for one sheet of text cells. Reading takes the first worksheet as the
program saved it (shared or inline strings, numbers, booleans).
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Sequence
from xml.etree import ElementTree
from xml.sax.saxutils import escape

__all__ = ["workbook_bytes", "workbook_rows"]

_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_PKG_REL = "http://schemas.openxmlformats.org/package/2006/relationships"
_NS = {"m": _MAIN}
#: characters XML 1.0 cannot hold, a carriage return (a parser reads it as a line feed),
#: and an existing ``_xHHHH_`` (whose ``_`` is escaped so that it is not decoded): all
#: written as SpreadsheetML's ``_xHHHH_`` escape
_UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\ufffe\uffff]|_(?=x[0-9A-Fa-f]{4}_)")
_ESCAPED = re.compile(r"_x([0-9A-Fa-f]{4})_")
_FIXED_TIME = (1980, 1, 1, 0, 0, 0)  # the same sample gives the same bytes

_PARTS = {
    "[Content_Types].xml": (
        '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
        'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
        '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-'
        'officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/'
        'sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.'
        'spreadsheetml.worksheet+xml"/></Types>'
    ),
    "_rels/.rels": (
        f'<Relationships xmlns="{_PKG_REL}"><Relationship Id="rId1" Type="{_REL}/'
        'officeDocument" Target="xl/workbook.xml"/></Relationships>'
    ),
    "xl/workbook.xml": (
        f'<workbook xmlns="{_MAIN}" xmlns:r="{_REL}"><sheets><sheet name="audit" '
        'sheetId="1" r:id="rId1"/></sheets></workbook>'
    ),
    "xl/_rels/workbook.xml.rels": (
        f'<Relationships xmlns="{_PKG_REL}"><Relationship Id="rId1" Type="{_REL}/'
        'worksheet" Target="worksheets/sheet1.xml"/></Relationships>'
    ),
}


def _cell(value: str | int, ref: str) -> str:
    if isinstance(value, int):
        return f'<c r="{ref}"><v>{value}</v></c>'
    text = escape(_UNSAFE.sub(lambda m: f"_x{ord(m.group()):04X}_", value))
    return f'<c r="{ref}" t="inlineStr"><is><t xml:space="preserve">{text}</t></is></c>'


def workbook_bytes(rows: Sequence[Sequence[str | int]]) -> bytes:
    """An .xlsx of one sheet: *rows* (the first is the header, kept in view when
    scrolling); strings as text cells, ints as numbers."""
    body = "".join(
        f'<row r="{i}">{"".join(_cell(v, f"{_letters(j)}{i}") for j, v in enumerate(row))}</row>'
        for i, row in enumerate(rows, start=1)
    )
    sheet = (
        f'<worksheet xmlns="{_MAIN}"><sheetViews><sheetView workbookViewId="0"><pane '
        'ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/></sheetView>'
        f"</sheetViews><sheetData>{body}</sheetData></worksheet>"
    )
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, xml in [*_PARTS.items(), ("xl/worksheets/sheet1.xml", sheet)]:
            info = zipfile.ZipInfo(name, _FIXED_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' + xml)
    return buf.getvalue()


def workbook_rows(data: bytes) -> list[list[str]]:
    """The first worksheet of the .xlsx *data* as rows of cell text (an empty cell is
    ''; a whole number as Excel shows it, ``1`` not ``1.0``). ValueError when *data* is
    not such a workbook."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            shared = _shared_strings(zf)
            sheet = ElementTree.fromstring(zf.read(_first_sheet(zf)))
    except (zipfile.BadZipFile, KeyError, ElementTree.ParseError, IndexError) as exc:
        raise ValueError(f"not a readable .xlsx workbook ({exc})") from None
    rows: list[list[str]] = []
    for row in sheet.iterfind("m:sheetData/m:row", _NS):
        cells: list[str] = []
        for c in row.iterfind("m:c", _NS):
            col = _column(c.get("r"), len(cells))
            cells += [""] * (col - len(cells))
            cells.append(_value(c, shared))
        at = int(row.get("r", len(rows) + 1)) - 1
        rows += [[] for _ in range(at - len(rows))]  # rows the program left out: empty
        rows.append(cells)
    return rows


def _first_sheet(zf: zipfile.ZipFile) -> str:
    """The path of the workbook's first worksheet, from the workbook and its relations."""
    book = ElementTree.fromstring(zf.read("xl/workbook.xml"))
    first = book.findall("m:sheets/m:sheet", _NS)[0].get(f"{{{_REL}}}id")
    rels = ElementTree.fromstring(zf.read("xl/_rels/workbook.xml.rels"))
    target = next(r.get("Target", "") for r in rels if r.get("Id") == first)
    return target.lstrip("/") if target.startswith("/") else "xl/" + target


def _shared_strings(zf: zipfile.ZipFile) -> list[str]:
    if "xl/sharedStrings.xml" not in zf.namelist():
        return []
    root = ElementTree.fromstring(zf.read("xl/sharedStrings.xml"))
    return [_text(si) for si in root.iterfind("m:si", _NS)]


def _text(node: ElementTree.Element) -> str:
    """A string item's text: its runs joined, phonetic hints left out, escapes decoded."""
    parts = [t.text or "" for t in node.iterfind("m:t", _NS)]
    parts += [t.text or "" for t in node.iterfind("m:r/m:t", _NS)]
    return _ESCAPED.sub(lambda m: chr(int(m.group(1), 16)), "".join(parts))


def _letters(col: int) -> str:
    """A 0-based column's letters (2 → "C", 26 → "AA")."""
    out = ""
    col += 1
    while col:
        col, rest = divmod(col - 1, 26)
        out = chr(65 + rest) + out
    return out


def _column(ref: str | None, default: int) -> int:
    """The 0-based column of a cell reference ("C7" → 2); *default* when it has none."""
    letters = re.match(r"[A-Z]+", ref or "")
    if not letters:
        return default
    col = 0
    for ch in letters.group():
        col = col * 26 + ord(ch) - 64
    return col - 1


def _value(c: ElementTree.Element, shared: list[str]) -> str:
    kind, v = c.get("t", "n"), c.find("m:v", _NS)
    if kind == "inlineStr":
        node = c.find("m:is", _NS)
        return _text(node) if node is not None else ""
    raw = v.text or "" if v is not None else ""
    if kind == "s":
        return shared[int(raw)]
    if kind == "b":
        return "TRUE" if raw == "1" else "FALSE"
    if kind == "n" and re.fullmatch(r"-?\d+(\.0+)?(E\+?0+)?", raw):
        return raw.split(".")[0].split("E")[0]
    return raw


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
