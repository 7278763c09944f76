"""``gpassk-oc serve-demo``: the demo's simulated endpoint alone, in the foreground.

It serves the two simulated models of ``opencompass_config_templates/demo.py`` on
127.0.0.1 (port 18000 by default, the template's ``openai_api_base``) and writes the
demo's sample data where that template's ``data_path`` points (``gpassk_demo_output/data``,
relative to the current directory), so the config-generator example runs as printed::

    gpassk-oc serve-demo &                       # prints its URL; Ctrl-C / SIGTERM stops it
    export OPENAI_API_KEY=gpassk-demo            # any value: the endpoint ignores it
    gpassk-oc dump -tc demo.py --output-dir configs/demo --grid
    opencompass configs/demo/grid_demo.py -w outputs

Data files follow :mod:`gpassk_oc.ownership` (a same-named file gpassk-oc did not write is
refused, exit 2); the default data folder's parent becomes a demo folder (its marker), so a
later ``gpassk-oc demo`` may reuse it.
"""

from __future__ import annotations

import argparse
import signal
import threading
from pathlib import Path

from gpassk_oc.argtypes import path_arg, port_number, seed_number, token_count_arg
from gpassk_oc.log import fail, logger
from gpassk_oc.ownership import Refused

DEFAULT_PORT = 18000
DEFAULT_DATA = Path("gpassk_demo_output") / "data"


def served_temperatures(template_temperatures: list[float]) -> list[float]:
    """The template's temperatures plus 0.0, 0.1, …, 2.0, so an edited template still gets
    answers (the responder refuses a temperature it was not told about)."""
    return sorted({float(t) for t in template_temperatures} | {round(i / 10, 1) for i in range(21)})


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--port",
        type=port_number,
        default=DEFAULT_PORT,
        help=f"port on 127.0.0.1, 1-65535 or 0 for a free one (default {DEFAULT_PORT}, the "
        "one demo.py names)",
    )
    parser.add_argument(
        "--data-dir",
        type=path_arg,
        default=DEFAULT_DATA,
        metavar="DIR",
        help=f"where the sample data is written (default ./{DEFAULT_DATA}, demo.py's data_path)",
    )
    parser.add_argument(
        "--seed", type=seed_number, default=0, help="seed of the simulated answers (default 0)"
    )
    parser.add_argument(
        "--pad-replies",
        type=token_count_arg,
        default=0,
        metavar="TOKENS",
        help="write TOKENS more tokens of working before every answer (default 0), so that a "
        "request's max_tokens below a reply's length cuts it (finish_reason \"length\")",
    )


def _stop_on_sigterm(stop: threading.Event) -> None:
    signal.signal(signal.SIGTERM, lambda *_: stop.set())


def run(args: argparse.Namespace) -> int:
    """Serve until SIGINT/SIGTERM; 0 after a clean stop, 2 on a bad flag or a port/file
    that cannot be used (one ``error:`` line)."""
    from gpassk_oc import configgen
    from gpassk_oc.demo import problems
    from gpassk_oc.demo.leaderboard import DemoError
    from gpassk_oc.demo.run import DEFAULT_OUTPUT, claim_output
    from gpassk_oc.demo.sim_endpoint import PaddedResponder, SimEndpoint
    from gpassk_oc.demo.simulation import MODELS, TemperatureResponder

    template = configgen.resolve_template("demo.py", cwd=Path(configgen.__file__).parent)
    temperatures = served_temperatures(configgen.load_template(template).temperatures)
    try:  # the port first: a taken port must not leave data files behind
        responder = PaddedResponder(
            TemperatureResponder(temperatures, seed=args.seed), args.pad_replies
        )
        endpoint = SimEndpoint(responder, port=args.port, models=list(MODELS)).start()
    except OSError as exc:
        return fail(f"--port {args.port}: cannot listen on 127.0.0.1:{args.port} ({exc.strerror})")
    data_dir: Path = args.data_dir
    try:
        if data_dir == DEFAULT_DATA:  # the demo's own folder layout: claim it as the demo does
            claim_output(Path(DEFAULT_OUTPUT).resolve())
        problems.write_dataset(data_dir)
    except (Refused, DemoError, OSError) as exc:
        endpoint.stop()
        if isinstance(exc, Refused):
            for line in exc.lines[:-1]:
                logger.error(line)
            return fail(exc.lines[-1])
        if isinstance(exc, DemoError):
            return fail(str(exc))
        return fail(f"--data-dir {data_dir}: {exc.strerror or exc}")
    stop = threading.Event()
    _stop_on_sigterm(stop)
    print(f"serving the simulated models {', '.join(MODELS)} at {endpoint.url}", flush=True)
    print(f"sample data in {data_dir}; Ctrl-C or SIGTERM stops the endpoint", flush=True)
    try:
        while not stop.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        endpoint.stop()
    print(f"stopped after {endpoint.num_requests} requests", flush=True)
    return 0
