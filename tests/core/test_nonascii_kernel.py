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
from hypothesis import given, settings
from hypothesis import strategies as st

from ditto_tui.core import Featurizer
from ditto_tui.core.fingerprint import engine
from ditto_tui.core.fingerprint.normalize import _code_point_table
from tests.core.test_engine_properties import ref_features, ref_normalize, ref_sum
from tests.properties import examples

# every test here runs once per engine (numpy, compiled per instruction set): see conftest.py
pytestmark = pytest.mark.usefixtures("engine_kernel")

_LAST = int(_code_point_table().size) - 1  # the last code point the lowercase table maps
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
        assert engine.ditto().normalize_utf8(data) == ref_normalize(data).encode("utf-8")
    assert Featurizer(char_n=char_n, word_n=word_n).fingerprint(data) == ref_sum(
        ref_features(data, char_n, word_n))
