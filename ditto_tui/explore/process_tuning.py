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

The UI layer's own collector rule (no collection while a key waits for its frame) lives
in :mod:`ditto_tui.ui.internals`.
"""

from __future__ import annotations

import contextlib
import gc
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


def preload() -> None:
    """Import what the first family listing needs on a helper thread (a head start)."""
    threading.Thread(target=_import_graph_components, name="ditto-tui preload",
                     daemon=True).start()


def _import_graph_components() -> None:
    with contextlib.suppress(Exception):  # only a head start: a failure shows later
        import scipy.sparse.csgraph  # noqa: F401
