"""Answer checking on real, labelled model outputs: ours vs math-verify vs OpenCompass.

Data: ``../shared/answer-checking/dev.jsonl`` beside the repository (``--data PATH`` for
another file; a one-line message and exit 0 when it is absent). Each record is a real model
output (``response``) or an already-extracted answer (``pred``, when ``response`` is null),
a reference answer ``gold`` and a correctness ``label`` given by someone other than us.

For each source and overall, side by side:

* **ours**: :func:`gpassk_oc.core.judging.grading.grade` in rules mode (the same extraction and
  rules the cascade uses); the samples it marks ``rule_undecided`` are the ones cascade
  mode sends to the judge, the rest cascade settles the same way (no judge is called: we
  measure what the rules settle on their own);
* **math-verify**: ``parse`` + ``verify`` on the full response (the gold wrapped in ``$``
  when it has none), every verdict final;
* **OpenCompass**: ``math_postprocess_v2`` + ``MATHEvaluator(version='v2').is_equiv``, every
  verdict final (imported from the installed OpenCompass, here only).

A pre-extracted ``pred`` is given to every checker as the answer itself (ours as a
``\\boxed{}``; math-verify parses it; OpenCompass compares it without post-processing).

Columns (percent of the samples of that row):
``rules agree`` — rules-mode verdict equals the label;
``false equal`` — settled *correct* without a judge, label false;
``conf. wrong`` — settled *wrong* without a judge, label true (confidently wrong on a
correct answer); for math-verify and OpenCompass every verdict is settled, so these two are
their false-positive and false-negative rates;
``to judge`` — share cascade mode sends to the judge; ``ms/sample`` — wall time per sample
of one rules-mode pass (ours: warm worker pool, deduplicated per distinct answer as in
production; ours over the whole file in one ``grade`` call).

Prints ``RESULT rules_agreement=<%> cascade_confident_errors=<%> ms_per_sample=<ms>``
(ours, overall; confident errors = false equal + confidently wrong, over all samples).
Goals on the dev set: agreement ≥ 97 % and ≥ math-verify on every source; confident errors
≤ 1 %; ≤ 2 ms per sample on 2 cores. ``--show-errors N`` lists N disagreements per kind.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
import warnings
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gpassk_oc.core.answers.mv_pool import default_pool  # noqa: E402
from gpassk_oc.core.judging.grading import GradingPolicy, grade  # noqa: E402
from gpassk_oc.log import fail, logger, use_cli_format  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "answer-checking" / "dev.jsonl"


def load(path: Path) -> list[dict]:
    rows = []
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except ValueError as exc:
                raise SystemExit(fail(f"{path}:{lineno}: not JSON ({exc})")) from exc
            for key in ("source", "gold", "label"):
                if key not in row:
                    raise SystemExit(fail(f"{path}:{lineno}: field '{key}' is missing"))
            if row.get("response") is None and row.get("pred") is None:
                raise SystemExit(fail(f"{path}:{lineno}: needs 'response' or 'pred'"))
            rows.append(row)
    return rows


def _text(row: dict) -> str:
    """What the model wrote: the response, or a pre-extracted answer as a boxed answer."""
    if row.get("response") is not None:
        return row["response"]
    return "\\boxed{" + str(row["pred"]).strip().strip("$") + "}"


def run_ours(rows: list[dict]) -> tuple[list[bool], list[str], list[str], float]:
    """Rules verdicts, cascade decisions ('correct' / 'wrong' / 'judge'), how each answer
    was found, and seconds for the rules-mode grade call."""
    items = [
        {
            "question": r.get("question", ""),
            "gold": r["gold"],
            "language": "cn" if r.get("lang") == "zh" else "en",
            "responses": [_text(r)],
        }
        for r in rows
    ]
    policy = GradingPolicy(check="rules", progress=False)
    # start the math-verify workers (one per slot: two pairs at once) outside the timing
    default_pool().check_many([("1", "1"), ("2", "2")])
    t0 = time.perf_counter()
    res = grade(items, policy)
    seconds = time.perf_counter() - t0
    # rules mode marks exactly what cascade would send to the judge (rule_undecided): one
    # pass gives both, with every rule and math-verify check done once
    decisions = [
        "judge" if src[0] == "rule_undecided" else "correct" if ok[0] else "wrong"
        for src, ok in zip(res.source, res.correct)
    ]
    c = res.counts
    print(
        f"ours: {c['rule_checks']} distinct (answer, gold) checks, {c['rule_mv_calls']} needed "
        f"math-verify, {c['rule_timeouts']} hit the {policy.rule_timeout:g} s deadline"
    )
    return ([bool(c[0]) for c in res.correct], decisions, [f[0] for f in res.found], seconds)


def _mv_gold(gold: str) -> str:
    return gold if "$" in gold or "\\boxed" in gold else f"${gold}$"


def run_math_verify(rows: list[dict]) -> tuple[list[bool], float]:
    from math_verify import parse, verify

    out = []
    t0 = time.perf_counter()
    for r in rows:
        text = r["response"] if r.get("response") is not None else _mv_gold(str(r["pred"]))
        try:
            ok = bool(verify(parse(_mv_gold(str(r["gold"]))), parse(text)))
        except Exception:
            ok = False
        out.append(ok)
    return out, time.perf_counter() - t0


def run_opencompass(rows: list[dict]) -> tuple[list[bool], float]:
    from opencompass.datasets.math import MATHEvaluator, math_postprocess_v2

    ev = MATHEvaluator(version="v2")
    out = []
    t0 = time.perf_counter()
    for r in rows:
        try:
            pred = (
                math_postprocess_v2(r["response"])
                if r.get("response") is not None
                else str(r["pred"])
            )
            ok = bool(ev.is_equiv(pred, str(r["gold"])))
        except Exception:
            ok = False
        out.append(ok)
    return out, time.perf_counter() - t0


def _pct(num: int, den: int) -> str:
    return f"{100.0 * num / den:5.1f}" if den else "    -"


def main(argv: list[str] | None = None) -> int:
    use_cli_format()
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help="labelled JSONL file")
    ap.add_argument(
        "--no-baselines",
        action="store_true",
        help="skip math-verify and OpenCompass (faster iterations)",
    )
    ap.add_argument(
        "--show-errors",
        type=int,
        default=0,
        metavar="N",
        help="print up to N disagreements of each kind (ours)",
    )
    ap.add_argument(
        "--show-mv",
        type=int,
        default=0,
        metavar="N",
        help="print up to N distinct (answer, gold) pairs the fast rules leave to "
        "math-verify (what to decide next for speed)",
    )
    args = ap.parse_args(argv)
    if not args.data.is_file():
        print(f"no labelled data at {args.data}: nothing to benchmark (pass --data PATH)")
        return 0
    rows = load(args.data)
    logging.disable(logging.CRITICAL)
    warnings.simplefilter("ignore")

    ours, decision, found, t_ours = run_ours(rows)
    checkers = {"ours": (ours, t_ours)}
    if not args.no_baselines:
        checkers["math-verify"] = run_math_verify(rows)
        try:
            checkers["opencompass"] = run_opencompass(rows)
        except ImportError as exc:
            logger.warning(f"OpenCompass not importable ({exc}); its column is left out")
    labels = [bool(r["label"]) for r in rows]

    groups: dict[str, list[int]] = defaultdict(list)
    for i, r in enumerate(rows):
        groups[r["source"]].append(i)
    groups["overall"] = list(range(len(rows)))
    names = list(checkers)
    head = f"{'source':<28}{'n':>5}  " + "  ".join(
        f"{'rules agree':>11} {'false equal':>11} {'conf. wrong':>11} {'to judge':>8}"
        f" {'ms/sample':>9}  [{name}]"
        for name in names[:1]
    )
    load_avg = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"{len(rows)} labelled samples from {args.data.name}; percent of samples per row "
        f"(load average {load_avg:.1f} on {os.cpu_count()} CPUs)\n"
    )
    for name in names:
        verdicts, seconds = checkers[name]
        print(f"== {name}")
        print(head.replace(f"[{names[0]}]", ""))
        for source, idx in groups.items():
            n = len(idx)
            agree = sum(verdicts[i] == labels[i] for i in idx)
            if name == "ours":
                false_eq = sum(decision[i] == "correct" and not labels[i] for i in idx)
                conf_wrong = sum(decision[i] == "wrong" and labels[i] for i in idx)
                to_judge = sum(decision[i] == "judge" for i in idx)
            else:  # every verdict is final
                false_eq = sum(verdicts[i] and not labels[i] for i in idx)
                conf_wrong = sum(labels[i] and not verdicts[i] for i in idx)
                to_judge = 0
            ms = 1000.0 * seconds / len(rows)  # one pass over the whole file
            print(
                f"{source:<28}{n:>5}  {_pct(agree, n):>11} {_pct(false_eq, n):>11}"
                f" {_pct(conf_wrong, n):>11} {_pct(to_judge, n):>8} {ms:>9.2f}"
            )
        print()
    found_counts = defaultdict(int)
    for f in found:
        found_counts[f] += 1
    print(
        "ours, how answers were found: "
        + ", ".join(f"{k}={found_counts[k]}" for k in ("boxed", "statement", "fallback", "none"))
    )

    if args.show_errors:
        _show(rows, ours, decision, found, labels, args.show_errors)
    if args.show_mv:
        _show_mv(rows, args.show_mv)

    n = len(rows)
    agree = sum(o == lab for o, lab in zip(ours, labels))
    conf = sum(
        (d == "correct" and not lab) or (d == "wrong" and lab) for d, lab in zip(decision, labels)
    )
    print(
        f"RESULT rules_agreement={100.0 * agree / n:.1f} "
        f"cascade_confident_errors={100.0 * conf / n:.2f} "
        f"ms_per_sample={1000.0 * t_ours / n:.2f}"
    )
    return 0


def _show(rows, ours, decision, found, labels, limit: int) -> None:
    from gpassk_oc.core.answers.extraction import extract_answer

    kinds = {
        "rules false negative": lambda i: labels[i] and not ours[i],
        "rules false positive": lambda i: ours[i] and not labels[i],
        "cascade confidently wrong": lambda i: decision[i] == "wrong" and labels[i],
    }
    for kind, pick in kinds.items():
        idx = [i for i in range(len(rows)) if pick(i)]
        print(f"\n-- {kind}: {len(idx)}")
        for i in idx[:limit]:
            ex = extract_answer(_text(rows[i]))
            print(
                f"  [{rows[i]['source'][:8]} {rows[i]['id']}] found={found[i]} "
                f"answer={ex.answer!r} gold={rows[i]['gold']!r}"
            )


def _show_mv(rows, limit: int) -> None:
    from gpassk_oc.core.answers.canonical import canonical_answer
    from gpassk_oc.core.answers.extraction import extract_answer
    from gpassk_oc.core.answers.rules import fast_check

    slow: dict[tuple[str, str], list[bool]] = {}
    for r in rows:
        answer = extract_answer(_text(r)).answer
        if not answer:
            continue
        key = (canonical_answer(answer), canonical_answer(str(r["gold"])))
        if key in slow or fast_check(*key) is None:
            slow.setdefault(key, []).append(bool(r["label"]))
    print(f"\n-- pairs left to math-verify: {len(slow)}")
    for (pred, gold), labels in list(slow.items())[:limit]:
        print(f"  labels={labels} answer={pred!r} gold={gold!r}")


if __name__ == "__main__":
    sys.exit(main())
