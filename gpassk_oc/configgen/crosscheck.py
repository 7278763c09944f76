"""Cross-field rules of a template (pure): what no single variable's check can see.

Runs after every variable passed its own check (:func:`gpassk_oc.configgen.schema.validate`);
fills derived defaults (``max_seq_len``) and adds notes for settings that work but surprise.
"""

from __future__ import annotations

from typing import Any

from gpassk_oc.configgen.checks import TemplateError, suggest
from gpassk_oc.core.data.livemath_data import KNOWN_VERSIONS

__all__ = ["HUB_ID", "MAX_N", "cross_checks"]

#: The gated Hugging Face dataset; offline runs need a local copy instead.
HUB_ID = "opencompass/LiveMathBench"


#: Largest n (samples per question) a config may ask for. Every question is sent n times
#: and the results file keeps one verdict per sample: the paper uses n = 48, and beyond
#: 10,000 a typo (``replications = [10**12]``) is far likelier than a plan.
MAX_N = 10_000


def _check_n_cap(v: dict[str, Any]) -> None:
    top_k = max(max(ks) for ks in v["ks"])
    planned = [("n", v["n"])] if v["n"] is not None else []
    planned += [("replications", r * top_k) for r in v["replications"] or ()]
    for field, n in planned:
        if n > MAX_N:
            shown = f"n = {n:,}" if field == "n" else f"n = replication x max(k) = {n:,}"
            raise TemplateError(
                f"{shown} samples per question exceeds the cap of {MAX_N:,} (each question "
                "is sent n times; the paper uses n = 48)",
                field,
            )


def cross_checks(v: dict[str, Any], notes: list[str]) -> None:
    n = v["n"]
    _check_n_cap(v)
    if n is not None and v["replications"] is not None:
        raise TemplateError("set either n or replications, not both", "n")
    if n is None and v["replications"] is None:
        raise TemplateError("missing variable 'replications' (or n)")
    if n is not None:
        for ks in v["ks"]:
            if max(ks) > n:
                raise TemplateError(f"k = {max(ks)} > n = {n}", "n")
            if n % max(ks):
                raise TemplateError(f"n = {n} is not a multiple of max(k) = {max(ks)}", "n")
    if v["max_seq_len"] is None:
        v["max_seq_len"] = v["max_out_len"] + 4096
    elif v["max_seq_len"] <= v["max_out_len"]:
        raise TemplateError(
            f"{v['max_seq_len']} is not above max_out_len = {v['max_out_len']}", "max_seq_len"
        )
    splits, languages = KNOWN_VERSIONS[v["version"]]
    for field, known, what in (
        ("dataset_splits", splits, "split"),
        ("dataset_languages", languages, "language"),
    ):
        for item in v[field]:
            if item not in known:
                raise TemplateError(
                    f"unknown {what} {item!r} for LiveMathBench v{v['version']} (known: "
                    f"{', '.join(known)}){suggest(item, known)}",
                    field,
                )
    if v["eval_urls"] and not v["eval_model_name"]:
        raise TemplateError("judge URLs set but eval_model_name is not", "eval_urls")
    if v["eval_model_name"] and not v["eval_urls"]:
        notes.append(
            f"eval_model_name: {v['eval_model_name']!r} set but eval_urls is empty: "
            "rule-based checking (as in GPassK); set eval_urls to use the judge"
        )
        v["eval_model_name"] = None
    if v["data_path"].rstrip("/") == HUB_ID:
        notes.append(
            f"data_path: {HUB_ID!r} is the gated hub dataset: runs need granted access and a "
            "Hugging Face token, and offline runs a local copy; lay it out as "
            f"DIR/{v['version']}/{{split}}_{{lang}}.jsonl and set data_path = '/abs/DIR' "
            '(docs/data.md: "A local LiveMathBench copy")'
        )
