#!/usr/bin/env python
"""Expand a grid template into OpenCompass configs (same as ``gpassk-oc dump``).

python dump_opencompass_configs.py --config_template_file nono1.py
"""

import sys

from gpassk_oc.configgen import main

if __name__ == "__main__":
    sys.exit(main())
