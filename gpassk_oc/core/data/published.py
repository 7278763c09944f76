"""The paper's published leaderboard as data, its name map, and its consistency (pure core).

Two files ship under ``gpassk_oc/data/published/``:

* ``gpassk_leaderboard_2025.json`` — the facts: per benchmark and model the published
  Greedy, G-Pass@16_τ (τ = 0.5, 0.75, 1.0) and mG-Pass@16 in percent, exactly as printed,
  with their source (paper title, arXiv id, which tables) and notes on rows that cannot
  all be right;
* ``names.json`` — this package's explicit map from a published model name to the names a
  run may carry for the same model (HF hub ids, their basenames, OpenCompass abbrs, API
  model names). Matching is exact after case folding: nothing is guessed.

A user file in the leaderboard's format may replace the shipped one
(``gpassk-oc report --published-file``); :func:`load_leaderboard` checks it and fails with
one line naming the file and the field (:class:`PublishedError`).

:func:`consistency_flags` names published rows that cannot all be right: two different
models of one benchmark with identical values in every G-Pass column, and a row whose
values no set of per-question counts could give at k = 16 — G-Pass@k_τ falls as τ rises,
and mG-Pass@16, the mean of G-Pass@16 at τ = 9/16 … 16/16, lies between
``(G_0.75 + G_1.0) / 2`` and ``(3·G_0.5 + 5·G_0.75) / 8`` — each with the half-unit of
rounding the one-decimal values allow.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

__all__ = [
    "Leaderboard",
    "PublishedError",
    "PublishedRow",
    "consistency_flags",
    "load_leaderboard",
    "load_names",
    "match_model",
    "name_table",
]

LEADERBOARD_FILE = "gpassk_leaderboard_2025.json"
NAMES_FILE = "names.json"
#: half a unit of the published values' last digit (one decimal, percent)
ROUNDING = 0.05


class PublishedError(ValueError):
    """A published-values file that cannot be used; one line naming the file and field."""


@dataclass(frozen=True)
class PublishedRow:
    """One model on one benchmark: ``values`` maps each column to its percent value."""

    benchmark: str
    model: str
    values: dict[str, float]
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Leaderboard:
    """Published values with their source; ``benchmarks`` maps a benchmark name to the
    LiveMathBench version and splits it covers (None: not a LiveMathBench benchmark)."""

    source: dict[str, Any]
    k: int
    columns: list[str]
    benchmarks: dict[str, dict[str, Any] | None]
    rows: list[PublishedRow]
    where: str = LEADERBOARD_FILE
    flags: dict[tuple[str, str], list[str]] = field(default_factory=dict)

    def source_line(self) -> str:
        """One line naming where the values come from."""
        s = self.source
        return (
            f"{s.get('title', '?')} (arXiv:{s.get('arxiv', '?')}), "
            f"{s.get('published_in', '')}; {s.get('version', '')}".rstrip("; ")
        )

    def row(self, benchmark: str, model: str) -> PublishedRow | None:
        """The published row of *model* on *benchmark*, if there is one."""
        return next((r for r in self.rows if r.benchmark == benchmark and r.model == model), None)


def _shipped(name: str) -> tuple[str, str]:
    ref = resources.files("gpassk_oc") / "data" / "published" / name
    return str(ref), ref.read_text(encoding="utf-8")


def _json(path: Path | str | None, name: str) -> tuple[str, Any]:
    if path is None:
        where, text = _shipped(name)
    else:
        where = str(path)
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise PublishedError(f"{where}: cannot be read ({exc})") from None
    try:
        return where, json.loads(text)
    except ValueError as exc:
        raise PublishedError(f"{where}: not JSON ({exc})") from None


def _need(cond: bool, where: str, message: str) -> None:
    if not cond:
        raise PublishedError(f"{where}: {message}")


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def load_leaderboard(path: Path | str | None = None) -> Leaderboard:
    """The shipped leaderboard (*path* None) or a user file in its format, checked: every
    row names a known benchmark, a model and one percent value in [0, 100] per column;
    notes name an existing row. :func:`consistency_flags` fills ``flags``."""
    where, data = _json(path, LEADERBOARD_FILE)
    _need(isinstance(data, Mapping), where, "need a JSON object")
    source, k, columns = data.get("source"), data.get("k"), data.get("columns")
    _need(isinstance(source, Mapping), where, "source: need an object naming the paper")
    _need(isinstance(k, int) and not isinstance(k, bool) and k >= 1, where, "k: need k >= 1")
    _need(
        isinstance(columns, list) and bool(columns) and all(isinstance(c, str) for c in columns),
        where,
        "columns: need a list of metric names",
    )
    benchmarks = _benchmarks(data, where)
    rows = _rows(data, where, benchmarks, columns)
    notes = _notes(data, where, {(r.benchmark, r.model) for r in rows})
    rows = [
        PublishedRow(r.benchmark, r.model, r.values, tuple(notes.get((r.benchmark, r.model), ())))
        for r in rows
    ]
    board = Leaderboard(dict(source), k, list(columns), benchmarks, rows, where)
    board.flags.update(consistency_flags(rows, k))
    return board


def _benchmarks(data: Mapping[str, Any], where: str) -> dict[str, dict[str, Any] | None]:
    """The leaderboard's benchmarks by name: their LiveMathBench version and splits (None:
    not a LiveMathBench benchmark)."""
    benchmarks: dict[str, dict[str, Any] | None] = {}
    for i, b in enumerate(data.get("benchmarks") or []):
        _need(
            isinstance(b, Mapping) and isinstance(b.get("name"), str),
            where,
            f"benchmarks[{i}]: need an object with a name",
        )
        lmb = b.get("livemathbench")
        _need(
            lmb is None or (isinstance(lmb, Mapping) and isinstance(lmb.get("splits"), list)),
            where,
            f"benchmarks[{i}].livemathbench: need null or an object with version and splits",
        )
        benchmarks[b["name"]] = None if lmb is None else dict(lmb)
    _need(bool(benchmarks), where, "benchmarks: need at least one benchmark")
    return benchmarks


def _rows(
    data: Mapping[str, Any], where: str, benchmarks: Mapping[str, Any], columns: list[str]
) -> list[PublishedRow]:
    """The leaderboard's rows, each a known benchmark, a model and one percent per column;
    no (benchmark, model) pair twice."""
    rows: list[PublishedRow] = []
    raw_rows: Any = data.get("rows")
    _need(isinstance(raw_rows, list) and bool(raw_rows), where, "rows: need a list of rows")
    for i, r in enumerate(raw_rows):
        at = f"rows[{i}]"
        _need(isinstance(r, Mapping), where, f"{at}: need an object")
        _need(r.get("benchmark") in benchmarks, where, f"{at}.benchmark: unknown benchmark")
        _need(isinstance(r.get("model"), str) and bool(r["model"]), where, f"{at}.model: empty")
        values = r.get("values")
        _need(
            isinstance(values, list)
            and len(values) == len(columns)
            and all(_number(v) and 0 <= v <= 100 for v in values),
            where,
            f"{at}.values: need {len(columns)} percent values in [0, 100]",
        )
        rows.append(
            PublishedRow(r["benchmark"], r["model"], dict(zip(columns, map(float, values))))
        )
    seen = {(r.benchmark, r.model) for r in rows}
    _need(len(seen) == len(rows), where, "rows: a (benchmark, model) pair is listed twice")
    return rows


def _notes(
    data: Mapping[str, Any], where: str, seen: set[tuple[str, str]]
) -> dict[tuple[str, str], list[str]]:
    """The notes of listed rows, by (benchmark, model)."""
    notes: dict[tuple[str, str], list[str]] = {}
    for i, n in enumerate(data.get("notes") or []):
        key = (n.get("benchmark"), n.get("model")) if isinstance(n, Mapping) else None
        _need(key in seen, where, f"notes[{i}]: need the benchmark and model of a listed row")
        _need(isinstance(n.get("note"), str), where, f"notes[{i}].note: need a string")
        notes.setdefault(key, []).append(n["note"])  # type: ignore[arg-type]
    return notes


def _g_columns(k: int) -> tuple[str, str, str, str]:
    return (f"G-Pass@{k}_0.5", f"G-Pass@{k}_0.75", f"G-Pass@{k}_1.0", f"mG-Pass@{k}")


def consistency_flags(
    rows: Iterable[PublishedRow], k: int = 16
) -> dict[tuple[str, str], list[str]]:
    """(benchmark, model) → why its values cannot all be right (see the module docstring);
    rows without a G-Pass@k_0.5/0.75/1.0 and mG-Pass@k column are not checked."""
    half, three_quarter, full, mg = _g_columns(k)
    flags: dict[tuple[str, str], list[str]] = {}
    seen: dict[tuple[str, tuple[float, ...]], str] = {}
    e = ROUNDING
    for r in rows:
        v = r.values
        if not all(c in v for c in (half, three_quarter, full, mg)):
            continue
        key = (r.benchmark, r.model)
        g5, g75, g1, m = v[half], v[three_quarter], v[full], v[mg]
        same = seen.setdefault((r.benchmark, (g5, g75, g1, m)), r.model)
        if same != r.model:
            why = f"identical G-Pass values to {{}} in every column ({g5}, {g75}, {g1}, {m})"
            flags.setdefault(key, []).append(why.format(same))
            flags.setdefault((r.benchmark, same), []).append(why.format(r.model))
        if not (g5 + e >= g75 - e and g75 + e >= g1 - e):
            flags.setdefault(key, []).append(
                f"G-Pass@{k} must not rise with τ: {g5}, {g75}, {g1} at τ = 0.5, 0.75, 1.0"
            )
        if k == 16:
            low = (g75 + g1) / 2 - 2 * e  # every value may be off by half a unit
            high = (3 * g5 + 5 * g75) / 8 + 2 * e
            if not low <= m <= high:
                flags.setdefault(key, []).append(
                    f"mG-Pass@16 {m} lies outside [{low + e:.2f}, {high - e:.2f}], the range "
                    f"G-Pass@16_0.5/0.75/1.0 = {g5}/{g75}/{g1} allow"
                )
    return flags


def load_names(path: Path | str | None = None) -> dict[str, list[str]]:
    """Published model name → the names a run may carry for it (shipped map by default)."""
    where, data = _json(path, NAMES_FILE)
    _need(isinstance(data, Mapping) and bool(data), where, "need an object of name lists")
    for name, aliases in data.items():
        _need(
            isinstance(aliases, list) and all(isinstance(a, str) and a for a in aliases),
            where,
            f"{name}: need a list of names",
        )
    return {name: list(aliases) for name, aliases in data.items()}


def match_model(candidates: Iterable[str | None], names: Mapping[str, list[str]]) -> str | None:
    """The published name one of *candidates* (a run's model path, base model, abbr) is
    mapped to, comparing case-folded whole names; None when none is listed."""
    folded: dict[str, str] = {}
    for published, aliases in names.items():
        for alias in [published, *aliases]:
            folded.setdefault(alias.casefold(), published)
    for cand in candidates:
        if cand and (hit := folded.get(cand.strip().rstrip("/").casefold())):
            return hit
    return None


def name_table(names: Mapping[str, list[str]] | None = None) -> str:
    """The docs' table of the name map."""
    names = load_names() if names is None else names
    rows = ["| published name | names of a run that match it |", "|---|---|"]
    for published, aliases in sorted(names.items()):
        rows.append(f"| {published} | " + ", ".join(f"`{a}`" for a in aliases) + " |")
    return "\n".join(rows)
