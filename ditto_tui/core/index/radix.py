"""The stable order of unsigned keys: a radix sort in the compiled engine, numpy's otherwise."""

from __future__ import annotations

import numpy as np

from ditto_tui.core.fingerprint import engine

__all__ = ["stable_order"]


def stable_order(keys: np.ndarray) -> np.ndarray:
    """Positions of ``keys`` (unsigned ints of up to 64 bits) in stable sorted order: uint32
    from the compiled radix sort (one pass per byte in which keys differ), else int64
    from ``np.argsort(kind="stable")``."""
    module = engine.compiled()
    if module is not None and 0 < len(keys) < 2**32:
        return np.frombuffer(module.argsort(np.ascontiguousarray(keys, np.uint64)), np.uint32)
    return np.argsort(keys, kind="stable")
