"""The compiled kernels' vote, against counting each bit by hand.

The vote adds the set bits of window hashes to per-bit counts, a block of up to 3,840 at a
time: ``totals`` plus four bit-sliced digits carried from block to block, the sixteens
spread into packed 8-bit counters. From 384 hashes a block (AVX2, AVX-512), a multiple of
128 goes eight side by side through vector carry-save adders with nine digits of their
own; the rest through the scalar tree. Every count around those sizes, with hashes whose
bits are rare, common, all set or random (all set is the largest count each digit and each
packed counter must hold), must give exactly the counts a plain loop gives, in every
instruction set.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ditto_tui.core.fingerprint import engine
from tests.properties import examples

BLOCK = 3840
SIZES = [0, 1, 15, 16, 17, 127, 128, 383, 384, 385, 511, 512, 1023, 1024, 1151, 2047, 3839,
         BLOCK, BLOCK + 1, 2 * BLOCK + 383, 3 * BLOCK + 384]


@pytest.fixture(scope="module")
def compiled():
    """The extension module (every instruction set is tried in each test)."""
    if not engine.isas():
        pytest.skip("the compiled engine is not installed")
    from ditto_tui.core.fingerprint import _compiled

    try:
        yield _compiled
    finally:
        _compiled.use_isa(engine.isas()[0])


def _hashes(kind: str, count: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if kind == "ones":
        return np.full(count, 2**64 - 1, dtype=np.uint64)
    if kind == "zeros":
        return np.zeros(count, dtype=np.uint64)
    if kind == "random":
        return rng.integers(0, 2**64, size=count, dtype=np.uint64, endpoint=False)
    density = {"rare": 0.05, "common": 0.95}[kind]
    bits = rng.random((count, 64)) < density
    return np.packbits(bits, axis=1, bitorder="little").view("<u8").ravel().astype(np.uint64)


def _by_hand(hashes: np.ndarray) -> list[int]:
    bits = np.unpackbits(hashes.view(np.uint8).reshape(-1, 8), axis=1, bitorder="little")
    return bits.sum(axis=0, dtype=np.int64).tolist() if hashes.size else [0] * 64


@settings(max_examples=examples(120), deadline=None)
@given(count=st.one_of(st.sampled_from(SIZES), st.integers(0, 3 * BLOCK)),
       kind=st.sampled_from(["random", "ones", "zeros", "rare", "common"]),
       seed=st.integers(0, 2**32 - 1))
@example(count=BLOCK, kind="ones", seed=0)  # every digit of every lane is used
@example(count=3 * BLOCK, kind="ones", seed=0)  # ... block after block
@example(count=BLOCK, kind="common", seed=1)
def test_the_vote_counts_exactly_each_bit(compiled, count: int, kind: str, seed: int) -> None:
    hashes = _hashes(kind, count, seed)
    expected = _by_hand(hashes)
    for isa in compiled.isas():
        compiled.use_isa(isa)
        counts = np.zeros(64, dtype=np.int64)
        compiled.vote_counts(hashes, counts)
        assert counts.tolist() == expected, isa


def test_a_long_run_of_blocks_adds_up_to_every_hash(compiled) -> None:
    """Many full blocks (the lanes each time) and a partial one, one running count."""
    rng = np.random.default_rng(7)
    hashes = rng.integers(0, 2**64, size=40 * BLOCK + 999, dtype=np.uint64, endpoint=False)
    hashes[BLOCK : 20 * BLOCK] = 2**64 - 1
    for isa in compiled.isas():
        compiled.use_isa(isa)
        counts = np.zeros(64, dtype=np.int64)
        compiled.vote_counts(hashes, counts)
        assert counts.tolist() == _by_hand(hashes), isa


def test_the_vote_refuses_arrays_of_another_kind(compiled) -> None:
    counts = np.zeros(64, dtype=np.int64)
    with pytest.raises(TypeError, match="64-bit unsigned"):
        compiled.vote_counts(np.zeros(4, dtype=np.int32), counts)
    with pytest.raises(ValueError, match="64 items"):
        compiled.vote_counts(np.zeros(4, dtype=np.uint64), np.zeros(63, dtype=np.int64))
