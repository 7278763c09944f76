"""`gpassk-oc serve-demo` as a user runs it: a real subprocess, real HTTP requests, SIGTERM.

The expected answers come from the data file the command wrote (read here as plain
JSONL), not from the simulation module: a steady-model question with p = 0.97 must get
its gold answer in a \\boxed{} most of the time, and the endpoint must be gone after the
signal."""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

from conftest import offline_env, start_serve_demo

ROOT = Path(__file__).resolve().parents[1]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _post(url: str, body: dict) -> dict:
    request = urllib.request.Request(
        url, json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # 127.0.0.1 direct
    with opener.open(request, timeout=30) as response:
        return json.load(response)


def test_serve_demo_serves_the_demo_models_until_sigterm(tmp_path):
    port = _free_port()
    proc = start_serve_demo(tmp_path, port)
    try:
        first = proc.stdout.readline()
        url = f"http://127.0.0.1:{port}/v1/"
        assert url in first, (first, proc.stderr.read() if proc.poll() is not None else "")
        data = tmp_path / "gpassk_demo_output" / "data" / "202412" / "AMC_en.jsonl"
        row = json.loads(data.read_text(encoding="utf-8").splitlines()[0])
        boxed = 0
        for _ in range(20):
            reply = _post(
                url + "chat/completions",
                {
                    "model": "gpassk-demo-steady",
                    "temperature": 0.5,
                    "messages": [{"role": "user", "content": row["question"]}],
                },
            )
            found = re.search(r"\\boxed\{([^}]*)\}", reply["choices"][0]["message"]["content"])
            boxed += found is not None and found.group(1) == row["answer"]
        # p = 0.97 at T=0 for the first questions, pulled toward 0.5 by temperature: the
        # gold answer must still dominate (P(<= 10 of 20) is negligible for p >= 0.8)
        assert boxed > 10, boxed
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0 and "stopped after" in out, (out, err)
    assert "Traceback" not in err
    with socket.socket() as sock:
        sock.settimeout(1)
        assert sock.connect_ex(("127.0.0.1", port)) != 0  # nothing left listening
    assert (tmp_path / "gpassk_demo_output" / ".gpassk-oc-demo").is_file()


def test_serve_demo_refuses_a_taken_port_in_one_line(tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        proc = subprocess.run(
            [sys.executable, "-m", "gpassk_oc.cli", "serve-demo", "--port", str(port)],
            cwd=tmp_path,
            env=offline_env(),
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith(f"error: --port {port}: cannot listen on 127.0.0.1:{port}")
    assert len(proc.stderr.splitlines()) == 1
    assert not any(tmp_path.iterdir())  # nothing written


def test_serve_demo_pads_replies_so_max_tokens_cuts_them(tmp_path):
    """``--pad-replies 40``: every reply has 40 tokens of working before its answer, so a
    request for 4 choices of at most 25 tokens gets 4 cut ones (``length``, 25 tokens each
    by ``str.split()``), and with room for the whole reply 4 whole ones (``stop``)."""
    port = _free_port()
    proc = start_serve_demo(tmp_path, port, "--pad-replies", "40")
    try:
        url = f"http://127.0.0.1:{port}/v1/"
        assert url in proc.stdout.readline()
        data = tmp_path / "gpassk_demo_output" / "data" / "202412" / "CCEE_en.jsonl"
        question = json.loads(data.read_text(encoding="utf-8").splitlines()[0])["question"]
        ask = {
            "model": "gpassk-demo-shaky",
            "temperature": 1.0,
            "n": 4,
            "messages": [{"role": "user", "content": question}],
        }
        cut = _post(url + "chat/completions", {**ask, "max_tokens": 25})
        whole = _post(url + "chat/completions", {**ask, "max_tokens": 1000})
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=30)
    texts = [c["message"]["content"] for c in cut["choices"]]
    assert [c["finish_reason"] for c in cut["choices"]] == ["length"] * 4
    assert [len(t.split()) for t in texts] == [25] * 4
    assert cut["usage"]["completion_tokens"] == 100
    assert cut["usage"]["prompt_tokens"] == len(question.split())
    assert [c["finish_reason"] for c in whole["choices"]] == ["stop"] * 4
    for choice in whole["choices"]:
        text = choice["message"]["content"]
        assert len(text.split()) > 40 and text.split()[:25] == texts[0].split()
