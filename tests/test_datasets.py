"""LiveMathBench loading (local layout, hub branch, errors) and the ready configs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import E2E_QUESTIONS, write_layout

from gpassk_oc.core.data import livemath_data
from gpassk_oc.core.data.livemath_data import LiveMathDataError, build_prompt, load_records
from gpassk_oc.core.data.naming import dataset_abbr, parse_dataset_abbr
from gpassk_oc.datasets import LiveMathBenchDataset

READER = dict(input_columns=["prompt"], output_column="answer")


def load(path, **kw):
    args = dict(dataset_splits=["AMC", "CCEE"], dataset_languages=["en", "cn"])
    args.update(kw)
    return load_records(str(path), **args)


# --------------------------------------------------------------------------- local layout
def test_local_layout_rows_columns_and_order(livemath_dir):
    rows = load(livemath_dir)
    expected = [(s, l, q, g) for s, l, q, g, *_ in E2E_QUESTIONS]
    assert [(r["split"], r["language"], r["question"], r["answer"]) for r in rows] == expected
    assert rows[0]["question_id"] == "AMC_en_0" and rows[2]["question_id"] == "AMC_en_2"
    assert rows[3]["question_id"] == "AMC_cn_0"
    assert {r["question_type"] for r in rows} == {"问答", "problem-solving"}
    assert set(rows[0]) == set(livemath_data.COLUMNS)
    assert rows[1]["answer"] == r"\frac{1}{2}"


def test_prompt_language_cot_and_box(livemath_dir):
    en = build_prompt("Compute 7 + 5.", "en", cot=True)
    assert "step by step" in en and "\\boxed{}" in en and en.endswith("Compute 7 + 5.")
    assert "step by step" not in build_prompt("Q", "en", cot=False)
    cn = build_prompt("计算", "cn", cot=True)
    assert (
        "逐步推理" in cn
        and "\\boxed{}" in cn
        and "逐步推理" not in build_prompt("计算", "cn", False)
    )
    rows = load(livemath_dir, cot=False)
    assert all(r["question"] in r["prompt"] and "\\boxed{}" in r["prompt"] for r in rows)


def test_base_dataset_replicates_contiguously_and_keeps_our_columns(livemath_dir):
    """Checks the layout the evaluator relies on against OpenCompass's real BaseDataset."""
    ds = LiveMathBenchDataset(
        path=str(livemath_dir),
        dataset_splits=["AMC", "CCEE"],
        dataset_languages=["en", "cn"],
        k=[2, 3],
        n=3,
        abbr="LiveMathBench-v202412-k2_3-r1",
        reader_cfg=READER,
    )
    test = ds.test
    q = len(E2E_QUESTIONS)
    assert len(test) == 3 * q
    ids = test["question_id"]
    assert ids[:q] == ids[q : 2 * q] == ids[2 * q :]  # replica r of question i is row r*q + i
    assert set(test["subdivision"]) == {"LiveMathBench-v202412-k2_3-r1"}  # overwritten
    assert test["idx"][:q] == list(range(q))
    assert test["split"][:q] == [s for s, *_ in E2E_QUESTIONS]
    assert test["language"][:q] == [l for _, l, *_ in E2E_QUESTIONS]


def test_registered_under_distinct_name_without_replacing_opencompass():
    from opencompass.registry import LOAD_DATASET

    assert LOAD_DATASET.get("GPassKLiveMathBenchDataset") is LiveMathBenchDataset
    theirs = LOAD_DATASET.get("LiveMathBenchDataset")
    assert theirs is not LiveMathBenchDataset and theirs.__module__.startswith("opencompass.")


# --------------------------------------------------------------------------- errors
def _one_line(exc: pytest.ExceptionInfo) -> str:
    message = str(exc.value)
    assert "\n" not in message
    return message


def test_missing_version_directory_lists_what_exists(tmp_path):
    (tmp_path / "202505").mkdir()
    with pytest.raises(LiveMathDataError) as exc:
        load(tmp_path)
    message = _one_line(exc)
    assert "202412" in message and "202505/" in message


def test_missing_file_lists_directory(livemath_dir):
    with pytest.raises(LiveMathDataError) as exc:
        load(livemath_dir, dataset_splits=["CNMO"])
    message = _one_line(exc)
    assert "CNMO_en.jsonl" in message and "AMC_en.jsonl" in message


def test_missing_root_names_parent_listing(tmp_path):
    with pytest.raises(LiveMathDataError) as exc:
        load(tmp_path / "nope")
    assert "nope" in _one_line(exc)


def test_malformed_json_names_file_and_line(livemath_dir):
    file = livemath_dir / "202412" / "AMC_en.jsonl"
    lines = file.read_text().splitlines()
    lines.insert(1, "")  # blank lines are skipped but still counted in line numbers
    lines.insert(2, '{"question": "broken", ')
    file.write_text("\n".join(lines) + "\n")
    with pytest.raises(LiveMathDataError) as exc:
        load(livemath_dir)
    message = _one_line(exc)
    assert f"{file}:3:" in message and "malformed JSON" in message


