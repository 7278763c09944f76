"""Deprecated since 0.2.0: moved to :mod:`gpassk_oc.core.metrics.metric_keys` (this path forwards, with a warning)."""

from gpassk_oc._moved import forward

# the spec and its parsers moved on to the metric registry
_REGISTRY = "gpassk_oc.core.metrics.registry"
_IN_REGISTRY = (
    "KINDS",
    "MetricSpec",
    "headline_metrics",
    "parse_metric",
    "parse_result_key",
    "report_metrics",
)

__getattr__, __dir__ = forward(
    __name__,
    "gpassk_oc.core.metrics.metric_keys",
    {name: _REGISTRY for name in _IN_REGISTRY},
)
