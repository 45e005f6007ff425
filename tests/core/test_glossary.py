"""The help section's words and figures match what the code does."""

from __future__ import annotations

import inspect

from hypothesis import given
from hypothesis import strategies as st

from ditto_tui.core.explain.glossary import GLOSSARY
from ditto_tui.core.families.clusters import EXACT_STATS_LIMIT
from ditto_tui.core.families.notes import EMPTY, IDENTICAL, chain_too_wide, star_hint
from ditto_tui.core.fingerprint.featurize import Featurizer
from ditto_tui.ui.widgets import bit_diff
from ditto_tui.ui.widgets.bit_diff import agreeing_blocks, block_ranges, similarity_text

TEXT = " ".join(GLOSSARY.split())  # line breaks do not matter


def test_every_term_is_explained() -> None:
    for term in ("**Fingerprint**", "**Distance**", "**Similarity %**", "**k**", "**Chain**",
                 "**Star**", "**Representative**", "**Distance to the representative**",
                 "**Diameter**", "**Index blocks**", "**Skipped**", "**Members**"):
        assert term in TEXT


def test_figures_match_the_code() -> None:
    assert "Distance 2 is 96.88%" in TEXT and similarity_text(2) == "96.88%"
    assert "32 bits apart, 50%" in TEXT and similarity_text(32) == "50.00%"
    ranges = block_ranges(8)
    assert "at K=8, nine blocks of 7 or 8 bits" in TEXT
    assert len(ranges) == 9 and {hi - lo for lo, hi in ranges} == {7, 8}
    assert ranges[0][0] == 0 and ranges[-1][1] == 64
    assert f"Above {EXACT_STATS_LIMIT} distinct fingerprints" in TEXT
    assert f"runs of {Featurizer().char_n} characters" in TEXT
    assert f"*{EMPTY}*" in TEXT and f"*{IDENTICAL}*" in TEXT
    assert "*try star grouping*" in TEXT and star_hint(9, 2).endswith("try star grouping")
    assert "above both 2k and k+4" in TEXT
    assert chain_too_wide(9, 4) and not chain_too_wide(8, 4) and not chain_too_wide(4, 0)
    assert "index blocks at K=" in inspect.getsource(bit_diff)  # the line explained


@given(st.integers(0, 2**64 - 1), st.integers(0, 2**64 - 1), st.integers(0, 31))
def test_the_pigeonhole_statement(a: int, b: int, max_k: int) -> None:
    """'at distance d <= K at least K+1-d blocks agree; no check mark means d > K'."""
    d = (a ^ b).bit_count()
    agree = sum(agreeing_blocks(a, b, max_k))
    if d <= max_k:
        assert agree >= max_k + 1 - d
    if agree == 0:
        assert d > max_k


@given(st.integers(0, 2**64 - 1), st.sets(st.integers(0, 63), max_size=8), st.integers(0, 31))
def test_the_pigeonhole_statement_near(a: int, flips: set[int], max_k: int) -> None:
    b = a ^ sum(1 << i for i in flips)
    d = len(flips)
    agree = sum(agreeing_blocks(a, b, max_k))
    if d <= max_k:
        assert agree >= max_k + 1 - d
