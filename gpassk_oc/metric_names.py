"""Deprecated since 0.2.0: moved to :mod:`gpassk_oc.core.metrics.metric_keys` (this path forwards, with a warning)."""

from gpassk_oc._moved import METRIC_NAMES_ELSEWHERE, forward

__getattr__, __dir__ = forward(
    __name__,
    "gpassk_oc.core.metrics.metric_keys",
    METRIC_NAMES_ELSEWHERE,
)
