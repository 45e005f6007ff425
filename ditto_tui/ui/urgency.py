"""While a key waits for its frame: no garbage collection, and a short GIL switch interval.

A key that asks for a new view (k, filter, sort...) is answered by the view thread, then
drawn in one frame of 10-30 ms of Python on the UI thread. Measured at 100,000 documents
(``benchmarks/bench_ui.py``'s key loops, per step), two things outside that work lengthened it:

- **Garbage collections inside the step**: a frame allocates thousands of objects
  (strips, segments, styles), so 6-9 young collections and about one middle one ran in
  each step: 1-3 ms of UI-thread CPU, and a middle collection that meets the view's
  large tuples 2-4 ms. They are put off until the frame is painted (the young garbage is
  then collected at the next allocation, in one go).
- **Waiting for the GIL**: a thread woken while the UI thread runs Python (the view
  thread with the answer, a reader of excerpts) waits up to the interpreter's switch
  interval (5 ms) before it may run, and the UI thread as long to get it back. While a
  key waits, the interval is 0.5 ms.

Both are process-wide settings: :func:`begin` and :func:`end` come in pairs, and a
caller that began ends (the screen does so after the frame, on unmount and, at the
latest, after :data:`MAX_S`). Nested users are counted; the settings come back when
the last one ends. Settings changed by someone else meanwhile are left as they are
(a collector disabled by its caller stays disabled).
"""

from __future__ import annotations

import gc
import sys
import threading

SWITCH_INTERVAL = 0.0005  # seconds, while a key waits (CPython's default: 0.005)
MAX_S = 0.5  # a key's urgency ends at the latest this long after it began

_lock = threading.Lock()
_depth = 0
_disabled_gc = False  # whether begin() turned the collector off (then end() turns it on)
_interval: float | None = None  # the switch interval begin() replaced


def begin() -> None:
    """A key waits for its frame: no collection and a short switch interval until
    the matching :func:`end`."""
    global _depth, _disabled_gc, _interval
    with _lock:
        _depth += 1
        if _depth > 1:
            return
        _disabled_gc = gc.isenabled()
        if _disabled_gc:
            gc.disable()
        previous = sys.getswitchinterval()
        if previous > SWITCH_INTERVAL:
            _interval = previous
            sys.setswitchinterval(SWITCH_INTERVAL)
        else:
            _interval = None


def end() -> None:
    """The frame is painted (or the wait is over): the settings :func:`begin` changed
    are put back once no one else is waiting."""
    global _depth, _disabled_gc, _interval
    with _lock:
        if _depth == 0:
            return
        _depth -= 1
        if _depth:
            return
        if _disabled_gc:
            gc.enable()
        _disabled_gc = False
        if _interval is not None and sys.getswitchinterval() == SWITCH_INTERVAL:
            sys.setswitchinterval(_interval)
        _interval = None


def active() -> bool:
    """Whether some key is waiting for its frame."""
    return _depth > 0
