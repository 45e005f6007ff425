"""Snapshots share the writer's id -> fingerprint map until the next change (copy on
write): a published snapshot never changes, and publishing copies nothing."""

from __future__ import annotations

from ditto_tui.explore import Explorer, MemorySource


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
        assert explorer._writer.contents.published
        source.write({"d0": 12345, "new": 99})
        source.delete(["d1"])
        assert explorer.wait_idle()
        third = explorer.snapshot
        assert dict(first.fingerprints) == disk  # untouched by the later changes
        assert dict(second.fingerprints) == disk
        assert dict(third.fingerprints) == source.disk
    finally:
        explorer.close()


def test_a_scan_about_to_end_is_applied_in_one_index_rebuild(monkeypatch):
    """Scan batches arriving faster than the scan will last wait for its end: one bulk
    rebuild of the index, not one each time the content doubles."""
    from ditto_tui.core.index.near_index import NearIndex
    from ditto_tui.explore import pacing

    rebuilds: list[int] = []
    original = NearIndex._rebuild

    def counting(self, ids, fps, given=None):  # type: ignore[no-untyped-def]
        rebuilds.append(len(ids))
        return original(self, ids, fps, given)

    monkeypatch.setattr(NearIndex, "_rebuild", counting)
    monkeypatch.setattr(pacing, "HOLD_BULK", 400)  # (10,000 in the app)
    disk = {f"d{i:05d}": (i * 0x9E3779B97F4A7C15) % (1 << 64) for i in range(6000)}
    explorer = Explorer(MemorySource(disk, batch=500), max_k=3, watch=False)
    explorer.start()
    try:
        assert explorer.wait_idle()
        assert dict(explorer.snapshot.fingerprints) == disk
        assert rebuilds == [6000]
    finally:
        explorer.close()
