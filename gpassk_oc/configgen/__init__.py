"""Config generator: expand a grid template into OpenCompass configs.

A *template* is a Python file that declares variables (``llm_infos``, ``temperatures``,
``ks``, ...; the schema is :mod:`.schema`, documented in docs/configgen.md).
The pipeline, one module per step:

1. :mod:`.loader` finds and executes the template (GPassK-style templates are rewritten
   into grid variables by :mod:`.gpassk`);
2. :mod:`.schema` validates every variable (one-line ``<field>: <problem>`` errors);
3. :mod:`.expand` turns the grid into config *data* (:class:`ConfigData`), one per grid
   point, plus one grid config running them all;
4. :mod:`.model_limits` checks each model's lengths against what it accepts;
5. :mod:`.render` writes deterministic Python text; :mod:`.dump_command` writes files
   (:mod:`.collisions`: one grid point per name in the output folder) and is the CLI
   (``gpassk-oc dump``, ``dump_opencompass_configs.py``).

Importing this package does not import OpenCompass (GPassK-style templates need mmengine).
"""

from __future__ import annotations

from gpassk_oc.configgen.dump_command import add_arguments, main, run, write_configs
from gpassk_oc.configgen.expand import ConfigData, GridPoint, expand, grid_config, grid_stem
from gpassk_oc.configgen.loader import TEMPLATES_DIRNAME, resolve_template, templates_dir
from gpassk_oc.configgen.pipeline import Plan, build, generate, load_template, template_variables
from gpassk_oc.configgen.schema import API_MODEL_KEYS, KNOWN_VARIABLES, Settings, TemplateError

__all__ = [
    "TemplateError",
    "KNOWN_VARIABLES",
    "API_MODEL_KEYS",
    "ConfigData",
    "GridPoint",
    "Plan",
    "Settings",
    "TEMPLATES_DIRNAME",
    "templates_dir",
    "resolve_template",
    "load_template",
    "build",
    "generate",
    "template_variables",
    "expand",
    "grid_config",
    "grid_stem",
    "write_configs",
    "add_arguments",
    "run",
    "main",
]
