"""While a key waits for its frame, the garbage collector waits too.

A key that asks for a new view (k, filter, sort...) is answered by the view thread, then
drawn in one frame of 10-30 ms of Python on the UI thread. A frame allocates thousands of
objects (strips, segments, styles), so at 100,000 documents (``benchmarks/bench_ui.py``'s
key loops, per step) 6-9 young collections and often a middle one ran inside every step:
1.1-1.4 ms of UI-thread CPU in the median, up to 6.6 ms; a middle collection alone 2-4 ms
(4-14 ms of wall time when the thread was preempted inside it). They are put off until
the frame is painted; the young objects are then collected at the next allocation, in
one go. (No full collection ran in those loops: the corpus is frozen when it settles.)

The collector is process-wide: :func:`begin` and :func:`end` come in pairs, and a caller
that began ends (the screen does so after the frame, on unmount and, at the latest,
after :data:`MAX_S`). Nested users are counted; the collector comes back on when the last
one ends, and only if :func:`begin` turned it off.
"""

from __future__ import annotations

import gc
import threading

MAX_S = 0.5  # a key's wait ends at the latest this long after it began

_lock = threading.Lock()
_depth = 0
_disabled_gc = False  # whether begin() turned the collector off (then end() turns it on)


def begin() -> None:
    """A key waits for its frame: no collection until the matching :func:`end`."""
    global _depth, _disabled_gc
    with _lock:
        _depth += 1
        if _depth == 1:
            _disabled_gc = gc.isenabled()
            if _disabled_gc:
                gc.disable()


def end() -> None:
    """The frame is painted (or the wait is over): the collector is back on once no one
    else waits (if :func:`begin` turned it off)."""
    global _depth, _disabled_gc
    with _lock:
        if _depth == 0:
            return
        _depth -= 1
        if _depth == 0 and _disabled_gc:
            _disabled_gc = False
            gc.enable()


def active() -> bool:
    """Whether some key is waiting for its frame."""
    return _depth > 0