@pytest.mark.parametrize("missing", ["question", "answer"])
def test_missing_field_names_file_line_and_field(livemath_dir, missing):
    file = livemath_dir / "202412" / "CCEE_cn.jsonl"
    record = {"question": "q", "answer": "1"}
    del record[missing]
    file.write_text(file.read_text() + json.dumps(record) + "\n")
    with pytest.raises(LiveMathDataError) as exc:
        load(livemath_dir)
    message = _one_line(exc)
    assert f"{file}:3:" in message and repr(missing) in message


@pytest.mark.parametrize(
    "kwargs, needle",
    [
        (dict(version="202301"), "unknown LiveMathBench version"),
        (dict(dataset_splits=["IMO"]), "unknown split 'IMO'"),
        (dict(dataset_languages=["fr"]), "unknown language 'fr'"),
        (
            dict(version="202505", dataset_splits=["all"], dataset_languages=["cn"]),
            "unknown language 'cn'",
        ),
        (
            dict(version="202505", dataset_splits=["AMC"], dataset_languages=["en"]),
            "unknown split 'AMC'",
        ),
    ],
)
def test_unknown_selection(livemath_dir, kwargs, needle):
    with pytest.raises(LiveMathDataError, match=needle):
        load(livemath_dir, **kwargs)


def test_n_smaller_than_max_k_fails_before_loading(tmp_path):
    with pytest.raises(LiveMathDataError, match=r"n: max\(k\) = 8 exceeds n = 4"):
        LiveMathBenchDataset(
            path=str(tmp_path / "does-not-exist"), k=[4, 8], n=4, abbr="x", reader_cfg=READER
        )


# --------------------------------------------------------------------------- paths
def test_relative_path_resolves_against_cwd(livemath_dir, monkeypatch):
    monkeypatch.delenv("COMPASS_DATA_CACHE", raising=False)
    monkeypatch.chdir(livemath_dir.parent)
    assert len(load("LiveMathBench")) == len(E2E_QUESTIONS)


def test_relative_path_resolves_against_compass_data_cache(livemath_dir, tmp_path, monkeypatch):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    monkeypatch.setenv("COMPASS_DATA_CACHE", str(livemath_dir.parent))
    assert len(load("LiveMathBench")) == len(E2E_QUESTIONS)


def test_opencompass_hub_id_prefers_local_alias(tmp_path, monkeypatch):
    write_layout(tmp_path / "cache" / "data" / "LiveMathBench", E2E_QUESTIONS)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COMPASS_DATA_CACHE", str(tmp_path / "cache"))
    resolved = livemath_data.resolve_path("opencompass/LiveMathBench")
    assert resolved.kind == "local"
    assert Path(resolved.location) == tmp_path / "cache" / "data" / "LiveMathBench"


def test_unresolvable_relative_path_lists_places_tried(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("COMPASS_DATA_CACHE", raising=False)
    with pytest.raises(LiveMathDataError, match="tried"):
        livemath_data.resolve_path("./nowhere")


# --------------------------------------------------------------------------- hub branch
def test_hub_id_loads_configs_through_datasets(tmp_path, monkeypatch):
    """The hub dataset is gated and never fetched: record the calls instead."""
    import datasets

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("COMPASS_DATA_CACHE", raising=False)
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")  # offline: no probe, datasets' cache
    calls = []

    def fake_load_dataset(path, name=None, split=None, **kwargs):
        calls.append((path, name, split))
        return [{"question": f"Q {name}", "answer": "1", "question_type": "填空"}]

    monkeypatch.setattr(datasets, "load_dataset", fake_load_dataset)
    rows = load_records(
        "opencompass/LiveMathBench", ["AMC", "hard"], ["cn", "en"], version="202412"
    )
    assert calls == [
        ("opencompass/LiveMathBench", f"v202412_{s}_{l}", "test")
        for s in ("AMC", "hard")
        for l in ("cn", "en")
    ]
    assert [r["question_id"] for r in rows] == ["AMC_cn_0", "AMC_en_0", "hard_cn_0", "hard_en_0"]


def test_hub_failure_is_one_clear_line(tmp_path, monkeypatch):
    import datasets

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("COMPASS_DATA_CACHE", raising=False)

    def offline(*args, **kwargs):
        raise ConnectionError("Couldn't reach 'opencompass/LiveMathBench' on the Hub\n(offline)")

    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setattr(datasets, "load_dataset", offline)
    with pytest.raises(LiveMathDataError) as exc:
        load_records("opencompass/LiveMathBench", ["all"], ["en"], version="202505")
    message = _one_line(exc)
    assert "v202505_all_en" in message and "ConnectionError" in message
    assert message.endswith(
        "use a local copy instead: lay it out as "
        "DIR/202505/{split}_{lang}.jsonl and set the dataset's path "
        "(data_path in templates) to DIR"
    )


def _closed_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]  # closed again when the block ends


