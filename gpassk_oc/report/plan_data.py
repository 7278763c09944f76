"""Deprecated since 0.3.0: moved to :mod:`gpassk_oc.report.planning.plan_model` (this path forwards, with a warning)."""

from gpassk_oc._moved import forward

__getattr__, __dir__ = forward(__name__, "gpassk_oc.report.planning.plan_model", since="0.3.0")
