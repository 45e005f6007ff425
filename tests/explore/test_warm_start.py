"""Start-up paths of the explorer: the heap while a scan loads, the stored review matched
per record, snapshots that print short, views without family keys when none is marked."""

from __future__ import annotations

import contextlib
import gc
import time
from collections.abc import Callable, Iterator

import pytest

from ditto_tui.core.families.listing import FamilyListing
from ditto_tui.core.review.decisions import identity_of
from ditto_tui.explore import Explorer, MemorySource, listings, process_tuning
from ditto_tui.explore.review import ReviewState, key_of
from ditto_tui.explore.review_service import _Identities
from ditto_tui.explore.snapshot import Snapshot
from ditto_tui.explore.view import ViewRequest, build_view


def fingerprints(n: int) -> dict[str, int]:
    return {f"d/{i:05d}": (i // 3) * 0x0101_0101_0101_0101 ^ (i % 3) for i in range(n)}


@contextlib.contextmanager
def settled_explorer(n: int) -> Iterator[Explorer]:
    """An explorer over ``n`` documents in memory, its scan applied; closed after."""
    explorer = Explorer(MemorySource(fingerprints(n)), watch=False)
    explorer.start()
    try:
        assert explorer.wait_idle(30)
        yield explorer
    finally:
        explorer.close()


def test_the_heap_is_frozen_while_a_scan_loads_and_handed_back_after() -> None:
    gc.unfreeze()
    thresholds = gc.get_threshold()
    source = MemorySource(fingerprints(600), batch=100, delay=0.05)
    seen: list[tuple[int, tuple[int, int, int]]] = []
    explorer = Explorer(source, watch=False)
    explorer.on_event = lambda _e: seen.append((gc.get_freeze_count(), gc.get_threshold()))
    explorer.start()
    try:
        assert explorer.wait_idle(30)
        assert max(count for count, _ in seen) > 0  # frozen while loading
        assert max(t[2] for _, t in seen) >= process_tuning.GC_BULK_FULL
        # a small corpus, no UI: handed back at the end, thresholds as they were
        assert gc.get_freeze_count() == 0
        assert gc.get_threshold() == thresholds
    finally:
        explorer.close()
        gc.unfreeze()


def test_cyclic_garbage_made_during_a_scan_is_still_collected() -> None:
    import weakref

    class Node:
        pass

    gc.unfreeze()
    source = MemorySource(fingerprints(600), batch=50, delay=0.05)
    explorer = Explorer(source, watch=False)
    progressed: list[int] = []
    explorer.on_event = lambda _e: progressed.append(1)
    explorer.start()
    try:
        node = Node()
        node.me = node  # type: ignore[attr-defined]
        ref = weakref.ref(node)
        del node
        deadline = time.monotonic() + 10
        while len(progressed) < 4 and time.monotonic() < deadline:
            time.sleep(0.01)  # (progress reports while it is garbage)
        assert explorer.scanning
        gc.collect()
        assert ref() is None
        assert explorer.wait_idle(30)
    finally:
        explorer.close()
        gc.unfreeze()


def warming_explorer(monkeypatch: pytest.MonkeyPatch) -> Explorer:
    """A started explorer over 300 documents that counts as large (frozen once warm),
    warming its listings at once, asked for the view at k=1."""
    gc.unfreeze()
    monkeypatch.setattr(process_tuning, "FREEZE_FROM", 100)
    monkeypatch.setattr(listings, "WARM_AFTER", 0.0)
    explorer = Explorer(MemorySource(fingerprints(300), batch=100), watch=False, max_k=2)
    explorer.request_view(ViewRequest(k=1))
    explorer.start()
    return explorer


def wait_warm(explorer: Explorer, also: Callable[[], bool] = lambda: True) -> None:
    """Until every listing is warm (and ``also()``), at most 30 s."""
    assert explorer.wait_idle(30)
    deadline = time.monotonic() + 30
    while (explorer._writer.warming or not also()) and time.monotonic() < deadline:
        time.sleep(0.01)


def test_a_large_corpus_stays_frozen_once_warm(monkeypatch: pytest.MonkeyPatch) -> None:
    explorer = warming_explorer(monkeypatch)
    try:
        wait_warm(explorer)
        explorer.wait_idle(30)
        assert gc.get_freeze_count() > 0
    finally:
        explorer.close()
        gc.unfreeze()


def test_garbage_alive_when_a_warm_corpus_settles_again_is_still_collected(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import weakref

    class Node:
        pass

    gc.unfreeze()
    monkeypatch.setattr(process_tuning, "FREEZE_FROM", 100)
    monkeypatch.setattr(listings, "WARM_AFTER", 0.0)
    freezes: list[int] = []  # (the count of frozen objects may even drop: the k=1 view's
    freeze_heap = process_tuning.freeze_heap  # frozen objects die when k=2 replaces it)

    def counted(documents: int) -> None:
        freezes.append(documents)
        freeze_heap(documents)

    monkeypatch.setattr(process_tuning, "freeze_heap", counted)
    source = MemorySource(fingerprints(300), batch=100)
    explorer = Explorer(source, watch=True, max_k=2)

    def settle() -> None:
        deadline = time.monotonic() + 30
        while explorer._writer.warming and time.monotonic() < deadline:
            time.sleep(0.01)
        assert explorer.wait_idle(30)

    explorer.request_view(ViewRequest(k=1))
    explorer.start()
    try:
        assert explorer.wait_idle(30)
        settle()
        assert gc.get_freeze_count() > 0
        before = len(freezes)
        assert before > 0
        gc.disable()  # (no automatic collection may find it first)
        try:
            node = Node()
            node.me = node  # type: ignore[attr-defined]
            ref = weakref.ref(node)
            del node
            source.write({"d/new": 12345})  # a change: warmed again, then settled again
            settle()
            deadline = time.monotonic() + 10
            while len(freezes) == before and time.monotonic() < deadline:
                time.sleep(0.01)
            assert len(freezes) > before  # (it did freeze again)
        finally:
            gc.enable()
        gc.collect()
        assert ref() is None  # collected, not frozen with the rest
    finally:
        explorer.close()
        gc.unfreeze()


def test_keys_on_a_warm_corpus_do_not_settle_the_heap_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A settle collects the young generations holding the GIL: once every listing is
    warm, a key (a new view request) finds nothing new to freeze and must not pay it."""
    freezes: list[int] = []
    freeze_heap = process_tuning.freeze_heap
    monkeypatch.setattr(process_tuning, "freeze_heap",
                        lambda n: (freezes.append(n), freeze_heap(n))[1])
    explorer = warming_explorer(monkeypatch)
    try:
        wait_warm(explorer, lambda: bool(freezes))
        settled = len(freezes)
        assert settled > 0
        for k in (2, 0, 1, 2):
            explorer.request_view(ViewRequest(k=k))
            time.sleep(0.05)
            assert explorer.wait_idle(30)
        assert len(freezes) == settled
    finally:
        explorer.close()
        gc.unfreeze()


def test_identities_are_computed_on_access_and_equal_the_full_map() -> None:
    source = MemorySource(fingerprints(50))
    source.scan()
    docs, fps = source.documents, dict(source.fingerprints)  # (the same ids: one moment)
    lazy = _Identities(docs, fps)
    full = {i: identity_of(docs[i], fp) for i, fp in fps.items()}
    assert dict(lazy.items()) == full
    assert len(lazy) == len(full) and "gone" not in lazy and lazy.get("gone") is None
    assert lazy["d/00007"] == full["d/00007"]


def test_a_snapshot_prints_short() -> None:
    snap = Snapshot(3, 1, 8, fingerprints={f"d{i}": i for i in range(10_000)})
    text = repr(snap)
    assert len(text) < 120 and "documents=10000" in text


def test_a_view_without_marked_families_has_the_same_counts_and_keys() -> None:
    with settled_explorer(90) as explorer:
        listing = explorer.families(1)
        assert isinstance(listing, FamilyListing)
        snap = explorer.snapshot
        unmarked = ReviewState(active=True)
        marked = ReviewState(active=True, reviewed=frozenset({"no such key"}))
        for request in (ViewRequest(k=1), ViewRequest(k=1, singletons=True),
                        ViewRequest(k=1, pattern="d/0001")):
            views = [
                build_view(listing, request, snap.documents, generation=snap.generation,
                           epoch=snap.epoch, total=len(snap), review=review,
                           fingerprints=snap.fingerprints)
                for review in (unmarked, marked)
            ]
            fast, full = views
            assert list(fast.families) == list(full.families)
            assert (fast.reviewed, fast.reviewable) == (full.reviewed, full.reviewable)
            assert list(fast.keys) == list(full.keys)
            multi = [f for f in fast.families if f.size > 1]
            assert multi and fast.keys[0] == key_of(
                fast.families[0].members, snap.documents, snap.fingerprints)


def test_the_first_view_after_an_empty_one_counts_every_family_new() -> None:
    with settled_explorer(90) as explorer:
        listing = explorer.families(1)
        snap = explorer.snapshot
        request = ViewRequest(k=1, singletons=True)
        empty = build_view(FamilyListing(), request, {}, generation=snap.generation - 1,
                           epoch=snap.epoch, total=0)
        view = build_view(listing, request, snap.documents, generation=snap.generation,
                          epoch=snap.epoch, total=len(snap), previous=empty)
        assert view.delta is not None and view.delta.new == listing.multi_count > 0
        assert (view.delta.gone, view.delta.changed, view.delta.grew) == (0, 0, 0)
        assert len(set(view.identity)) == len(view.families)
        assert not set(view.identity) & set(empty.identity)
        assert view.row_of[listing[0].members[-1]] == 0
