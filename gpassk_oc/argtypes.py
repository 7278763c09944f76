"""Argument types shared by the CLIs: bounds with their reason, checked while parsing so a
bad value is one ``error:`` line (exit 2) before anything runs or is written."""

from __future__ import annotations

import argparse

__all__ = ["port_number", "seed_number", "MAX_SEED"]

#: numpy's seeds are 32-bit (``np.random.default_rng`` takes more, the legacy API does not).
MAX_SEED = 2**32 - 1


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None


def port_number(text: str) -> int:
    """A TCP port: 1-65535, or 0 for a free one chosen by the system."""
    value = _integer(text)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(
            f"{value} is not a TCP port: need 1-65535 (or 0 for a free one)"
        )
    return value


def seed_number(text: str) -> int:
    """A random seed: 0 to 2**32 - 1 (numpy's seed range)."""
    value = _integer(text)
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"{value}: need a seed in 0..{MAX_SEED}")
    return value
