"""GPassK-style templates, rewritten onto this plugin.

The upstream GPassK templates ``read_base()`` OpenCompass's
``livemathbench_gen``, build a list of ``TurboMindModelwithChatTemplate`` (or
``OpenAISDK``) models, ``update()`` the dataset, and set the evaluator's ``model_name`` /
``url``. Run as they are on OpenCompass 0.5.4 they crash (OpenCompass's
``LiveMathBenchEvaluator`` raises IndexError on the ``subdivision`` that ``BaseDataset``
overwrites), send one fixed ``random_seed`` (identical samples), and get names outside the
documented convention. So the template is read with mmengine, as OpenCompass would, and
its grid variables and the values it put into ``models``/``datasets`` are turned into grid
variables of :mod:`.schema`; the normal expansion then writes our dataset and evaluator
with convention names. :data:`REWRITE_NOTES` go into every file header.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gpassk_oc.configgen.checks import exited
from gpassk_oc.configgen.schema import KNOWN_VARIABLES, TemplateError

__all__ = ["REWRITE_NOTES", "grid_variables"]

REWRITE_NOTES = (
    "Rewritten from a GPassK-style template (models/datasets built by the template):",
    "- dataset and evaluator: gpassk_oc's LiveMathBenchDataset + GPassKEvaluator, because",
    "  OpenCompass 0.5.4's LiveMathBenchEvaluator crashes (IndexError on the subdivision",
    "  that BaseDataset overwrites); judge model_name/url became judge=dict(urls, model)",
    "  with OpenCompass's LiveMathBench judge prompt (prompt='opencompass'), as upstream;",
    "- names: the documented convention (model abbr @ dataset abbr, '.' written '-');",
    "- random_seed: recorded in the name, not sent (one fixed seed repeats every sample).",
)

_DATASET_KEYS = ("dataset_splits", "dataset_languages", "cot", "version", "k", "n")
_OPENAI_BASE = "https://api.openai.com/v1/"


def _load(path: Path) -> dict[str, Any]:
    try:
        from mmengine.config import Config
    except ImportError as exc:  # pragma: no cover - mmengine comes with opencompass
        raise TemplateError(f"GPassK-style templates need mmengine: {exc}") from None
    try:
        return Config.fromfile(str(path), format_python_code=False).to_dict()
    except SyntaxError as exc:
        raise TemplateError(f"line {exc.lineno}: {exc.msg}") from None
    except SystemExit as exc:
        raise exited(exc.code) from None
    except Exception as exc:
        raise TemplateError(f"{type(exc).__name__}: {exc}".splitlines()[0]) from None


def _type_name(value: Any) -> str:
    return value.rsplit(".", 1)[-1] if isinstance(value, str) else getattr(value, "__name__", "")


def _model_entry(i: int, model: Mapping[str, Any], notes: list[str]) -> tuple[str, Any]:
    """('llm_infos' | 'api_models', entry) for one upstream model dict."""
    field = f"models[{i}]"
    kind = _type_name(model.get("type"))
    path = model.get("path")
    if not isinstance(path, str) or not path:
        raise TemplateError("needs a string 'path'", field)
    if kind.startswith("TurboMind"):
        tp = (
            (model.get("engine_config") or {}).get("tp")
            or (model.get("run_cfg") or {}).get("num_gpus")
            or 1
        )
        return "llm_infos", (path, tp, model.get("batch_size", 1))
    if kind in ("OpenAISDK", "OpenAI", "OpenAICompatible"):
        entry: dict[str, Any] = dict(path=path)
        abbr = model.get("abbr")
        if isinstance(abbr, str) and "_t" in abbr:  # upstream abbrs append _t{T}_l{L}
            entry["abbr"] = abbr.split("_t", 1)[0]
        base = model.get("openai_api_base") or _OPENAI_BASE
        entry["openai_api_base"] = base
        for key in ("batch_size", "query_per_second", "retry"):
            if key in model:
                entry[key] = model[key]
        if "key" in model:
            notes.append(f"{field}: key dropped (files never carry keys; export OPENAI_API_KEY)")
        if "tokenizer_path" in model:
            notes.append(f"{field}: tokenizer_path dropped (offline-safe token counts)")
        return "api_models", entry
    raise TemplateError(
        f"model type {kind or model.get('type')!r} is not supported in "
        "GPassK-style templates (TurboMind or OpenAISDK); use a grid "
        "template",
        field,
    )


def _temperature(model: Mapping[str, Any]) -> float | None:
    gen = model.get("gen_config") or {}
    return gen.get("temperature", model.get("temperature"))


def grid_variables(path: Path, notes: list[str]) -> dict[str, Any]:
    """The grid variables equivalent to a GPassK-style template; one-line notes about
    what was dropped are appended to *notes*."""
    cfg = _load(path)
    datasets = cfg.get("datasets")
    if not isinstance(datasets, list) or len(datasets) != 1 or not isinstance(datasets[0], Mapping):
        raise TemplateError(
            "GPassK-style templates must define exactly one LiveMathBench dataset", "datasets"
        )
    dataset = datasets[0]
    if "LiveMathBench" not in _type_name(dataset.get("type")):
        raise TemplateError(
            f"dataset type {dataset.get('type')!r} is not LiveMathBench", "datasets[0]"
        )
    # the template's own grid variables (k, n, temperatures, top_p, ...) win
    out: dict[str, Any] = {
        name: cfg[name]
        for name in KNOWN_VARIABLES
        if name in cfg and name not in ("llm_infos", "api_models")
    }
    for key in _DATASET_KEYS:  # what livemathbench_dataset.update(...) set
        if (
            key in dataset
            and key not in out
            and not (key == "k" and "ks" in out)
            and not (key == "n" and "replications" in out)
        ):
            out[key] = dataset[key]
    if dataset.get("path") and "data_path" not in out:  # upstream leaves path=''
        out["data_path"] = dataset["path"]
    evaluator = (dataset.get("eval_cfg") or {}).get("evaluator") or {}
    if "eval_urls" not in out and evaluator.get("url") is not None:
        urls = evaluator["url"]
        out["eval_urls"] = [urls] if isinstance(urls, str) else list(urls)
    if "eval_model_name" not in out and evaluator.get("model_name"):
        out["eval_model_name"] = evaluator["model_name"]
    out.setdefault("eval_prompt", "opencompass")  # the prompt upstream's evaluator sends
    models = cfg.get("models")
    if not isinstance(models, list) or not models:
        raise TemplateError("must be a non-empty list", "models")
    if "llm_infos" in cfg:
        out["llm_infos"] = cfg["llm_infos"]
    else:
        for i, model in enumerate(models):
            if not isinstance(model, Mapping):
                raise TemplateError("must be a dict", f"models[{i}]")
            name, entry = _model_entry(i, model, notes)
            bucket = out.setdefault(name, [])
            if entry not in bucket:  # upstream repeats each model once per temperature
                bucket.append(entry)
    if not any(name in out for name in ("temperatures", "temperature")):
        temps = [
            t for t in (_temperature(m) for m in models if isinstance(m, Mapping)) if t is not None
        ]
        out["temperatures"] = list(dict.fromkeys(temps)) or [1.0]
    if "replications" not in out and "n" not in out and "replication" not in out:
        raise TemplateError("set n (or replications) in the template", "n")
    return out
