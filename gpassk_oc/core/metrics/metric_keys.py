"""How metric keys and group names are spelled (what each metric *is*, and parsing a key
back into a typed spec, belong to :mod:`gpassk_oc.core.metrics.registry`).

Metric keys (what the results JSON, the report, ``compare`` and the demo all use) are
``{prefix}@{k}``, plus ``_{τ}`` for a metric with a threshold (:func:`metric_key`); the
prefixes and what each metric is: ``registry.METRICS``. The built-in ones::

    G-Pass@{k}_{τ}     G-Pass@k at threshold τ; τ printed as OpenCompass prints it
                       (``repr(float(τ))``: 0.0, 0.25, 0.5, 0.75, 1.0, 0.55 …)
    mG-Pass@{k}        mean G-Pass@k over τ in (0.5, 1]
    pass@{k}           the unbiased pass@k (= G-Pass@k_0)
    gap@{k}            pass@k − G-Pass@k_1.0, the stability gap (report only)
    maj@{k}            majority vote among k samples drawn without replacement, ties
                       split evenly (:mod:`gpassk_oc.core.metrics.majority_vote`); needs the
                       per-sample votes, not only (n, c)
    avg@{n}            mean accuracy over all n samples of each question, OpenCompass's
                       "accuracy (n runs average)" (the value of pass@1; the n says how
                       many samples it averages)
    accuracy           greedy (n = 1) runs: mean accuracy (= pass@1)

pass^k (τ-bench's name) is not a key of its own: it is ``G-Pass@{k}_1.0``
(:data:`PASS_HAT_K`).

A *group* is one split × language subset of a dataset, named ``{split}/{language}``
(e.g. ``AMC/en``); a per-group key is ``{group}/{metric}`` (``AMC/en/G-Pass@16_0.5``),
so the metric is always the part after the last ``/``. ``/`` was chosen over ``_``
because split names may hold underscores while the metric part never holds ``/``, and
OpenCompass's summarizer (``summarizers/default.py``) uses result keys verbatim as row
names — it splits dataset *abbrs* on ``_``, never metric keys. Results files of schema 1
spelled groups ``{split}_{language}``; :func:`legacy_group` reads those.

Pure core: standard library only (τ arrives as a Fraction, int or string; turning user
floats into exact Fractions is :func:`gpassk_oc.core.metrics.gpass_exact.as_fraction`'s job).
"""

from __future__ import annotations

from fractions import Fraction

__all__ = [
    "ACCURACY",
    "ALL_TAUS",
    "GROUP_SEP",
    "PASS_AT_1",
    "HEADLINE_TAUS",
    "format_tau",
    "g_pass_key",
    "gap_key",
    "pass_key",
    "group_name",
    "PASS_HAT_K",
    "avg_key",
    "legacy_group",
    "maj_key",
    "metric_key",
    "mg_pass_key",
    "result_key",
    "split_group",
]

GROUP_SEP = "/"
ACCURACY = "accuracy"
#: mean accuracy over judged samples; every results file has it
PASS_AT_1 = "pass@1"  # pass_key(1)
#: pass^k (τ-bench) is an alias, not a key: it is G-Pass@k at τ = 1
PASS_HAT_K = "G-Pass@{k}_1.0"
#: τ of the paper's tables (the headline columns) and every τ OpenCompass reports
HEADLINE_TAUS = (Fraction(1, 2), Fraction(3, 4), Fraction(1))
ALL_TAUS = (Fraction(0), Fraction(1, 4), Fraction(1, 2), Fraction(3, 4), Fraction(1))


def format_tau(tau: Fraction | int | str) -> str:
    """τ as it appears in keys: ``repr(float(τ))`` (Fraction(1, 2) → '0.5', 1 → '1.0')."""
    return repr(float(Fraction(tau)))


def metric_key(prefix: str, k: int | str, tau: Fraction | int | str | None = None) -> str:
    """The one spelling of a metric key: ``{prefix}@{k}``, plus ``_{τ}`` when the metric
    has a threshold (the registry's definitions name the prefixes). *k* may be the text
    ``"k"`` for a k-generic column name (``G-Pass@k_0.5``)."""
    key = f"{prefix}@{k if isinstance(k, str) else int(k)}"
    return key if tau is None else f"{key}_{format_tau(tau)}"


def g_pass_key(k: int, tau: Fraction | int | str) -> str:
    """``G-Pass@{k}_{τ}``."""
    return metric_key("G-Pass", k, tau)


def mg_pass_key(k: int) -> str:
    """``mG-Pass@{k}``."""
    return metric_key("mG-Pass", k)


def pass_key(k: int) -> str:
    """``pass@{k}``: at least one of k samples correct (``pass@1`` is mean accuracy)."""
    return metric_key("pass", k)


def gap_key(k: int) -> str:
    """``gap@{k}``: the stability gap pass@k − G-Pass@k_1.0."""
    return metric_key("gap", k)


def maj_key(k: int) -> str:
    """``maj@{k}``: majority vote among k samples (ties split evenly)."""
    return metric_key("maj", k)


def avg_key(n: int) -> str:
    """``avg@{n}``: mean accuracy over the n samples of each question."""
    return metric_key("avg", n)


def group_name(split: str, language: str) -> str:
    """The split × language group name, ``{split}/{language}`` (e.g. ``AMC/en``); '' when
    both are empty (details that name neither)."""
    if not split and not language:
        return ""
    return f"{split}{GROUP_SEP}{language}"


def split_group(group: str) -> tuple[str, str]:
    """``"AMC/en"`` → ``("AMC", "en")`` (the language never holds ``/``)."""
    split, _, language = group.rpartition(GROUP_SEP)
    return split, language


def legacy_group(prefix: str) -> str:
    """A schema-1 group prefix ``{split}_{language}`` → ``{split}/{language}``; languages
    (en, cn) hold no ``_``, so the last ``_`` is the separator."""
    split, sep, language = prefix.rpartition("_")
    return group_name(split, language) if sep else prefix


def result_key(metric: object, group: str = "") -> str:
    """The key of *metric* (a key, or a spec: its ``.key``) overall (``group=''``) or in
    one group: ``AMC/en/mG-Pass@16``."""
    name = str(getattr(metric, "key", metric))
    return f"{group}{GROUP_SEP}{name}" if group else name
