"""One identity per report row: the model and the settings that tell rows apart.

Every table (main, any-k, verdict sensitivity, accounting), the CSV, the JSON and the page
take a row's identity from here, so a temperature grid never shows two rows that look
alike. The identity is the model plus each knob whose value differs between the report's
sampled rows (temperature, top_p, top_k, repetition_penalty, max_out_len, seed — pooled
seeds as one list —, check mode, judge model), read from the run record
(:class:`~gpassk_oc.core.runs.run_record.RunRecord`), never from names. When rows would
still look alike (no record, or they differ only in something not listed), the row label
(the run's model abbr) is added.
"""

from __future__ import annotations

from collections.abc import Sequence

from gpassk_oc.core.runs.run_record import value_text
from gpassk_oc.report.data.collect import Row

__all__ = ["IDENTITY_FIELDS", "identity", "identity_fields", "identity_header"]

#: (record field, column header) of every knob that can tell rows apart, in column order
IDENTITY_FIELDS: tuple[tuple[str, str], ...] = (
    ("temperature", "T"),
    ("top_p", "top_p"),
    ("top_k", "top_k"),
    ("repetition_penalty", "rp"),
    ("max_out_len", "len"),
    ("seed", "seed"),
    ("check", "check"),
    ("judge_model", "judge"),
)
LABEL = ("label", "run")


def _model(row: Row) -> str:
    return row.base_model if row.setting else row.label


def _value(row: Row, name: str) -> str:
    if name == "label":
        return row.label
    if row.setting is None:
        return "?"
    if name == "seed":
        return ",".join(value_text(s) for s in row.seeds)
    value = getattr(row.setting, name)
    return "–" if value is None and name == "judge_model" else value_text(value)


def identity_fields(rows: Sequence[Row]) -> list[tuple[str, str]]:
    """(field, header) of the knobs that differ between *rows* (the model comes first
    and always); ``("label", "run")`` last when rows would otherwise look alike."""
    fields = [f for f in IDENTITY_FIELDS if len({_value(r, f[0]) for r in rows}) > 1]
    seen = {(r.dataset_abbr, _model(r)) + tuple(_value(r, f) for f, _ in fields) for r in rows}
    if len(seen) < len(rows):
        fields.append(LABEL)
    return fields


def identity(row: Row, fields: Sequence[tuple[str, str]]) -> dict[str, str]:
    """{"model": …, header: value…} of *row* for the given identity *fields*."""
    out = {"model": _model(row)}
    out.update({header: _value(row, name) for name, header in fields})
    return out


def identity_header(fields: Sequence[tuple[str, str]]) -> list[str]:
    """The table columns of an identity: Model, then one per differing knob."""
    return ["Model"] + [header for _, header in fields]
