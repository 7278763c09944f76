"""Markdown output of ``gpassk-oc plan`` (numbers in percent points, :mod:`.numbers`)."""

from __future__ import annotations

import math

from gpassk_oc.report.data.numbers import DASH, pct_text
from gpassk_oc.report.planning.plan_model import Plan


def _pts(fraction: float | None, digits: int = 2) -> str:
    return DASH if fraction is None else pct_text(fraction, digits)


def _table(header: list[str], body: list[list[str]]) -> list[str]:
    return (
        ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        + ["| " + " | ".join(row) + " |" for row in body]
        + [""]
    )


def _split_section(plan: Plan) -> list[str]:
    """The variance split at the current n."""
    out: list[str] = []
    body = []
    for key, s in plan.split.items():
        total = s["between"] + s["within"]
        share = DASH if total <= 0 else f"{100 * s['within'] / total:.0f}%"
        body.append(
            [
                key,
                pct_text(s["mean"]),
                _pts(math.sqrt(s["between"])),
                _pts(math.sqrt(s["within"])),
                share,
            ]
        )
    out += _table(
        [
            "metric",
            "population mean",
            "per-question SD from questions",
            f"per-question SD from sampling at n={plan.n}",
            "share from sampling",
        ],
        body,
    )
    return out


def _pilot_section(plan: Plan) -> list[str]:
    """The pilot's own half-widths beside the model's (none without a pilot)."""
    out: list[str] = []
    if plan.pilot:
        out += ["## Pilot check: the pilot's own half-widths vs the model's", ""]
        out += [
            "Both at the pilot's own n and number of questions (whatever --n and "
            "--questions plan for). The pilot's rerun ± takes any variance its interval "
            "would draw from the fitted Beta (n near 2k) from a grid prior fitted to the "
            "pilot instead: the Beta is what this check tests.",
            "",
        ]
        out += _table(
            [
                "metric",
                "pilot value",
                "model mean",
                "pilot rerun ±",
                "model rerun ±",
                "pilot benchmark ±",
                "model benchmark ±",
            ],
            [
                [
                    key,
                    pct_text(p["value"]),
                    pct_text(p["model_mean"]),
                    _pts(p["rerun"]),
                    _pts(p["model_rerun"]),
                    _pts(p["benchmark"]),
                    _pts(p["model_benchmark"]),
                ]
                for key, p in plan.pilot.items()
            ],
        )
        unchecked = [
            f"— pilot {k} ± of {', '.join(keys)}: {why}."
            for (k, why), keys in plan.unchecked_groups().items()
        ]
        out += unchecked + [""] if unchecked else []
    return out


def _grid_sections(plan: Plan) -> list[str]:
    """One half-width table per metric: questions × n."""
    out: list[str] = []
    for key, kinds in plan.grid.items():
        out += [f"## ± half-width of {key}: questions × n", ""]
        label = " / ".join(plan.kinds)
        header = [f"Q \\ n ({label})"] + [str(n) for n in plan.grid_n]
        body = [
            [str(q)]
            + [
                " / ".join(_pts(kinds[kind][i][j]) for kind in plan.kinds)
                for j in range(len(plan.grid_n))
            ]
            for i, q in enumerate(plan.grid_questions)
        ]
        out += _table(header, body)
    return out


def _target_section(plan: Plan) -> list[str]:
    """The smallest n for --halfwidth (none without it)."""
    out: list[str] = []
    if plan.target is not None:
        out += [f"## Smallest n for ±{100 * plan.target:g} points with Q = {plan.questions}", ""]
        out += _table(
            ["metric"] + list(plan.kinds),
            [
                [key] + [DASH if found[kind] is None else str(found[kind]) for kind in plan.kinds]
                for key, found in plan.smallest.items()
            ],
        )
        out += [
            f"— {key} ({kind}): unreachable: {why}."
            for key, by in plan.unreachable.items()
            for kind, why in by.items()
        ]
        out += [""] if plan.unreachable else []
    return out


def _difference_section(plan: Plan, level: str) -> list[str]:
    """The n that resolves --difference (none without it)."""
    out: list[str] = []
    if plan.difference is not None:
        out += [
            f"## n to resolve A − B = {100 * plan.difference:g} points with Q = {plan.questions}",
            "",
            f"Resolve: the {level} interval of A − B excludes 0 with probability "
            f"{plan.power:g} when the true difference is {100 * plan.difference:g} points "
            "(same n for both models; rerun: independent samples of A and B).",
            "",
        ]
        out += _table(
            ["metric"] + list(plan.kinds),
            [
                [key] + [DASH if found[kind] is None else str(found[kind]) for kind in plan.kinds]
                for key, found in plan.resolve.items()
            ],
        )
        if any(v is None for found in plan.resolve.values() for v in found.values()):
            out += ["— : not within n ≤ 1024 with these questions.", ""]
    return out


def render_markdown(plan: Plan) -> str:
    level = f"{100 * plan.level:g}%"
    out = [f"# Sample-size plan ({level} intervals)", "", "Assumptions:", ""]
    out += [f"- {a}" for a in plan.assumptions] + [""]
    if plan.warnings:  # before the numbers they qualify
        out += ["Warnings:", ""] + [f"- {w}" for w in plan.warnings] + [""]
    out += [
        "Half-widths in percent points. rerun: same questions, new samples (shrinks with "
        "n); benchmark: new questions too (its question part shrinks only with Q).",
        "",
        f"## Variance split at n = {plan.n}, Q = {plan.questions}",
        "",
    ]
    out += _split_section(plan) + _pilot_section(plan) + _grid_sections(plan)
    out += _target_section(plan) + _difference_section(plan, level)
    return "\n".join(out)
