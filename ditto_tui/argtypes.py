"""Value parsers for argparse shared by the command lines (``cli.py``, ``scale/cli.py``).

Each takes the argument's text and returns the value or raises
``argparse.ArgumentTypeError`` with a short message naming what was wrong.
"""

from __future__ import annotations

import argparse

__all__ = ["integer", "k_value", "non_negative", "positive", "size", "size_or_zero"]

_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}


def integer(text: str) -> int:
    """Any integer."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None


def _at_least(text: str, low: int) -> int:
    value = integer(text)
    if value < low:
        raise argparse.ArgumentTypeError(f"must be at least {low}, got {value}")
    return value


def non_negative(text: str) -> int:
    """An integer >= 0."""
    return _at_least(text, 0)


def positive(text: str) -> int:
    """An integer >= 1."""
    return _at_least(text, 1)


def k_value(text: str) -> int:
    """A Hamming distance for the Spark jobs: 0..32."""
    value = integer(text)
    if not 0 <= value <= 32:
        raise argparse.ArgumentTypeError(f"k must be in 0..32, got {value}")
    return value


def size(text: str) -> int:
    """A positive size in bytes such as ``64M``, ``512k``, ``1GiB`` or ``1000000``."""
    value = size_or_zero(text)
    if value == 0:
        raise argparse.ArgumentTypeError(f"size must be positive: {text!r}")
    return value


def size_or_zero(text: str) -> int:
    """A size in bytes as for :func:`size`, 0 allowed."""
    body = text.strip().lower().removesuffix("b").removesuffix("i")
    unit = body[-1] if body and body[-1] in "kmg" else ""
    try:
        value = int(float(body[: len(body) - len(unit)]) * _UNITS[unit])
    except (ValueError, OverflowError):  # OverflowError: "inf"
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (e.g. 64M)") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"size must not be negative: {text!r}")
    return value
