"""The config / abbr naming convention, both directions (pure core).

``{model}_t{T}_p{TOP_P}_k{TOP_K}_rp{REP_PEN}_rs{SEED}_l{MAX_OUT_LEN}@{dataset}`` where
``dataset = LiveMathBench-v{VERSION}-k{K1_K2_..}-r{REPLICATION}`` and every '.' in a
value is written '-', e.g.
``deepseek-math-7b-rl_t0-3_p0-8_k50_rp1-0_rs42_l8192@LiveMathBench-v202412-k4_8_16-r3``.
The part before '@' is the model abbr, the part after it the dataset abbr. A dataset
setting that changes what is asked and differs from the version's default is written
right after the version (:func:`dataset_tags`): the split set (``-hard``, or
``-CCEE-AMC`` for a subset of the default splits), the languages (``-en``) and ``-nocot``
for the plain prompt, e.g. ``LiveMathBench-v202412-hard-en-nocot-k4_8_16-r3``; default
settings add nothing, so their names are those of earlier versions (and an untagged abbr
of an earlier version reads as the default selection, even where that run used a subset). A run graded by an LLM judge appends
``-judge-{short judge name}`` to the dataset abbr (see :func:`judge_tag`), so a judged and
a rule-based run of one grid point never share a name. No part holds '_' but the k list
(OpenCompass groups per-sample rows by ``abbr.split('_')[0]``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from gpassk_oc.core.data.livemath_data import KNOWN_VERSIONS
from gpassk_oc.core.runs.run_spec import RunSpec

Number = int | float

_MODEL_RE = re.compile(
    r"^(?P<model>.+)_t(?P<temperature>\d+(?:-\d+)?)_p(?P<top_p>\d+(?:-\d+)?)"
    r"_k(?P<top_k>-?\d+)_rp(?P<repetition_penalty>\d+(?:-\d+)?)_rs(?P<seed>-?\d+)"
    r"_l(?P<max_out_len>\d+)$"
)
_DATASET_RE = re.compile(
    r"^(?P<name>.+)-v(?P<version>[0-9A-Za-z]+)(?P<tags>(?:-(?!k\d)[0-9A-Za-z]+)*)"
    r"-k(?P<ks>\d+(?:_\d+)*)-r(?P<replication>\d+)"
    r"(?:-judge-(?P<judge>[0-9A-Za-z-]+))?$"
)
_NOT_TAG_RE = re.compile(r"[^0-9A-Za-z-]+")


def format_value(value: Number) -> str:
    """Write a value for a name: floats as their shortest repr with '.' → '-' (0.3 → 0-3,
    1.0 → 1-0), ints as digits. Exponent notation is refused: names must stay readable."""
    if isinstance(value, bool):
        raise ValueError(f"expected a number, got {value!r}")
    if isinstance(value, int):
        return str(value)
    text = repr(float(value))
    if "e" in text or "inf" in text or "nan" in text:
        raise ValueError(f"value {value!r} cannot be written in a config name")
    return text.replace(".", "-")


def parse_value(text: str) -> float:
    """Inverse of :func:`format_value` for the non-negative floats used in names."""
    return float(text.replace("-", "."))


def model_abbr(
    model: str,
    temperature: float,
    top_p: float,
    top_k: int,
    repetition_penalty: float,
    seed: int,
    max_out_len: int,
) -> str:
    """Model half of the name; *model* is a path or hub id, only its basename is used."""
    base = model.rstrip("/").rsplit("/", 1)[-1]
    return (
        f"{base}_t{format_value(float(temperature))}_p{format_value(float(top_p))}"
        f"_k{int(top_k)}_rp{format_value(float(repetition_penalty))}_rs{int(seed)}"
        f"_l{int(max_out_len)}"
    )


def judge_tag(judge_model: str) -> str:
    """Short judge name for abbrs: the basename of the served model name with every run of
    characters other than letters, digits and '-' written '-' (no '_': OpenCompass groups
    per-sample rows by ``abbr.split('_')[0]``; no '.': names write '.' as '-').
    ``'Qwen/Qwen2.5-72B-Instruct'`` -> ``'Qwen2-5-72B-Instruct'``."""
    tag = _NOT_TAG_RE.sub("-", judge_model.rstrip("/").rsplit("/", 1)[-1]).strip("-")
    if not tag:
        raise ValueError(f"judge model name {judge_model!r} has no letters or digits")
    return tag


#: the tag of the plain (no chain-of-thought) prompt
NO_COT = "nocot"


def default_selection(version: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(splits, languages) a version's names leave unsaid: every split but ``hard`` (the
    hard split is its own benchmark) and every language; ((), ()) for an unknown version."""
    splits, languages = KNOWN_VERSIONS.get(str(version), ((), ()))
    return tuple(s for s in splits if s != "hard"), tuple(languages)


