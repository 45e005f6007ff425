"""The compiled normalizer's 64-byte step, against the slow reference of ``test_engine_properties``.

Plain ASCII text goes 64 bytes a step (``_plain_wide``): capitals lowered, the six ASCII
whitespace bytes made spaces, and the step ends at the first byte that is not one for one
(a byte >= 0x80, a ``<``, a whitespace byte after a space). Here every such byte, and the
bytes that look like them (``@``, ``[``, ``\\x1c``, ``\\x7f``, a ``>``), lands at every
position of a step and right after one, in every kernel.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ditto_tui.core import Featurizer
from ditto_tui.core.fingerprint import engine
from tests.core.test_engine_properties import ref_features, ref_normalize, ref_sum
from tests.properties import examples

# every test here runs once per engine (numpy, compiled per instruction set): see conftest.py
pytestmark = pytest.mark.usefixtures("engine_kernel")

EDGES = [b"  ", b" \n", b"\t\t", b"\n", b"\r\n", b"\x0b\x0c", b"<p>x</p>", b"< b", b"a > b",
         b"\xc3\xa9", b"\xff", b"\xe6\x97\xa5", b"\x1c\x1f", b"\x7f", b"@[`{", b"AZ", b"\x00"]
TEXT = b"The Quick brown Fox jumps over the lazy Dog; pack MY box with five dozen liquor jugs. " * 3


def _normalized(data: bytes, engine_kernel: str) -> bytes | None:
    """The kernel's normalized text (None for the numpy engine: it has no such step)."""
    return None if engine_kernel == "numpy" else engine.ditto().normalize_utf8(data)


def test_every_position_of_a_byte_that_ends_the_wide_step(engine_kernel: str) -> None:
    wrong = []
    for edge in EDGES:
        for at in range(0, 140):
            data = TEXT[:at] + edge + TEXT[at:]
            got = _normalized(data, engine_kernel)
            if got is not None and got != ref_normalize(data).encode("utf-8"):
                wrong.append(f"normalize {edge!r} at {at}")
            if at % 9 == 0 and Featurizer().fingerprint(data) != ref_sum(ref_features(data, 4, 0)):
                wrong.append(f"fingerprint {edge!r} at {at}")
    assert not wrong, wrong


def test_leading_and_trailing_whitespace_around_whole_steps(engine_kernel: str) -> None:
    wrong = []
    for lead in (b"", b" ", b"\n\n", b"\t"):
        for size in (63, 64, 65, 127, 128, 129, 200):
            for tail in (b"", b" ", b"\r\n"):
                data = lead + TEXT[:size] + tail
                got = _normalized(data, engine_kernel)
                if got is not None and got != ref_normalize(data).encode("utf-8"):
                    wrong.append(repr(data[:8] + b"..." + data[-4:]))
    assert not wrong, wrong


ascii_text = st.text(alphabet="abcXYZ  \t\n\r\x0b\x0c<>/!?p@[\x1c\x7f", max_size=400).map(str.encode)


@settings(max_examples=examples(200), deadline=None)
@given(ascii_text, st.integers(0, 3))
def test_ascii_text_with_whitespace_runs_and_tags(engine_kernel: str, data: bytes,
                                                  repeat: int) -> None:
    data = data + TEXT[: 64 * repeat] + data
    got = _normalized(data, engine_kernel)
    if got is not None:
        assert got == ref_normalize(data).encode("utf-8")
    assert Featurizer().fingerprint(data) == ref_sum(ref_features(data, 4, 0))
