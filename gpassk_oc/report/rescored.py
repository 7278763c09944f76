"""Deprecated since 0.3.0: moved to :mod:`gpassk_oc.report.data.rescored_section` (this path forwards, with a warning)."""

from gpassk_oc._moved import forward

__getattr__, __dir__ = forward(__name__, "gpassk_oc.report.data.rescored_section", since="0.3.0")
