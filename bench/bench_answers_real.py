"""Answer checking on real, labelled model outputs: ours vs math-verify vs OpenCompass.

Runs on a fresh clone: the labelled development sets ship in ``bench/data/`` (sources,
licences and row counts in ``bench/data/README.md``)::

    .venv/bin/python bench/bench_answers_real.py              # both sets, every checker
    .venv/bin/python bench/bench_answers_real.py --limit 20   # 20 rows per source (quick)
    .venv/bin/python bench/bench_answers_real.py --shared     # ../shared/answer-checking/

The **non-reasoning** set (``--data``) and the **reasoning** set (``--reasoning-data``:
DeepSeek-R1 distills writing ``<think> … </think>``, some cut by their token budget) are
reported separately, per source, side by side (percent of the rows of that source):

* ``ours rules`` — :func:`~gpassk_oc.core.judging.grading.grade` in rules mode: the
  label agreement of its verdicts (a sample the rules cannot settle is scored wrong). For the
  reasoning set the policy declares a reasoning model (``GradingPolicy(reasoning=True)``)
  when that field exists; without it the current behaviour is measured.
* ``casc. agree`` / ``to judge`` / ``conf. err`` — our cascade with the judge simulated
  from the labels (a perfect judge, so only what the rules settle can be wrong): agreement,
  the share sent to the judge, and confident errors (settled without a judge, label says
  otherwise).
* ``math-verify`` — plain ``verify(parse(gold), parse(reply))``, every verdict final.
* ``OpenCompass`` — OpenCompass's LiveMathBench rule path
  (``LiveMathBenchEvaluator.judge`` without a judge model), every verdict final.
* ``default settings`` — one line per set: ours with the evaluator's defaults
  (``reasoning='auto'``: each evaluation, a source and model, read by the rule detected
  from its own replies): the rule each evaluation got, the agreement, truncated replies
  scored correct, and verdicts that differ from the declared reading above
  (``reasoning=True`` for the reasoning set, ``False`` for the other). Goals: 0 and 0.
* ``trunc ok`` — reasoning set: responses cut by the budget (all labelled wrong) that a
  checker scored correct (ours / math-verify / OpenCompass, counts). Goal: 0 for ours.
  ``reasoning_truncated_to_judge`` counts those our cascade would still send to the judge:
  a reply cut after its thinking closed (the answer stops mid-sentence) can only be told
  by its length, which these records do not give.
* ``judge ch`` — reply characters per sample a judge is shown when every sample goes to it:
  ours (the extracted answer, or the last paragraph when none was found) vs OpenCompass's
  LLM-judge configs (the whole prediction); ``casc ch`` what our cascade actually sends.

Also ``ms per distinct sample`` (one rules-mode ``grade`` call over the set, warm
math-verify pool, divided by the distinct (reply, gold) pairs) and the adversarial reading
test (a 200,000-character reply of one repeated hostile pattern: unclosed ``\\boxed{``,
braces, ``$``, ``\\(``, ``**``, answer markers, think tags, one long line).

Prints ``RESULT key=value …`` lines (bench/run_all.sh collects them into BENCHMARKS.md):
``nonreasoning_*`` and ``reasoning_*`` (agreements in %, confident errors in % of samples,
judge input in characters per sample), ``ms_per_distinct_sample`` (the slower set),
``adversarial_max_ms`` for replies of ``adversarial_chars`` characters
(``adversarial_extrapolated=1`` when a slow pattern was extrapolated instead of run to
full length) and ``goals_met=<met>/<measured>`` for the
goals of issue 16, each listed as met or NOT met above it. ``--show-errors N`` lists N
disagreements of each kind (ours).
"""

from __future__ import annotations

import logging
import os
import sys
import warnings
from collections import defaultdict
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent))
sys.path.insert(0, str(BENCH))

from answer_checkers import (  # noqa: E402
    ADV_CHARS,
    Verdicts,
    adversarial_timing,
    run_default,
    run_math_verify,
    run_opencompass,
    run_ours,
)
from answer_data import (  # noqa: E402
    DEFAULT_DATA,
    DEFAULT_REASONING,
    SHARED_DIR,
    DataError,
    Row,
    load,
)

from gpassk_oc.log import OneLineParser, fail, logger, use_cli_format  # noqa: E402

GOAL_MS = 2.0
GOAL_ADV_MS = 50.0


def _pct(num: float, den: int) -> float:
    return 100.0 * num / den if den else float("nan")


