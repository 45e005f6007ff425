"""Everything the explore layer changes in process-wide state for speed, and why.

The garbage collector (:class:`HeapPolicy`): while a scan loads documents, full
collections walk the app and every document so far (0.3-2 s per 100,000 documents, every
thread paused), so they are made rarer and the start-up heap is frozen; once everything
is loaded and warm, a large corpus (from :data:`FREEZE_FROM` documents) stays frozen, since
one full collection over 1M documents paused every thread for 5 s under load, and a
smaller one is handed back to the collector. Measured by ``benchmarks/bench_ui.py``
(the folder warm start, and the 1M-document k steps and resident memory).

A head start (:func:`preload`): the first family listing needs scipy's graph components,
about 0.3 s of CPU to import; they are imported on a helper thread while the scan runs.

The C heap (glibc only; elsewhere these do nothing): :func:`limit_arenas` keeps malloc to
two arenas (it made one per thread that allocates, each keeping what was freed in it:
130 MB more at the peak of a 1M-document session), and :func:`trim_heap` hands the memory
freed after a scan or once listings are warm back to the system (the batches of a scan
and the temporaries of the index: ~340 MB at 1M documents). Measured by
``benchmarks/bench_ui.py`` (the 1M-document resident memory).

The UI layer's own collector rule (no collection while a key waits for its frame) lives
in :mod:`ditto_tui.ui.internals`.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import functools
import gc
import sys
import threading

FREEZE_FROM = 100_000  # documents: from here a full garbage collection costs seconds
GC_BULK_FULL = 100  # while a scan loads: young collections between two full ones (default 10)


class HeapPolicy:
    """The collector's settings across one explorer's scans (thread-safe calls from the
    scan and writer threads: each call is one short critical section of the GIL)."""

    def __init__(self) -> None:
        self._frozen = False  # a scan froze the heap (see bulk)
        self._thresholds: tuple[int, int, int] = gc.get_threshold()

    @property
    def loading(self) -> bool:
        """Whether :meth:`bulk` is in force (until :meth:`settle`)."""
        return self._frozen

    def bulk(self) -> None:
        """A scan starts loading documents: full collections are made rarer and what is
        alive now (the app's start-up heap, after a young collection) is moved out of the
        collector's sight (``gc.freeze``). Objects made during the scan are not frozen:
        cyclic garbage among them is still collected. Undone by :meth:`settle`."""
        if self._frozen:
            return
        self._frozen = True
        self._thresholds = gc.get_threshold()
        first, second, third = self._thresholds
        gc.set_threshold(first, second, max(third, GC_BULK_FULL))
        gc.collect(1)  # (young garbage is not frozen with the rest)
        gc.freeze()

    def settle(self, documents: int) -> None:
        """Everything is loaded and warm: a large corpus stays out of the collector's
        sight (:func:`freeze_heap`); a smaller one frozen by :meth:`bulk` is handed back
        to it (cycles among those objects are collected again). Recurs every few keys or
        live changes."""
        if self._frozen:
            gc.set_threshold(*self._thresholds)
        if documents >= FREEZE_FROM:
            freeze_heap(documents)
        elif self._frozen:
            gc.unfreeze()
        self._frozen = False
        trim_heap()


def freeze_heap(documents: int) -> None:
    """With a large corpus, move everything alive now (index, listings, documents) out of
    the garbage collector's sight (``gc.freeze``): a full collection over millions of
    objects pauses every thread for seconds (5 s at 1M documents under load). These
    objects are freed by reference counting as usual; only cycles among them would stay.

    The young generations are collected first, so recent cyclic garbage (alive only
    because no collection ran since, e.g. while a key held the collector off) is not
    frozen for good. Not a full collection: that walks every object made since the last
    freeze (3-35 ms at 100k documents, holding the GIL while keys are answered)."""
    if documents >= FREEZE_FROM:
        gc.collect(1)
        gc.freeze()


_M_ARENA_MAX = -8  # glibc's mallopt parameter
ARENAS = 2


@functools.cache
def _glibc() -> ctypes.CDLL | None:
    """The C library when it is glibc (the only one with these calls), else None."""
    if not sys.platform.startswith("linux"):
        return None
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
    except OSError:
        return None
    if libc is None or not hasattr(libc, "malloc_trim") or not hasattr(libc, "mallopt"):
        return None
    return libc


def limit_arenas() -> None:
    """Keep malloc to :data:`ARENAS` arenas for this process (call before the explorer's
    threads start allocating; an arena made already stays)."""
    libc = _glibc()
    if libc is not None:
        libc.mallopt(_M_ARENA_MAX, ARENAS)


def trim_heap() -> None:
    """Hand the C heap's free memory back to the system (a few ms at 1M documents; the
    GIL is released meanwhile, and a thread that allocates waits for it)."""
    libc = _glibc()
    if libc is not None:
        libc.malloc_trim(0)


def preload() -> None:
    """Import what the first family listing needs on a helper thread (a head start)."""
    threading.Thread(target=_import_graph_components, name="ditto-tui preload",
                     daemon=True).start()


def _import_graph_components() -> None:
    with contextlib.suppress(Exception):  # only a head start: a failure shows later
        import scipy.sparse.csgraph  # noqa: F401
