"""Shared helpers and fixtures of test_metrics.py, tests/test_metrics_properties.py (registered in conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from oracles import (
    load_opencompass_g_pass,
)

from gpassk_oc.core.metrics import gpass_exact as metrics

ROOT = Path(__file__).resolve().parents[1]


# (value handed to the code, literal the oracle reads with Fraction): floats, a str
# fraction and ints, including thresholds whose binary float is not the decimal.
AWKWARD_TAUS = [
    (0, "0"),
    (0.1, "0.1"),
    ("1/3", "1/3"),
    (0.25, "0.25"),
    (0.5, "0.5"),
    (0.55, "0.55"),
    (0.75, "0.75"),
    (0.999, "0.999"),
    (1, "1"),
]


OC_THRESHOLDS = [0.0, 0.25, 0.5, 0.75, 1.0]  # as OpenCompass lists them (key format too)


PROPS = settings(
    max_examples=120, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)


@pytest.fixture(scope="module")
def oc():
    return load_opencompass_g_pass()


@pytest.fixture
def fresh_odd_k_warnings():
    """The odd-k warning fires once per process; forget earlier calls for this test."""
    metrics._warned_odd_k.clear()
    yield
    metrics._warned_odd_k.clear()