def group_stats(idx: list[int], rows: list[Row], checkers: dict[str, Verdicts]) -> dict:
    """The figures of one row of the table (indices *idx* of *rows*)."""
    n = len(idx)
    lab = [rows[i].label for i in idx]
    ours = checkers["ours"]
    st: dict = {"n": n}
    st["rules"] = _pct(sum(ours.correct[i] == rows[i].label for i in idx), n)
    settled_wrong = sum(ours.settled[i] and ours.correct[i] != rows[i].label for i in idx)
    st["to_judge"] = _pct(sum(not ours.settled[i] for i in idx), n)
    st["conf_err"] = _pct(settled_wrong, n)
    st["cascade"] = 100.0 - st["conf_err"] if n else float("nan")
    trunc = [i for i in idx if rows[i].truncated]
    st["truncated"] = len(trunc)
    st["trunc_to_judge"] = sum(not ours.settled[i] for i in trunc)
    for name, v in checkers.items():
        st[f"agree_{name}"] = _pct(sum(v.correct[i] == lab[k] for k, i in enumerate(idx)), n)
        st[f"trunc_ok_{name}"] = sum(v.correct[i] for i in trunc)
        st[f"judge_ch_{name}"] = sum(v.judge_chars[i] for i in idx) / n if n else 0.0
    st["casc_ch"] = sum(ours.cascade_chars[i] for i in idx) / n if n else 0.0
    return st


def print_table(title: str, rows: list[Row], checkers: dict[str, Verdicts]) -> dict:
    groups: dict[str, list[int]] = defaultdict(list)
    for i, r in enumerate(rows):
        groups[r.source].append(i)
    groups["overall"] = list(range(len(rows)))
    have = [c for c in ("math-verify", "opencompass") if c in checkers]
    print(f"== {title}")
    head = (
        f"{'source':<26}{'n':>5} {'ours rules':>10} {'casc. agree':>11} {'to judge':>8}"
        f" {'conf. err':>9}"
        + "".join(f" {c:>11}" for c in have)
        + f" {'trunc ok':>9} {'judge ch ours':>13}"
        + (f" {'judge ch OC':>11}" if "opencompass" in checkers else "")
        + f" {'casc ch':>8}"
    )
    print(head)
    stats = {}
    for source, idx in groups.items():
        st = stats[source] = group_stats(idx, rows, checkers)
        trunc = "/".join(str(st[f"trunc_ok_{c}"]) for c in ["ours", *have])
        line = (
            f"{source:<26}{st['n']:>5} {st['rules']:>10.1f} {st['cascade']:>11.1f}"
            f" {st['to_judge']:>8.1f} {st['conf_err']:>9.2f}"
            + "".join(f" {st[f'agree_{c}']:>11.1f}" for c in have)
            + f" {trunc if st['truncated'] else '-':>9} {st['judge_ch_ours']:>13.0f}"
            + (f" {st['judge_ch_opencompass']:>11.0f}" if "opencompass" in checkers else "")
            + f" {st['casc_ch']:>8.0f}"
        )
        print(line)
    print()
    return stats


def run_set(title: str, path: Path, rows: list[Row], reasoning: bool, args) -> dict:
    checkers: dict[str, Verdicts] = {"ours": run_ours(rows, reasoning)}
    if not args.no_baselines:
        checkers["math-verify"] = run_math_verify(rows)
        try:
            checkers["opencompass"] = run_opencompass(rows)
        except ImportError as exc:
            logger.warning(f"OpenCompass not importable ({exc}); its column is left out")
    distinct = len({(r.text, r.gold) for r in rows})
    policy_note = "; policy: reasoning=True" if reasoning else ""
    limit = f", at most {args.limit} per source" if args.limit else ""
    print(f"{title}: {len(rows)} labelled samples from {path.name}{limit}{policy_note}")
    for name, v in checkers.items():
        extra = f"; {v.note}" if v.note else ""
        print(f"  {name}: {v.seconds:.2f} s{extra}")
    stats = print_table(title, rows, checkers)
    overall = stats["overall"]
    overall.update(default_line(rows, checkers["ours"]))
    overall["ms_per_distinct"] = 1000.0 * checkers["ours"].seconds / max(distinct, 1)
    overall["distinct"] = distinct
    if "math-verify" in checkers:
        overall["min_minus_mv"] = min(
            st["rules"] - st["agree_math-verify"] for s, st in stats.items() if s != "overall"
        )
    if args.show_errors:
        _show(rows, checkers["ours"], args.show_errors)
    return overall


