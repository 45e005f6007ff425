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
        explorer.call(explorer._publish)  # a publication without a change
        second = explorer.snapshot
        assert second.generation > first.generation
        assert explorer._fps_published
        source.write({"d0": 12345, "new": 99})
        source.delete(["d1"])
        assert explorer.wait_idle()
        third = explorer.snapshot
        assert dict(first.fingerprints) == disk  # untouched by the later changes
        assert dict(second.fingerprints) == disk
        assert dict(third.fingerprints) == source.disk
    finally:
        explorer.close()