def test_unreachable_hub_fails_fast_before_datasets_retries(tmp_path, monkeypatch):
    """Online mode, hub unreachable: one line naming the local-path fix, and
    datasets.load_dataset (which would retry) is never called."""
    import datasets

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("COMPASS_DATA_CACHE", raising=False)
    for name in ("HF_DATASETS_OFFLINE", "HF_HUB_OFFLINE"):
        monkeypatch.delenv(name, raising=False)
    port = _closed_port()
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    monkeypatch.setattr(datasets, "load_dataset", lambda *a, **k: pytest.fail("retried"))
    with pytest.raises(LiveMathDataError) as exc:
        load_records("opencompass/LiveMathBench", ["AMC"], ["en"], version="202412")
    message = _one_line(exc)
    assert message.startswith(
        f"hub dataset 'opencompass/LiveMathBench' unreachable at http://127.0.0.1:{port} ("
    )
    assert message.endswith(
        "); use a local copy instead: lay it out as "
        "DIR/202412/{split}_{lang}.jsonl and set the dataset's path "
        "(data_path in templates) to DIR (or set HF_DATASETS_OFFLINE=1 "
        "to read a cached download)"
    )


def test_gated_hub_without_access_says_so(tmp_path, monkeypatch):
    import http.server
    import threading

    class Gated(http.server.BaseHTTPRequestHandler):
        def do_HEAD(self):
            self.send_response(401)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Gated)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("COMPASS_DATA_CACHE", raising=False)
    for name in ("HF_DATASETS_OFFLINE", "HF_HUB_OFFLINE", "HF_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{server.server_port}")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    try:
        with pytest.raises(LiveMathDataError) as exc:
            load_records("opencompass/LiveMathBench", ["AMC"], ["en"], version="202412")
    finally:
        server.shutdown()
    assert _one_line(exc) == (
        "hub dataset 'opencompass/LiveMathBench' is gated and this machine has no access "
        "(HTTP 401): request access and set HF_TOKEN, or use a local copy instead: lay it "
        "out as DIR/202412/{split}_{lang}.jsonl and set the dataset's path (data_path in "
        "templates) to DIR"
    )


# --------------------------------------------------------------------------- configs
CONFIGS = {
    "livemathbench_gen": ("LiveMathBench", "202412", [4, 8, 16], 48),
    "livemathbench_greedy_gen": ("LiveMathBench", "202412", [1], 1),
    "livemathbench_hard_gen": ("LiveMathBench-Hard", "202505", [4, 8, 16], 48),
}


def test_configs_load_through_read_base(tmp_path):
    from mmengine.config import Config

    from gpassk_oc.evaluators import GPassKEvaluator

    imports = "\n".join(
        f"    from gpassk_oc.configs.{name} import livemathbench_datasets as {name}"
        for name in CONFIGS
    )
    user = tmp_path / "user_cfg.py"
    user.write_text(
        "from mmengine.config import read_base\n\nwith read_base():\n"
        f"{imports}\n\ndatasets = {' + '.join(CONFIGS)}\n"
    )
    cfg = Config.fromfile(str(user))
    assert len(cfg.datasets) == len(CONFIGS)
    for entry, (name, (base, version, ks, n)) in zip(cfg.datasets, CONFIGS.items()):
        assert entry["type"] is LiveMathBenchDataset
        assert entry["eval_cfg"]["evaluator"]["type"] is GPassKEvaluator
        k = entry["k"] if isinstance(entry["k"], list) else [entry["k"]]
        assert (k, entry["n"], entry["version"]) == (ks, n, version), name
        replication = n // max(ks)
        assert entry["abbr"] == dataset_abbr(version, ks, replication, name=base)
        parsed = parse_dataset_abbr(entry["abbr"])
        assert parsed is not None and parsed.n == n
        assert entry["reader_cfg"] == READER
    # what the task subprocesses receive: dotted strings they can import
    dumped = tmp_path / "dumped.py"
    cfg.dump(str(dumped))
    text = dumped.read_text()
    assert "type='gpassk_oc.datasets.LiveMathBenchDataset'" in text
    assert "type='gpassk_oc.evaluators.GPassKEvaluator'" in text


def test_config_split_selection_is_valid():
    import importlib

    for name, (_base, version, _ks, _n) in CONFIGS.items():
        # the configs are one builder call each: import them and check what they select
        entry = importlib.import_module(f"gpassk_oc.configs.{name}").livemathbench_dataset
        livemath_data.check_selection(version, entry["dataset_splits"], entry["dataset_languages"])


def test_core_modules_never_import_opencompass():
    import subprocess
    import sys

    code = (
        "import sys; import gpassk_oc.core.data.livemath_data, gpassk_oc.core.runs.run_scoring, "
        "gpassk_oc.demo.sim_endpoint; "
        "print([m for m in sys.modules if m.split('.')[0] == 'opencompass'])"
    )
    root = Path(__file__).resolve().parents[1]
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "[]"
