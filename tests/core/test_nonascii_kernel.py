"""Non-ASCII text through every kernel, against the slow reference of ``test_engine_properties``.

The compiled kernel takes mostly-ASCII text with a few other code points in two fast
ways: the normalizer writes the plain ASCII bytes of an eight-byte chunk up to the first
byte that is not plain, and the vote hashes a run of four or more ASCII bytes like ASCII
text while the windows that reach into other code points keep one running state each.
The documents here put every kind of code point (two, three and four bytes, combining
marks, mappings that change the length, whitespace, code points at the ends of the
lowercase table, invalid UTF-8) after ASCII runs of every length, so each lands at every
position of a chunk and every length of run, and long ones cross the vote's blocks.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ditto_tui.core import Featurizer, kernel
from ditto_tui.core._ditto_tables import TABLE
from tests.core.test_engine_properties import ref_features, ref_normalize, ref_sum
from tests.properties import examples

# every test here runs once per kernel (numpy, numba, native): see conftest.py
pytestmark = pytest.mark.usefixtures("engine_kernel")

_LAST = int(TABLE.size) - 1  # the last code point the lowercase table maps
OTHERS = [
    "é", "È", "ß", "Д", "ж", "Σ", "ς", "Ω", "日", "本", "。", "😀", "\U00010400",  # 2, 3, 4 bytes
    "e\u0301", "\u0301", "\u0345", "\u20dd",  # combining marks
    "İ", "\u023a", "\u212a", "\u212b", "\u2126",  # mappings that change the length
    "\u00a0", "\u0085", "\u2028", "\u3000", "\ufeff",  # whitespace (and not)
    "\x80", "\u07ff", "\u0800", "\uffff", "\U00010000", "\U0010ffff",  # UTF-8 length limits
    chr(_LAST), chr(_LAST + 1), "\U0001e900", "\U0001e921",  # the ends of the table
]
BAD = [b"\xff", b"\x80", b"\xc3", b"\xe2\x82", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xc0\xaf",
       b"\xf0\x9f\x98"]
# ASCII runs: letters (capitals too), spaces and runs of them, the whitespace bytes
ascii_runs = st.text(alphabet="etaoinsETAOIN  .,\t\n\r", max_size=20).map(str.encode)
others = st.one_of(st.sampled_from(OTHERS).map(str.encode), st.sampled_from(BAD))
mixed_docs = st.lists(st.tuples(ascii_runs, others), max_size=40).map(
    lambda parts: b"".join(run + other for run, other in parts))


def _long(doc: bytes, filler: bytes) -> bytes:
    """``doc`` repeated (with a growing ASCII filler) to well over one vote block."""
    parts = []
    size = 0
    while size < 9000:
        piece = doc + filler * (len(parts) % 5)
        parts.append(piece)
        size += len(piece)
    return b"".join(parts)


@settings(max_examples=examples(300), deadline=None)
@given(mixed_docs, st.sampled_from([(4, 0), (4, 2), (3, 0)]))
def test_mixed_scripts_after_ascii_runs_of_every_length(engine_kernel: str, data: bytes,
                                                        sizes: tuple[int, int]) -> None:
    char_n, word_n = sizes
    if engine_kernel != "numpy":
        assert kernel.ditto(len(data)).normalize_utf8(data) == ref_normalize(data).encode("utf-8")
    assert Featurizer(char_n=char_n, word_n=word_n).fingerprint(data) == ref_sum(
        ref_features(data, char_n, word_n))


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mixed_docs.filter(bool), st.sampled_from([b"ab", b"Xy ", b"\xc3\xa9", b" "]))
def test_long_mixed_documents_cross_the_vote_blocks(engine_kernel: str, doc: bytes,
                                                    filler: bytes) -> None:
    data = _long(doc, filler)
    expected = ref_features(data, 4, 0)
    assert Featurizer().fingerprint(data) == ref_sum(expected)


def test_every_position_of_the_first_other_byte_in_a_chunk(engine_kernel: str) -> None:
    """An ASCII run of each length, then one byte that leaves the eight-byte path (one
    test per kernel: the cases are a few milliseconds each)."""
    wrong = []
    for other in (b"\xc3\xa9", "日".encode(), "😀".encode(), b"  ", b"\t", b"<p>", b"\xff", b"A"):
        for run in range(18):
            data = b"Mixed " + b"abcdEFGH ijk"[: run % 12] * (1 + run // 12) + other + b" after Text end"
            expected = ref_normalize(data).encode("utf-8")
            if engine_kernel != "numpy" and kernel.ditto(len(data)).normalize_utf8(data) != expected:
                wrong.append(f"normalize {data!r}")
            if Featurizer().fingerprint(data) != ref_sum(ref_features(data, 4, 0)):
                wrong.append(f"fingerprint {data!r}")
    assert not wrong, wrong


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mixed_docs.filter(bool), st.sampled_from([b"ab", b"Xy ", b"\xc3\xa9", b" "]))
def test_the_code_point_vote_writes_only_inside_its_work_space(engine_kernel: str, doc: bytes,
                                                               filler: bytes) -> None:
    """numba's vote over windows of four code points, with guard cells around its arrays."""
    if engine_kernel != "numba":
        pytest.skip("numba's dispatchers only")
    import numpy as np

    from ditto_tui.core import _ditto_kernel
    from ditto_tui.core._ditto_tables import PAIRS, SPREAD

    text = np.frombuffer(_long(doc, filler), dtype=np.uint8)
    text = np.frombuffer(kernel.ditto(text.size).normalize_utf8(text.tobytes()), dtype=np.uint8)
    guard = 64
    cells = {"block": (3840, np.uint64), "totals": (64, np.int64), "planes": (4, np.uint64)}
    arrays = {name: np.full(size + 2 * guard, 0x5A5A, dtype=dtype) for name, (size, dtype) in cells.items()}
    views = {name: array[guard:-guard] for name, array in arrays.items()}
    views["totals"][:] = 0
    views["planes"][:] = 0
    windows = _ditto_kernel._code_point_windows4(text, SPREAD, PAIRS, views["planes"], views["totals"],
                                                 views["block"])
    assert windows == len(text.tobytes().decode("utf-8")) - 3
    for array in arrays.values():
        assert (array[:guard] == 0x5A5A).all() and (array[-guard:] == 0x5A5A).all()