def _canonical(chosen: Sequence[str], known: Sequence[str]) -> list[str]:
    """*chosen* as a set in the version's order (unknown items last, as given)."""
    return [k for k in known if k in chosen] + [c for c in chosen if c not in known]


def dataset_tags(
    version: str,
    splits: Sequence[str] | None = None,
    languages: Sequence[str] | None = None,
    cot: bool = True,
) -> str:
    """``-{split}..-{language}..[-nocot]`` for the settings that differ from the version's
    default (None = the default): a split set other than the default splits (``-hard``,
    ``-CCEE-AMC`` for a subset), languages other than all, the plain prompt; '' for a
    default selection. Sets, not lists, each written in the version's order
    (:data:`KNOWN_VERSIONS`): the order a template lists them in does not change what is
    asked, so it does not change the name."""
    known_splits, known_languages = KNOWN_VERSIONS.get(str(version), ((), ()))
    default_splits, default_languages = default_selection(version)
    tags: list[str] = []
    # any other split set is named, a subset of the default splits too: otherwise an AMC +
    # CCEE run and a full one share results paths and OpenCompass's cache keys
    if splits is not None and set(splits) != set(default_splits):
        tags += _canonical(splits, known_splits)
    if languages is not None and set(languages) != set(default_languages):
        tags += _canonical(languages, known_languages)
    if not cot:
        tags.append(NO_COT)
    for tag in tags:
        if not tag or _NOT_TAG_RE.search(tag):
            raise ValueError(f"{tag!r} cannot be written in a dataset abbr")
    return "".join(f"-{tag}" for tag in tags)


def dataset_abbr(
    version: str,
    ks: Sequence[int],
    replication: int,
    name: str = "LiveMathBench",
    judge: str | None = None,
    splits: Sequence[str] | None = None,
    languages: Sequence[str] | None = None,
    cot: bool = True,
) -> str:
    """Dataset half of the name; *splits*, *languages* and *cot* add
    :func:`dataset_tags` after the version, *judge* (a served judge model name) adds
    ``-judge-{judge_tag(judge)}``."""
    tags = dataset_tags(version, splits, languages, cot)
    ks_part = "_".join(str(int(k)) for k in ks)
    abbr = f"{name}-v{version}{tags}-k{ks_part}-r{int(replication)}"
    return abbr + (f"-judge-{judge_tag(judge)}" if judge else "")


def config_stem(model_part: str, dataset_part: str) -> str:
    return f"{model_part}@{dataset_part}"


@dataclass(frozen=True)
class ModelSetting:
    model: str
    temperature: float
    top_p: float
    top_k: int
    repetition_penalty: float
    seed: int
    max_out_len: int


@dataclass(frozen=True)
class DatasetSetting:
    name: str
    version: str
    ks: tuple[int, ...]
    replication: int
    judge: str | None = None  # judge tag, None for rule-based checking
    splits: tuple[str, ...] | None = None  # None: the version's default splits
    languages: tuple[str, ...] | None = None  # None: the version's default languages
    cot: bool = True

    @property
    def n(self) -> int:
        """Samples per question (the run spec derives it: replication · max(k))."""
        return int(RunSpec.of_replication(self.ks, self.replication).n or 0)


def parse_model_abbr(abbr: str) -> ModelSetting | None:
    """Inverse of :func:`model_abbr`; None when *abbr* does not follow the convention."""
    match = _MODEL_RE.match(abbr)
    if not match:
        return None
    g = match.groupdict()
    return ModelSetting(
        g["model"],
        parse_value(g["temperature"]),
        parse_value(g["top_p"]),
        int(g["top_k"]),
        parse_value(g["repetition_penalty"]),
        int(g["seed"]),
        int(g["max_out_len"]),
    )


def parse_dataset_abbr(abbr: str) -> DatasetSetting | None:
    match = _DATASET_RE.match(abbr)
    if not match:
        return None
    g = match.groupdict()
    _, known_languages = KNOWN_VERSIONS.get(g["version"], ((), ()))
    tags = [t for t in g["tags"].split("-") if t]
    splits = tuple(t for t in tags if t not in known_languages and t != NO_COT)
    languages = tuple(t for t in tags if t in known_languages)
    return DatasetSetting(
        g["name"],
        g["version"],
        tuple(int(k) for k in g["ks"].split("_")),
        int(g["replication"]),
        g["judge"],
        splits or None,
        languages or None,
        NO_COT not in tags,
    )
