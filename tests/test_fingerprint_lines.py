"""An mbox's fingerprint lines made at once equal the lines made one at a time."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ditto_tui.cli import fingerprint_lines
from ditto_tui.cli.fingerprint_lines import message_lines
from tests.properties import examples


def one_at_a_time(base: bytes, fps: list[int]) -> bytes:
    return b"".join(b"%016x\t%s#%d\n" % (fp, base, i) for i, fp in enumerate(fps, 1))


@settings(max_examples=examples(200), deadline=None)
@given(
    base=st.binary(max_size=40).filter(lambda b: b"\n" not in b),
    fps=st.lists(st.integers(0, 2**64 - 1), max_size=130),
    piece=st.sampled_from([1, 40, 100, 1 << 20]),
)
def test_lines_equal_the_lines_made_one_at_a_time(base: bytes, fps: list[int], piece: int) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fingerprint_lines, "_PIECE_BYTES", piece)
        assert message_lines(base, fps) == one_at_a_time(base, fps)


@pytest.mark.parametrize("count", [0, 1, 9, 10, 99, 100, 1000, 10_001])
def test_numbers_across_their_widths(count: int) -> None:
    fps = [(i * 0x9E3779B97F4A7C15) % 2**64 for i in range(count)]
    assert message_lines(b"box.mbox", fps) == one_at_a_time(b"box.mbox", fps)