def default_line(rows: list[Row], declared: Verdicts) -> dict:
    """Ours with default settings (``reasoning='auto'`` per evaluation): print one line and
    return its figures (``default_*``)."""
    correct, rules = run_default(rows)
    st = {
        "default_agree": _pct(sum(c == r.label for c, r in zip(correct, rows)), len(rows)),
        "default_trunc_ok": sum(c for c, r in zip(correct, rows) if r.truncated),
        "default_changed": sum(c != d for c, d in zip(correct, declared.correct)),
    }
    applied = "; ".join(f"{name}: {rule.applied} ({rule.why})" for name, rule in rules.items())
    print(
        f"default settings (reasoning='auto'): agreement {st['default_agree']:.1f} %, "
        f"truncated scored correct {st['default_trunc_ok']}, verdicts changed vs the "
        f"declared reading {st['default_changed']}; {applied}\n"
    )
    return st


def _show(rows: list[Row], ours: Verdicts, limit: int) -> None:
    from gpassk_oc.core.answers.extraction import extract_answer

    kinds = {
        "rules false negative": lambda i: rows[i].label and not ours.correct[i],
        "rules false positive": lambda i: ours.correct[i] and not rows[i].label,
        "cascade confident error": lambda i: ours.settled[i] and ours.correct[i] != rows[i].label,
    }
    for kind, pick in kinds.items():
        idx = [i for i in range(len(rows)) if pick(i)]
        print(f"-- {kind}: {len(idx)}")
        for i in idx[:limit]:
            ex = extract_answer(rows[i].text)
            print(
                f"  [{rows[i].source[:12]} {rows[i].id[:40]}] found={ex.found} "
                f"answer={(ex.answer or '')[:80]!r} gold={rows[i].gold[:80]!r}"
            )
    print()


def adversarial(chars: int) -> tuple[float, bool]:
    cases = adversarial_timing(chars)
    print(f"== adversarial reading: one reply of {chars:,} characters per pattern")
    for c in cases:
        how = (
            f"≈{c.ms_at_target:,.0f} ms extrapolated (measured {c.ms:,.0f} ms at {c.chars:,})"
            if c.extrapolated
            else f"{c.ms:,.1f} ms"
        )
        print(f"  {c.name:<22} {how}")
    print()
    worst = max(cases, key=lambda c: c.ms_at_target)
    return worst.ms_at_target, any(c.extrapolated for c in cases)


def _fmt(x: float, digits: int = 1) -> str:
    return f"{x:.{digits}f}"


def report(
    nr: dict, rs: dict, adv_ms: float | None, adv_extrapolated: bool, adv_chars: int
) -> None:
    """The RESULT lines and the issue's goals."""
    ratio = (
        rs["judge_ch_ours"] / rs["judge_ch_opencompass"] if "judge_ch_opencompass" in rs else None
    )
    print(
        f"RESULT nonreasoning_rules_agreement={_fmt(nr['rules'])} "
        f"nonreasoning_cascade_confident_errors={_fmt(nr['conf_err'], 2)} "
        + (
            f"nonreasoning_math_verify_agreement={_fmt(nr['agree_math-verify'])} "
            f"nonreasoning_rules_minus_math_verify_min={_fmt(nr['min_minus_mv'])} "
            if "min_minus_mv" in nr
            else ""
        )
        + (
            f"nonreasoning_opencompass_agreement={_fmt(nr['agree_opencompass'])} "
            if "agree_opencompass" in nr
            else ""
        )
        + f"nonreasoning_default_agreement={_fmt(nr['default_agree'])} "
        f"nonreasoning_default_changed={nr['default_changed']}"
    )
    print(
        f"RESULT reasoning_rules_agreement={_fmt(rs['rules'])} "
        f"reasoning_cascade_confident_errors={_fmt(rs['conf_err'], 2)} "
        f"reasoning_truncated_scored_correct={rs['trunc_ok_ours']} "
        f"reasoning_truncated_to_judge={rs['trunc_to_judge']} "
        f"reasoning_default_agreement={_fmt(rs['default_agree'])} "
        f"reasoning_default_truncated_scored_correct={rs['default_trunc_ok']} "
        f"reasoning_default_changed={rs['default_changed']} "
        + (
            f"reasoning_math_verify_agreement={_fmt(rs['agree_math-verify'])} "
            if "agree_math-verify" in rs
            else ""
        )
        + (
            f"reasoning_opencompass_agreement={_fmt(rs['agree_opencompass'])} "
            f"reasoning_judge_chars_ours={rs['judge_ch_ours']:.0f} "
            f"reasoning_judge_chars_opencompass={rs['judge_ch_opencompass']:.0f} "
            f"reasoning_judge_input_ratio={ratio:.4f}"
            if ratio is not None
            else f"reasoning_judge_chars_ours={rs['judge_ch_ours']:.0f}"
        )
    )
    ms = max(nr["ms_per_distinct"], rs["ms_per_distinct"])
    adv = (
        f" adversarial_chars={adv_chars} adversarial_max_ms={adv_ms:.1f}"
        f" adversarial_extrapolated={int(adv_extrapolated)}"
        if adv_ms is not None
        else ""
    )
    print(f"RESULT ms_per_distinct_sample={ms:.2f}{adv}")
    goals = [
        ("reasoning: rules agreement ≥ 98 %", rs["rules"] >= 98.0),
        ("reasoning: cascade confident errors ≤ 0.5 %", rs["conf_err"] <= 0.5),
        ("reasoning: zero truncated responses scored correct", rs["trunc_ok_ours"] == 0),
        (
            "reasoning, default settings: zero truncated responses scored correct",
            rs["default_trunc_ok"] == 0,
        ),
        ("non-reasoning, default settings: no verdict changed", nr["default_changed"] == 0),
        ("non-reasoning: rules agreement ≥ 96 %", nr["rules"] >= 96.0),
        ("non-reasoning: cascade confident errors ≤ 0.5 %", nr["conf_err"] <= 0.5),
        (f"≤ {GOAL_MS:g} ms per distinct sample", ms <= GOAL_MS),
    ]
    if adv_ms is not None:
        goals.append(
            (f"a {adv_chars:,}-character reply read in ≤ {GOAL_ADV_MS:g} ms", adv_ms <= GOAL_ADV_MS)
        )
    if "min_minus_mv" in nr:
        goals.append(
            ("non-reasoning: rules ≥ math-verify on every source", nr["min_minus_mv"] >= 0)
        )
    if ratio is not None:
        goals.append(("reasoning: judge input ≤ 1/20 of OpenCompass's", ratio <= 0.05))
    for text, ok in goals:
        print(f"goal {'met    ' if ok else 'NOT met'}  {text}")
    print(f"RESULT goals_met={sum(ok for _, ok in goals)}/{len(goals)}")


