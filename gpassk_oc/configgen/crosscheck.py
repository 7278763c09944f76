"""Cross-field rules of a template (pure): what no single variable's check can see.

Runs after every variable passed its own check (:func:`gpassk_oc.configgen.schema.validate`);
fills derived defaults (``max_seq_len``) and adds notes for settings that work but surprise.
"""

from __future__ import annotations

from typing import Any

from gpassk_oc.configgen.checks import TemplateError, suggest
from gpassk_oc.core.data.livemath_data import KNOWN_VERSIONS
from gpassk_oc.core.runs.run_spec import RunSpec, RunSpecError

__all__ = ["HUB_ID", "MAX_N", "cross_checks"]

#: The gated Hugging Face dataset; offline runs need a local copy instead.
HUB_ID = "opencompass/LiveMathBench"


#: Largest n (samples per question) a config may ask for. Every question is sent n times
#: and the results file keeps one verdict per sample: the paper uses n = 48, and beyond
#: 10,000 a typo (``replications = [10**12]``) is far likelier than a plan.
MAX_N = 10_000


def _run_specs(v: dict[str, Any]) -> list[RunSpec]:
    """One run spec per k-list × replication (or the one n), checked here, once: n is a
    multiple of every max(k) (the ``-r{r}`` of the names), within :data:`MAX_N`."""
    n = v["n"]
    if n is not None and v["replications"] is not None:
        raise TemplateError("set either n or replications, not both", "n")
    if n is None and v["replications"] is None:
        raise TemplateError("missing variable 'replications' (or n)")
    specs = []
    for ks in v["ks"]:
        base = RunSpec(ks, v["thresholds"])
        try:
            if n is not None:
                specs.append(base.at_n(n, "n"))
            else:
                specs += [RunSpec.of_replication(ks, r, v["thresholds"]) for r in v["replications"]]
        except RunSpecError as exc:
            raise TemplateError(exc.problem, exc.field) from None
    for spec in specs:
        field = "n" if n is not None else "replications"
        assert spec.n is not None  # every spec here has its n
        if spec.n > MAX_N:
            shown = f"n = {spec.n:,}" if n is not None else f"n = replication x max(k) = {spec.n:,}"
            raise TemplateError(
                f"{shown} samples per question exceeds the cap of {MAX_N:,} (each question "
                "is sent n times; the paper uses n = 48)",
                field,
            )
        if spec.replication is None:
            raise TemplateError(f"n = {n} is not a multiple of max(k) = {spec.top_k}", "n")
    return specs


def cross_checks(v: dict[str, Any], notes: list[str]) -> list[RunSpec]:
    """Check what no single variable's check can see, fill derived defaults, add notes;
    the template's run specs (:func:`_run_specs`)."""
    specs = _run_specs(v)
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
    return specs
