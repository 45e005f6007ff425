"""An mbox's messages found and fingerprinted by the compiled kernel, in parallel threads.

The compiled engine gives a splitter (``mbox_split_into``: the messages whose postmarks
start in a range, as :func:`ditto_tui.corpus.mail.split_mbox` finds them) and a
fingerprinter of spans; this drives them. The buffer is cut into regions of about
``REGION_BYTES`` at postmark lines (a cut is the first postmark at or after an even share
of the bytes), and the threads take the regions in file order, the next free one each
time, so a thread slowed down by other work on the machine takes fewer of them. A thread
finds its region's messages a chunk at a time and fingerprints each chunk at once, while
it is still in the CPU's caches. Neither call holds the GIL, and no Python object is made
per message: the result is three arrays, in file order, the same messages as
:func:`ditto_tui.corpus.mail.split_mbox` finds.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

__all__ = ["CHUNK", "MIN_THREAD_BYTES", "REGION_BYTES", "MboxParts", "mbox_parts"]

#: Messages found per call of the splitter (then fingerprinted in one call).
CHUNK = 1024
#: Bytes of mbox below which one more thread is not started.
MIN_THREAD_BYTES = 1 << 20
#: Bytes of mbox a thread takes at a time (the last share of the work is then small).
REGION_BYTES = 2 << 20

#: ``split(buf, pos, hi, offsets, sizes, state) -> count`` (see ``mbox_split_into``).
Split = Callable[[np.ndarray, int, int, np.ndarray, np.ndarray, np.ndarray], int]
#: ``run(buf, offsets, sizes) -> fingerprints`` (uint64) of those spans.
Run = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


class MboxParts(NamedTuple):
    """The messages of an mbox in file order: where each starts, its size, its fingerprint."""

    offsets: np.ndarray  # int64
    sizes: np.ndarray  # int64
    fps: np.ndarray  # uint64


def mbox_parts(buf: np.ndarray, threads: int, split: Split, run: Run) -> MboxParts:
    """The messages of the mbox ``buf`` (uint8) and their fingerprints, found by ``split``
    and fingerprinted by ``run`` in up to ``threads`` threads (this one included)."""
    n = buf.size
    threads = max(1, min(threads, 1 + n // MIN_THREAD_BYTES))
    state = np.zeros(1, dtype=np.int64)
    none = np.empty(0, dtype=np.int64)
    shares = max(threads, -(-n // REGION_BYTES)) if threads > 1 else 1
    cuts = [0]
    for t in range(1, shares):
        split(buf, n * t // shares, n, none, none, state)  # no room: only the next postmark
        cuts.append(max(int(state[0]), cuts[-1]))
    cuts.append(n)
    regions = [(lo, hi) for lo, hi in zip(cuts, cuts[1:], strict=False) if lo < hi]
    results: list[list[tuple[np.ndarray, np.ndarray, np.ndarray]]] = [[] for _ in regions]
    errors: list[BaseException] = []
    taken = iter(range(len(regions)))  # shared: each region goes to the thread that asks first
    lock = threading.Lock()

    def work() -> None:
        try:
            while not errors:
                with lock:
                    k = next(taken, None)
                if k is None:
                    return
                results[k] = _region(buf, *regions[k], split, run)
        except BaseException as exc:  # noqa: BLE001 - raised again in the calling thread
            errors.append(exc)

    others = [threading.Thread(target=work, daemon=True)
              for _ in range(min(threads, len(regions)) - 1)]
    for thread in others:
        thread.start()
    work()
    for thread in others:
        thread.join()
    if errors:
        raise errors[0]
    chunks = [chunk for result in results for chunk in result]
    if not chunks:
        return MboxParts(none, none.copy(), np.empty(0, dtype=np.uint64))
    if len(chunks) == 1:
        return MboxParts(*chunks[0])
    return MboxParts(*(np.concatenate([chunk[i] for chunk in chunks]) for i in range(3)))


def _region(buf: np.ndarray, lo: int, hi: int, split: Split,
            run: Run) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The messages whose postmarks start in ``[lo, hi)``, a chunk at a time."""
    state = np.zeros(1, dtype=np.int64)
    out = []
    pos = lo
    while pos < hi:
        offsets = np.empty(CHUNK, dtype=np.int64)
        sizes = np.empty(CHUNK, dtype=np.int64)
        count = split(buf, pos, hi, offsets, sizes, state)
        if count:
            offsets, sizes = offsets[:count], sizes[:count]
            out.append((offsets, sizes, run(buf, offsets, sizes)))
        pos = int(state[0])
        if count < CHUNK:  # the region is done (state[0] == hi)
            break
    return out
