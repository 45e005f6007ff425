"""How many examples each property test draws, in the quick run and in the full one.

The README's command (the quick suite) draws a quarter of each property test's examples, so
that it ends in about two minutes on two cores. CI then runs every property test again with
all of them, as a step of its own::

    DITTO_TUI_PROPERTIES=full pytest -m "property and not slow"

Each run draws new examples, and a failing example is replayed first by every later run
(hypothesis keeps it in ``.hypothesis/``), so the quick run still finds what it ever found.
"""

from __future__ import annotations

import os

ENV = "DITTO_TUI_PROPERTIES"
FULL = os.environ.get(ENV, "").strip().lower() == "full"
QUICK_SHARE = 4  # the quick run draws 1/QUICK_SHARE of a test's examples
QUICK_FLOOR = 10  # and never fewer than this
DEFAULT = 100  # hypothesis's own default, for tests that set no count


def examples(count: int) -> int:
    """``max_examples`` for a property test that draws ``count`` examples in the full run."""
    return count if FULL else max(QUICK_FLOOR, count // QUICK_SHARE)
