"""gpassk_oc: G-Pass@k and LiveMathBench for OpenCompass.

Layout:
* pure core (no OpenCompass import): ``gpassk_oc.core.scoring.metrics`` and ``gpassk_oc.core.*``;
* OpenCompass adapters: ``gpassk_oc.datasets``, ``.evaluators``, ``.postprocessors``,
  ``.models``, ``.configs``;
* tools: ``gpassk_oc.configgen``, ``gpassk_oc.cli``.

Importing this package imports nothing heavy; import the adapters explicitly.
"""

__version__ = "0.1.0"
