"""Value parsers for argparse shared by the command lines (``cli.py``, ``scale/cli.py``).

Each takes the argument's text and returns the value or raises
``argparse.ArgumentTypeError`` with a short message naming what was wrong.
"""

from __future__ import annotations

import argparse

from ditto_tui.corpus.documents import parse_size

__all__ = ["integer", "k_value", "non_negative", "positive", "size", "size_or_zero"]


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
    """A positive size in bytes such as ``64M``, ``512k``, ``1GiB`` or ``1000000``
    (:func:`ditto_tui.corpus.documents.parse_size`)."""
    return _size(text, allow_zero=False)


def size_or_zero(text: str) -> int:
    """A size in bytes as for :func:`size`, 0 allowed."""
    return _size(text, allow_zero=True)


def _size(text: str, *, allow_zero: bool) -> int:
    try:
        return parse_size(text, allow_zero=allow_zero)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
