#!/usr/bin/env python
"""Expand a grid template into OpenCompass configs (same as ``gpassk-oc dump``).

python dump_opencompass_configs.py --config_template_file nono1.py
"""

import os
import shlex
import sys


def _install_hint(missing: str) -> str:
    """One line: what is missing and the command that installs it (this checkout, editable)."""
    root = os.path.dirname(os.path.abspath(__file__))
    command = f"{shlex.quote(sys.executable)} -m pip install -e {shlex.quote(root)}"
    return f"error: {missing} is not installed (gpassk_oc needs it); install with: {command}\n"


if __name__ == "__main__":
    try:
        from gpassk_oc.configgen import main

        code = main()
    except ModuleNotFoundError as exc:  # run from a checkout with this Python lacking the deps
        sys.stderr.write(_install_hint(exc.name or str(exc)))
        code = 1
    except KeyboardInterrupt:  # Ctrl-C while importing: as everywhere, one line, 130
        sys.stderr.write("error: interrupted\n")
        code = 130
    sys.exit(code)
