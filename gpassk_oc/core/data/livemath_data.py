"""LiveMathBench data: known versions, path resolution, strict loading, prompts (pure core).

Never imports OpenCompass; :mod:`gpassk_oc.datasets` wraps this in a ``BaseDataset``.

Layouts
-------
* local: ``{root}/{version}/{split}_{lang}.jsonl``, one JSON object per line with at least
  ``question`` and ``answer`` (``question_type`` optional);
* hub: ``datasets.load_dataset(hub_id, f"v{version}_{split}_{lang}", split="test")``.

Every failure is a :class:`LiveMathDataError` whose message is one line naming the file,
the line and the field at fault.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "KNOWN_VERSIONS",
    "COLUMNS",
    "LiveMathDataError",
    "ResolvedPath",
    "build_prompt",
    "load_records",
    "local_copy_hint",
    "probe_hub",
    "read_jsonl",
    "resolve_path",
]

#: version -> (splits, languages) published for that version.
KNOWN_VERSIONS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "202412": (("CNMO", "CCEE", "AMC", "WLPMC", "hard"), ("cn", "en")),
    "202505": (("all", "hard"), ("en",)),
}

#: Columns of every loaded row, in order. ``split``/``language`` are our own columns
#: because OpenCompass's BaseDataset overwrites ``subdivision`` and ``idx``.
COLUMNS = (
    "question_id",
    "split",
    "language",
    "question_type",
    "question",
    "answer",
    "prompt",
    "version",
)

#: OpenCompass maps this hub id to ``./data/LiveMathBench/`` under COMPASS_DATA_CACHE.
_OC_HUB_ID = "opencompass/LiveMathBench"
_OC_LOCAL_ALIAS = os.path.join("data", "LiveMathBench")
_HUB_ID_RE = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")


class LiveMathDataError(ValueError):
    """Bad LiveMathBench input; the message is one line naming file, line and field."""


# --------------------------------------------------------------------------- prompts
_PROMPT_EN = (
    "Solve the following math problem{cot}. Put your final answer in \\boxed{{}}.\n\n{question}"
)
_PROMPT_CN = "请解答下面的数学题{cot}，并把最终答案写在 \\boxed{{}} 中。\n\n{question}"
_COT = {"en": " step by step", "cn": "，请逐步推理"}


def build_prompt(question: str, language: str, cot: bool = True) -> str:
    """Our prompt: English or Chinese, optional step-by-step request, answer in ``\\boxed{}``."""
    template = _PROMPT_CN if language == "cn" else _PROMPT_EN
    return template.format(
        cot=_COT["cn" if language == "cn" else "en"] if cot else "", question=question
    )


# --------------------------------------------------------------------------- validation
def _as_list(value: Any, name: str) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, str) for v in value):
        return list(value)
    raise LiveMathDataError(f"{name} must be a non-empty list of strings, got {value!r}")


def check_selection(
    version: Any, splits: Sequence[str], languages: Sequence[str]
) -> tuple[str, list[str], list[str]]:
    """Validate version/splits/languages against :data:`KNOWN_VERSIONS`."""
    version = str(version)
    if version not in KNOWN_VERSIONS:
        raise LiveMathDataError(
            f"unknown LiveMathBench version {version!r}; known: {sorted(KNOWN_VERSIONS)}"
        )
    known_splits, known_langs = KNOWN_VERSIONS[version]
    splits = _as_list(splits, "dataset_splits")
    languages = _as_list(languages, "dataset_languages")
    for split in splits:
        if split not in known_splits:
            raise LiveMathDataError(
                f"unknown split {split!r} for version {version}; known: {list(known_splits)}"
            )
    for lang in languages:
        if lang not in known_langs:
            raise LiveMathDataError(
                f"unknown language {lang!r} for version {version}; known: {list(known_langs)}"
            )
    return version, splits, languages


# --------------------------------------------------------------------------- paths
@dataclass(frozen=True)
class ResolvedPath:
    """Where the data comes from: a local root directory or a hub dataset id."""

    kind: str  # "local" | "hub"
    location: str


def resolve_path(path: str, cwd: str | None = None, cache_dir: str | None = None) -> ResolvedPath:
    """Resolve *path* to a local root or a hub id.

    Order: an absolute path is used as is; a relative path is looked up against the
    current directory (OpenCompass task subprocesses run in the CLI's cwd), then against
    ``COMPASS_DATA_CACHE``; ``opencompass/LiveMathBench`` also tries OpenCompass's own
    local alias ``data/LiveMathBench`` in both places; otherwise an ``owner/name``
    string is a hub id. Anything else fails, listing the places tried.
    """
    if not isinstance(path, str) or not path.strip():
        raise LiveMathDataError(f"path must be a non-empty string, got {path!r}")
    path = os.path.expanduser(path.strip())
    if os.path.isabs(path):
        return ResolvedPath("local", path)
    cwd = cwd if cwd is not None else os.getcwd()
    cache_dir = cache_dir if cache_dir is not None else os.environ.get("COMPASS_DATA_CACHE", "")
    names = [path] + ([_OC_LOCAL_ALIAS] if path.rstrip("/") == _OC_HUB_ID else [])
    bases = [cwd] + ([cache_dir] if cache_dir else [])
    tried = []
    for name in names:
        for base in bases:
            candidate = os.path.join(base, name)
            tried.append(candidate)
            if os.path.isdir(candidate):
                return ResolvedPath("local", os.path.abspath(candidate))
    if _HUB_ID_RE.match(path):
        return ResolvedPath("hub", path)
    raise LiveMathDataError(
        f"LiveMathBench path {path!r} not found; tried {tried} "
        "(relative paths resolve against the cwd, then COMPASS_DATA_CACHE)"
    )


# --------------------------------------------------------------------------- reading
def _listing(directory: Path) -> str:
    if not directory.is_dir():
        return "(missing)"
    entries = sorted(p.name + ("/" if p.is_dir() else "") for p in directory.iterdir())
    return ", ".join(entries) if entries else "(empty)"


def _check_row(row: Any, where: str) -> dict:
    if not isinstance(row, dict):
        raise LiveMathDataError(f"{where}: expected a JSON object, got {type(row).__name__}")
    for name in ("question", "answer"):
        if name not in row or row[name] is None:
            raise LiveMathDataError(f"{where}: missing field {name!r}")
        value = row[name]
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise LiveMathDataError(
                f"{where}: field {name!r} must be a string or number, got {type(value).__name__}"
            )
        if not str(value).strip():
            raise LiveMathDataError(f"{where}: field {name!r} is empty")
    qtype = row.get("question_type", "")
    if qtype is None:
        qtype = ""
    if not isinstance(qtype, str):
        raise LiveMathDataError(f"{where}: field 'question_type' must be a string")
    return {"question": str(row["question"]), "answer": str(row["answer"]), "question_type": qtype}


def read_jsonl(file: Path) -> list[dict]:
    """Rows of a JSONL file, validated; blank lines are skipped. A file that is not UTF-8
    is named with its line; a file without any row is an error (a split that silently
    loads nothing would shrink the benchmark without a word)."""
    rows = []
    with open(file, "rb") as handle:
        for lineno, raw in enumerate(handle, start=1):
            where = f"{file}:{lineno}"
            try:  # a UTF-8 byte-order mark on the first line is tolerated
                line = raw.decode("utf-8-sig" if lineno == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                raise LiveMathDataError(
                    f"{where}: not UTF-8 (byte 0x{raw[exc.start]:02x} at column "
                    f"{exc.start + 1}); save the file as UTF-8"
                ) from None
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise LiveMathDataError(
                    f"{where}: malformed JSON ({exc.msg}, column {exc.colno})"
                ) from None
            rows.append(_check_row(row, where))
    if not rows:
        raise LiveMathDataError(
            f"{file}: no questions (the file is empty); restore it, or drop its split / "
            "language from dataset_splits / dataset_languages"
        )
    return rows


def _read_local(root: str, version: str, split: str, lang: str) -> list[dict]:
    root_dir = Path(root)
    if not root_dir.is_dir():
        raise LiveMathDataError(
            f"LiveMathBench directory {root_dir} does not exist; "
            f"{root_dir.parent} holds: {_listing(root_dir.parent)}"
        )
    version_dir = root_dir / version
    if not version_dir.is_dir():
        raise LiveMathDataError(
            f"no version directory {version_dir}; {root_dir} holds: {_listing(root_dir)}"
        )
    file = version_dir / f"{split}_{lang}.jsonl"
    if not file.is_file():
        raise LiveMathDataError(
            f"missing data file {file}; {version_dir} holds: {_listing(version_dir)}"
        )
    return read_jsonl(file)


def local_copy_hint(version: str) -> str:
    """How to fix a hub failure: the local layout and where to point at it."""
    return (
        f"use a local copy instead: lay it out as DIR/{version}/{{split}}_{{lang}}.jsonl "
        "and set the dataset's path (data_path in templates) to DIR"
    )


def _offline() -> bool:
    return any(
        os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")
        for name in ("HF_DATASETS_OFFLINE", "HF_HUB_OFFLINE")
    )


def probe_hub(hub_id: str, version: str, timeout: float = 10.0) -> None:
    """One quick request to the hub (``$HF_ENDPOINT``, default huggingface.co) before
    ``datasets`` starts its retries: an unreachable hub or a gated dataset without access
    fails at once with one line naming the local-path fix. Skipped in offline mode (then
    ``datasets`` reads its cache without network)."""
    if _offline():
        return
    import urllib.error
    import urllib.request

    endpoint = os.environ.get("HF_ENDPOINT", "https://huggingface.co").rstrip("/")
    request = urllib.request.Request(f"{endpoint}/api/datasets/{hub_id}", method="HEAD")
    token = os.environ.get("HF_TOKEN")
    if not token:
        try:
            from huggingface_hub import get_token

            token = get_token()
        except Exception:  # no huggingface_hub or no token: ask anonymously
            token = None
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        urllib.request.urlopen(request, timeout=timeout).close()
    except urllib.error.HTTPError as exc:
        if exc.code in (401, 403):
            raise LiveMathDataError(
                f"hub dataset {hub_id!r} is gated and this machine has no access (HTTP "
                f"{exc.code}): request access and set HF_TOKEN, or "
                f"{local_copy_hint(version)}"
            ) from None
        if exc.code == 404:
            raise LiveMathDataError(
                f"hub dataset {hub_id!r} not found at {endpoint} "
                f"(HTTP 404); {local_copy_hint(version)}"
            ) from None
    except (OSError, ValueError) as exc:  # DNS, refused, timeout, proxy
        reason = getattr(exc, "reason", exc)
        raise LiveMathDataError(
            f"hub dataset {hub_id!r} unreachable at {endpoint} ({reason}); "
            f"{local_copy_hint(version)} (or set HF_DATASETS_OFFLINE=1 to read a cached "
            "download)"
        ) from None


def _read_hub(
    hub_id: str,
    version: str,
    split: str,
    lang: str,
    loader: Callable[..., Iterable[dict]] | None = None,
) -> list[dict]:
    config = f"v{version}_{split}_{lang}"
    if loader is None:
        import datasets  # honours HF_DATASETS_OFFLINE / the local cache by itself

        loader = datasets.load_dataset
    try:
        data = loader(hub_id, config, split="test")
    except Exception as exc:  # network, gating, missing cache: say which config and why
        raise LiveMathDataError(
            f"could not load hub dataset {hub_id!r} config {config!r}: "
            f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}; "
            f"{local_copy_hint(version)}"
        ) from exc
    return [_check_row(dict(row), f"{hub_id}[{config}] row {i}") for i, row in enumerate(data)]


def load_records(
    path: str,
    dataset_splits: Sequence[str],
    dataset_languages: Sequence[str],
    cot: bool = True,
    version: str = "202412",
    hub_loader: Callable[..., Iterable[dict]] | None = None,
) -> list[dict]:
    """All rows for split × language (splits outer, languages inner), with our columns.

    ``question_id`` is ``f"{split}_{lang}_{i}"`` with i the 0-based row index in its
    file (blank lines not counted), so it survives OpenCompass's replication.
    """
    version, splits, languages = check_selection(version, dataset_splits, dataset_languages)
    source = resolve_path(path)
    if source.kind == "hub" and hub_loader is None:
        probe_hub(source.location, version)
    records = []
    for split in splits:
        for lang in languages:
            if source.kind == "local":
                rows = _read_local(source.location, version, split, lang)
            else:
                rows = _read_hub(source.location, version, split, lang, hub_loader)
            for i, row in enumerate(rows):
                records.append(
                    {
                        "question_id": f"{split}_{lang}_{i}",
                        "split": split,
                        "language": lang,
                        "question_type": row["question_type"],
                        "question": row["question"],
                        "answer": row["answer"],
                        "prompt": build_prompt(row["question"], lang, bool(cot)),
                        "version": version,
                    }
                )
    if not records:
        raise LiveMathDataError(
            f"no LiveMathBench rows for version {version}, splits "
            f"{splits}, languages {languages} under {source.location}"
        )
    return records
