"""Snapshots share the writer's id -> fingerprint map until the next change (copy on
write): a published snapshot never changes, and publishing copies nothing."""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ditto_tui.corpus.documents import ChangeBatch, Document
from ditto_tui.explore import Explorer, MemorySource
from ditto_tui.explore.contents import Contents
from tests.properties import examples


def test_a_snapshot_keeps_its_fingerprints_and_shares_them_until_a_change():
    disk = {f"d{i}": i << 8 for i in range(50)}
    source = MemorySource(disk, batch=7)
    explorer = Explorer(source, max_k=3)
    explorer.start()
    try:
        assert explorer.wait_idle()
        first = explorer.snapshot
        assert dict(first.fingerprints) == disk
        explorer.call(explorer._writer._publish)  # a publication without a change
        second = explorer.snapshot
        assert second.generation > first.generation
        assert explorer._writer.corpus.contents.published
        source.write({"d0": 12345, "new": 99})
        source.delete(["d1"])
        assert explorer.wait_idle()
        third = explorer.snapshot
        assert dict(first.fingerprints) == disk  # untouched by the later changes
        assert dict(second.fingerprints) == disk
        assert dict(third.fingerprints) == source.disk
    finally:
        explorer.close()


def counted_rebuilds(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The sizes of the index's rebuilds from now on; scans held in bulk from 400
    documents (10,000 in the app)."""
    from ditto_tui.core.index.near_index import NearIndex
    from ditto_tui.explore import pacing

    rebuilds: list[int] = []
    original = NearIndex._rebuild

    def counting(self, ids, fps, given=None):  # type: ignore[no-untyped-def]
        rebuilds.append(len(ids))
        return original(self, ids, fps, given)

    monkeypatch.setattr(NearIndex, "_rebuild", counting)
    monkeypatch.setattr(pacing, "HOLD_BULK", 400)
    return rebuilds


def test_a_scan_about_to_end_is_applied_in_one_index_rebuild(monkeypatch):
    """Scan batches arriving faster than the scan will last wait for its end: one bulk
    rebuild of the index, not one each time the content doubles."""
    rebuilds = counted_rebuilds(monkeypatch)
    disk = {f"d{i:05d}": (i * 0x9E3779B97F4A7C15) % (1 << 64) for i in range(6000)}
    explorer = Explorer(MemorySource(disk, batch=500), max_k=3, watch=False)
    explorer.start()
    try:
        assert explorer.wait_idle()
        assert dict(explorer.snapshot.fingerprints) == disk
        assert rebuilds == [6000]
    finally:
        explorer.close()


def test_the_periodic_review_check_leaves_held_scan_batches_held(monkeypatch):
    """The review store is checked every second through the writer; that call does not
    read the index, so it must not apply the scan batches the pacer holds (at a million
    files that was a rebuild of everything each second)."""
    import threading
    import time

    rebuilds = counted_rebuilds(monkeypatch)
    disk = {f"d{i:05d}": (i * 0x9E3779B97F4A7C15) % (1 << 64) for i in range(6000)}
    explorer = Explorer(MemorySource(disk, batch=500, delay=0.02), max_k=3, watch=False)
    stop = threading.Event()

    def check_often() -> None:
        while not stop.is_set():
            explorer.refresh_review()
            time.sleep(0.002)

    checker = threading.Thread(target=check_often)
    explorer.start()
    checker.start()
    try:
        assert explorer.wait_idle()
        assert dict(explorer.snapshot.fingerprints) == disk
        assert rebuilds == [6000]
    finally:
        stop.set()
        checker.join()
        explorer.close()


def _record(doc_id: str, size: int) -> Document:
    return Document(doc_id, "/" + doc_id, "text", size, 0, 0)


_ops = st.lists(
    st.tuples(
        st.sampled_from(["add", "change", "touch", "remove", "publish"]),
        st.lists(st.integers(0, 12), min_size=1, max_size=4),
        st.integers(1, 9),
    ),
    max_size=30,
)


@settings(max_examples=examples(300), deadline=None)
@given(_ops)
def test_published_records_never_change_and_always_match_their_fingerprints(
    ops: list[tuple[str, list[int], int]],
) -> None:
    """Whatever the writer does after a publish (documents added, changed, re-read with
    the same fingerprint, removed), each published snapshot keeps exactly the records of
    its own fingerprints, as they were (reference: a deep copy at publish time)."""
    contents = Contents()
    fps: dict[str, int] = {}
    docs: dict[str, Document] = {}
    published: list[tuple[Mapping[str, int], Mapping[str, Document], dict[str, int],
                          dict[str, Document]]] = []
    for kind, numbers, size in ops:
        ids = [f"d{n}" for n in numbers]
        if kind == "publish":
            got_fps, got_docs = contents.publish()
            published.append((got_fps, got_docs, dict(fps), dict(docs)))
            continue
        if kind == "remove":
            for doc_id in ids:
                contents.removed(doc_id)
                fps.pop(doc_id, None)
                docs.pop(doc_id, None)
            continue
        given = {i: hash((i, size)) & 0xFFFF for i in ids}
        records = {i: _record(i, size) for i in ids}
        if kind == "touch":  # re-read, same fingerprint: records only (of known ids)
            given = {i: fps[i] for i in ids if i in fps}
            records = {i: r for i, r in records.items() if i in fps}
            batch = ChangeBatch(documents=records)
        else:
            batch = ChangeBatch(**{"added" if kind == "add" else "changed": given},
                                documents=records)
        contents.update(batch)
        fps.update(given)
        docs.update(records)
    for got_fps, got_docs, want_fps, want_docs in published:
        assert dict(got_fps) == want_fps
        assert dict(got_docs) == want_docs
        assert set(got_docs) == set(got_fps) and len(got_docs) == len(want_docs)
        for doc_id in (f"d{n}" for n in range(13)):
            assert got_docs.get(doc_id) == want_docs.get(doc_id)
            assert (doc_id in got_docs) == (doc_id in want_docs)
    assert dict(contents.records()) == docs and dict(contents.fingerprints) == fps


def test_a_scan_that_only_adds_never_copies_the_records() -> None:
    """A publish after every batch of a scan copies the fingerprints on the next batch
    (copy on write), never the records: at 1M documents that copy was ~40 MB each time."""
    contents = Contents()
    first_records = None
    for start in range(0, 100, 10):
        ids = [f"d{i:03d}" for i in range(start, start + 10)]
        contents.update(ChangeBatch(added={i: 1 for i in ids},
                                    documents={i: _record(i, 1) for i in ids}))
        _, records = contents.publish()
        assert isinstance(records, Mapping) and len(records) == start + 10
        first_records = first_records if first_records is not None else contents._docs
        assert contents._docs is first_records


def test_records_of_many_removed_documents_do_not_stay_hidden_for_good() -> None:
    """Removals after a publish hide records instead of copying the map; once the hidden
    ones are many (over a quarter of the corpus, at least 1,024) the writer copies the
    map without them, and the published snapshot still sees all of its own."""
    contents = Contents()
    ids = [f"d{i:04d}" for i in range(2000)]
    contents.update(ChangeBatch(added={i: 1 for i in ids},
                                documents={i: _record(i, 1) for i in ids}))
    fps, records = contents.publish()
    for doc_id in ids[:1100]:
        contents.removed(doc_id)
    assert len(contents._docs) == 900 == len(contents.fingerprints)
    assert len(records) == 2000 and all(records[i].id == i for i in ids)
    assert dict(contents.records()) == {i: records[i] for i in ids[1100:]}