def main(argv: list[str] | None = None) -> int:
    use_cli_format()
    ap = OneLineParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=None, help="non-reasoning JSONL(.gz)")
    ap.add_argument("--reasoning-data", type=Path, default=None, help="reasoning JSONL(.gz)")
    ap.add_argument(
        "--shared",
        action="store_true",
        help=f"read both sets from {SHARED_DIR} instead of bench/data/",
    )
    ap.add_argument("--limit", type=int, default=None, metavar="N", help="N rows per source")
    ap.add_argument("--no-baselines", action="store_true", help="skip math-verify and OpenCompass")
    ap.add_argument("--show-errors", type=int, default=0, metavar="N", help="N per kind (ours)")
    ap.add_argument(
        "--no-adversarial", action="store_true", help="skip the adversarial reading test"
    )
    ap.add_argument(
        "--adversarial-chars",
        type=int,
        default=ADV_CHARS,
        metavar="N",
        help=f"length of each adversarial reply (default {ADV_CHARS:,}, the goal's size)",
    )
    args = ap.parse_args(argv)
    if args.limit is not None and args.limit < 1:
        return fail("--limit: must be a positive number of rows per source")
    if args.adversarial_chars < 1:
        return fail("--adversarial-chars: must be a positive number of characters")
    base = (
        (SHARED_DIR / "dev.jsonl", SHARED_DIR / "reasoning-dev.jsonl")
        if args.shared
        else (
            DEFAULT_DATA,
            DEFAULT_REASONING,
        )
    )
    data = args.data or base[0]
    reasoning_data = args.reasoning_data or base[1]
    for flag, path in (("--data", data), ("--reasoning-data", reasoning_data)):
        if not path.is_file():
            return fail(f"{flag}: no file at {path} (the default ships in bench/data/)")
    try:  # both sets are read and checked before anything runs
        plain_rows, reasoning_rows = load(data, args.limit), load(reasoning_data, args.limit)
    except DataError as exc:
        return fail(str(exc))
    logging.disable(logging.CRITICAL)
    warnings.simplefilter("ignore")
    load_avg = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"load average {load_avg:.1f} on {os.cpu_count()} CPUs\n")
    nr = run_set("non-reasoning", data, plain_rows, False, args)
    rs = run_set("reasoning", reasoning_data, reasoning_rows, True, args)
    adv_chars = args.adversarial_chars
    adv_ms, adv_ex = (None, False) if args.no_adversarial else adversarial(adv_chars)
    report(nr, rs, adv_ms, adv_ex, adv_chars)
    return 0


if __name__ == "__main__":
    sys.exit(main())
