"""The compiled kernel's vote of one block of hashes, against counting each bit by hand.

``_vote_block`` adds the set bits of up to 3,840 hashes to per-bit counts kept as
``totals`` plus four bit-sliced digits (``planes``, carried from block to block). From
1,024 hashes on it runs eight lanes of vector carry-save adders with their own nine
digits, flushed into ``totals`` through packed 8-bit counters; the rest go through the
scalar tree. Every count around those sizes, with hashes whose bits are rare, common,
all set or random (all set is the largest count each digit and each packed counter
must hold), must give exactly the counts a plain loop gives.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ditto_tui.core import kernel
from tests.properties import examples

pytest.importorskip("numba")

BLOCK = 3840
SIZES = [0, 1, 15, 16, 17, 127, 128, 1023, 1024, 1025, 1151, 1152, 2047, 3839, BLOCK]


@pytest.fixture(scope="module")
def compiled():
    """The numba-compiled kernel module."""
    kernel.select("numba")
    try:
        assert kernel.warm("ditto"), kernel.status()
        from ditto_tui.core import _ditto_kernel

        yield _ditto_kernel
    finally:
        kernel.select(None)


def _counts(totals: np.ndarray, planes: np.ndarray) -> list[int]:
    """Each bit's count: ``totals`` plus the four digits in ``planes``."""
    return [int(totals[k]) + sum(((int(planes[d]) >> k) & 1) << d for d in range(4))
            for k in range(64)]


def _hashes(kind: str, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if kind == "ones":
        return np.full(BLOCK, 2**64 - 1, dtype=np.uint64)
    if kind == "zeros":
        return np.zeros(BLOCK, dtype=np.uint64)
    if kind == "random":
        return rng.integers(0, 2**64, size=BLOCK, dtype=np.uint64, endpoint=False)
    density = {"rare": 0.05, "common": 0.95}[kind]
    bits = rng.random((BLOCK, 64)) < density
    return np.packbits(bits, axis=1, bitorder="little").view("<u8").ravel().astype(np.uint64)


@settings(max_examples=examples(120), deadline=None)
@given(count=st.one_of(st.sampled_from(SIZES), st.integers(0, BLOCK)),
       kind=st.sampled_from(["random", "ones", "zeros", "rare", "common"]),
       seed=st.integers(0, 2**32 - 1), carried=st.booleans())
@example(count=BLOCK, kind="ones", seed=0, carried=True)  # every digit of every lane is used
@example(count=BLOCK, kind="common", seed=1, carried=False)
def test_a_block_adds_exactly_each_bits_count(compiled, count: int, kind: str, seed: int,
                                              carried: bool) -> None:
    h = _hashes(kind, seed)
    rng = np.random.default_rng(seed + 1)
    totals = rng.integers(0, 10**6, size=64, dtype=np.int64) if carried else np.zeros(64, np.int64)
    planes = (rng.integers(0, 2**64, size=4, dtype=np.uint64, endpoint=False) if carried
              else np.zeros(4, np.uint64))
    before = _counts(totals, planes)
    compiled._vote_block(h, count, compiled._SPREAD, planes, totals)
    added = [sum((int(x) >> k) & 1 for x in h[:count].tolist()) for k in range(64)]
    assert _counts(totals, planes) == [b + a for b, a in zip(before, added, strict=True)]


def test_blocks_in_a_row_add_up_to_every_hash_of_a_long_document(compiled) -> None:
    """Many full blocks (the lanes each time) and a partial one, one running count."""
    rng = np.random.default_rng(7)
    hashes = rng.integers(0, 2**64, size=5 * BLOCK + 999, dtype=np.uint64, endpoint=False)
    hashes[BLOCK : 2 * BLOCK] = 2**64 - 1
    totals = np.zeros(64, np.int64)
    planes = np.zeros(4, np.uint64)
    for start in range(0, hashes.size, BLOCK):
        part = np.ascontiguousarray(hashes[start : start + BLOCK])
        compiled._vote_block(part, part.size, compiled._SPREAD, planes, totals)
    bits = np.unpackbits(hashes.view(np.uint8).reshape(-1, 8), axis=1, bitorder="little")
    assert _counts(totals, planes) == bits.sum(axis=0, dtype=np.int64).tolist()
