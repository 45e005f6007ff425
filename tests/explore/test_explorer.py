"""The explorer's ordered writer: snapshots, views and the end of the scan/watch race."""

from __future__ import annotations

import random
import threading
import time
from pathlib import Path

import pytest

from ditto_tui.core.fingerprint.pipeline import make_pipeline
from ditto_tui.corpus.session import CorpusSession
from ditto_tui.explore import Explorer, MemorySource, ViewRequest
from ditto_tui.explore.events import ViewBuilt
from ditto_tui.explore.writer import ExplorerStopped
from tests.explore.conftest import wait_until

from ..core.index_reference import ref_clusters, ref_near


def families_of(explorer: Explorer, k: int) -> list[list[str]]:
    """The families of 2+ members the explorer's index holds at ``k``, as sorted lists."""
    out: list[list[str]] = []
    out.extend(list(f.members) for f in explorer.families(k) if f.size > 1)
    return sorted(out)


def reference(fps: dict[str, int], k: int) -> list[list[str]]:
    ids = sorted(fps)
    return sorted(sorted(c) for c in ref_clusters(ids, [fps[i] for i in ids], k, 2))


def noisy(rng: random.Random, base: int, bits: int) -> int:
    for _ in range(bits):
        base ^= 1 << rng.randrange(64)
    return base


def test_scan_then_watch_batches_end_equal_to_the_disk():
    rng = random.Random(1)
    bases = [rng.getrandbits(64) for _ in range(20)]
    disk = {f"d{i:03d}": noisy(rng, bases[i % 20], rng.randrange(4)) for i in range(200)}
    source = MemorySource(disk, batch=17)
    explorer = Explorer(source, max_k=4)
    explorer.start()
    try:
        assert explorer.wait_idle()
        assert dict(explorer.snapshot.fingerprints) == disk
        source.write({"d000": bases[5], "new": noisy(rng, bases[6], 1)})
        source.delete(["d001", "d002"])
        assert explorer.wait_idle()
        assert dict(explorer.snapshot.fingerprints) == source.disk
        assert families_of(explorer, 3) == reference(source.disk, 3)
        snap = explorer.snapshot
        fp = source.disk["new"]
        assert [(m.distance, m.id) for m in snap.near(fp, 3)] == ref_near(source.disk, fp, 3, 4)
    finally:
        explorer.close()


def test_questions_to_a_closed_explorer_say_so():
    """A worker still asking (the k chart, the links screen) while the app quits gets
    ExplorerStopped, never an IndexError that would crash the app."""
    explorer = Explorer(MemorySource({"a": 1, "b": 3}), max_k=4)
    explorer.start()
    assert explorer.wait_idle()
    assert int(explorer.near_graph().counts.sum()) == 2
    explorer.close()
    with pytest.raises(ExplorerStopped):
        explorer.near_graph()
    with pytest.raises(ExplorerStopped):
        explorer.families(1)


def test_the_writer_waits_while_a_scan_runs():
    """With a view requested and a slow scan under way there is nothing to warm: the
    writer must block on its queue, not poll it with a zero timeout (that spin held the
    GIL and made a 99-file cold scan take 10 s in the app)."""
    disk = {f"d{i}": i * 0x9E3779B97F4A7C15 % 2**64 for i in range(40)}
    explorer = Explorer(MemorySource(disk, batch=4, delay=0.05), max_k=4, watch=False)
    polls = 0
    get = explorer._writer._ops.get

    def counting_get(*args, **kwargs):
        nonlocal polls
        polls += 1
        return get(*args, **kwargs)

    explorer._writer._ops.get = counting_get  # type: ignore[method-assign]
    explorer.request_view(ViewRequest(k=2, serial=1))
    explorer.start()
    try:
        wait_until(lambda: explorer.scanning)
        time.sleep(0.3)  # ~6 batches arrive: a few dozen wake-ups at most
        during = polls
        assert during < 200, f"{during} queue polls in 0.3 s of scanning"
        assert explorer.wait_idle()
    finally:
        explorer.close()


def test_views_arrive_for_the_latest_request_only():
    rng = random.Random(2)
    base = rng.getrandbits(64)
    disk = {f"f{i}": noisy(rng, base, 2) for i in range(30)} | {
        f"s{i}": rng.getrandbits(64) for i in range(100)
    }
    source = MemorySource(disk)
    views = []
    explorer = Explorer(source, max_k=8, watch=False, on_event=lambda e: isinstance(e, ViewBuilt) and views.append(e.view))
    explorer.start()
    try:
        for serial, k in enumerate((1, 2, 3, 4, 5, 6), start=1):
            explorer.request_view(ViewRequest(k=k, serial=serial))
        wait_until(lambda: views and views[-1].request.serial == 6)
        serials = [v.request.serial for v in views]
        assert serials == sorted(serials)
        last = views[-1]
        assert last.request.k == 6
        assert sorted(sorted(f.members) for f in last.families) == reference(disk, 6)
        assert all(last.row_of[m] == row for row, f in enumerate(last.families) for m in f.members)
        explorer.request_view(ViewRequest(k=6, pattern="f1", singletons=True, serial=7))
        wait_until(lambda: views[-1].request.serial == 7)
        assert all(any("f1" in m for m in f.members) for f in views[-1].families)
    finally:
        explorer.close()


def test_live_change_keeps_family_identity_and_counts_it():
    rng = random.Random(3)
    base = rng.getrandbits(64)
    disk = {f"fam/{i}": noisy(rng, base, 1) for i in range(5)} | {"lone": rng.getrandbits(64)}
    source = MemorySource(disk)
    views = []
    explorer = Explorer(source, max_k=4, on_event=lambda e: isinstance(e, ViewBuilt) and views.append(e.view))
    explorer.start()
    try:
        explorer.request_view(ViewRequest(k=3, serial=1))
        wait_until(lambda: views and views[-1].multi == 1 and views[-1].families[0].size == 5)
        identity = views[-1].identity[0]
        source.delete([views[-1].families[0].centre])
        wait_until(lambda: views[-1].families and views[-1].families[0].size == 4)
        assert views[-1].identity[0] == identity
        assert views[-1].delta is not None and views[-1].delta.removed == 1
        assert (views[-1].delta.shrank, views[-1].delta.changed) == (1, 0)
        assert views[-1].delta.describe() == "1 removed, 1 family shrank"
    finally:
        explorer.close()


# -- the race: an F5 rescan and watcher bursts interleaved -------------------------------
WORDS = ["tide", "harbour", "boat", "chart", "port", "sync", "engine", "offline", "club", "price", "release", "version", "quay"]


def text(rng: random.Random, family: int) -> str:
    r = random.Random(family)
    words = [r.choice(WORDS) for _ in range(60)]
    for _ in range(rng.randrange(3)):
        words[rng.randrange(len(words))] = rng.choice(WORDS)
    return " ".join(words) + "\n"


def test_rescans_interleaved_with_watch_bursts_end_equal_to_a_fresh_scan(tmp_path: Path):
    """F5 rescans run back to back while a writer rewrites, deletes and renames a few
    files many times: whatever the interleaving, the index ends equal to a fresh scan."""
    root = tmp_path / "tree"
    root.mkdir()
    rng = random.Random(11)
    for i in range(12):
        (root / f"f{i:02d}.txt").write_text(text(rng, i % 4))
    pipeline = make_pipeline()
    session = CorpusSession(root, pipeline, use_cache=False, jobs=1, reconcile_every=None)
    explorer = Explorer(session, max_k=4, watch=True)
    explorer.start()
    try:
        assert explorer.wait_idle()
        for _round in range(8):
            stop = threading.Event()

            def rescans(stop: threading.Event = stop) -> None:
                while not stop.is_set():
                    explorer.rescan()
                    time.sleep(0.002)

            scanner = threading.Thread(target=rescans)
            scanner.start()
            for _ in range(20):
                name = root / f"f{rng.randrange(6):02d}.txt"
                action = rng.random()
                if action < 0.7:
                    name.write_text(text(rng, rng.randrange(8)))
                elif action < 0.85 and name.exists():
                    name.unlink()
                elif name.exists():
                    name.rename(root / f"f{rng.randrange(6):02d}.txt")
                time.sleep(rng.random() * 0.01)
            stop.set()
            scanner.join()
            fresh = CorpusSession(root, pipeline, use_cache=False, jobs=1)
            fresh.scan()
            expected = {i: int(fp) for i, fp in fresh.fingerprints.items()}
            fresh.close()
            # the watcher settles (quiet period + delivery); then the index equals the tree
            wait_until(
                lambda: not explorer.scanning
                and dict(explorer.snapshot.fingerprints) == expected,  # noqa: B023
                timeout=5,
            )
        assert explorer.wait_idle()
        assert dict(explorer.snapshot.fingerprints) == expected
        assert families_of(explorer, 3) == reference(expected, 3)
    finally:
        explorer.close()
        session.close()


@pytest.mark.parametrize("seed", [5, 6])
def test_memory_rescans_and_bursts_interleaved(seed: int):
    rng = random.Random(seed)
    bases = [rng.getrandbits(64) for _ in range(10)]
    source = MemorySource({f"d{i}": noisy(rng, bases[i % 10], 2) for i in range(300)}, batch=7)
    explorer = Explorer(source, max_k=4)
    explorer.start()
    try:
        for _round in range(30):
            def burst() -> None:
                for _ in range(20):
                    doc = f"d{rng.randrange(330)}"
                    if rng.random() < 0.8:
                        source.write({doc: noisy(rng, bases[rng.randrange(10)], rng.randrange(4))})
                    else:
                        source.delete([doc])

            writer = threading.Thread(target=burst)
            writer.start()
            wait_until(explorer.rescan, timeout=10)
            writer.join()
        assert explorer.wait_idle()
        assert dict(explorer.snapshot.fingerprints) == source.disk
        assert families_of(explorer, 4) == reference(source.disk, 4)
    finally:
        explorer.close()


def test_a_rename_is_reported_as_one_and_keeps_the_selection():
    rng = random.Random(5)
    base = rng.getrandbits(64)
    disk = {f"fam/{i}": noisy(rng, base, 1) for i in range(4)}
    source = MemorySource(disk)
    views = []
    explorer = Explorer(source, max_k=4, on_event=lambda e: isinstance(e, ViewBuilt) and views.append(e.view))
    explorer.start()
    try:
        explorer.request_view(ViewRequest(k=3, serial=1, keep="fam/2"))
        wait_until(lambda: views and views[-1].multi == 1 and views[-1].families[0].size == 4)
        identity = views[-1].identity[0]
        source.rename("fam/2", "fam/2-renamed")
        wait_until(lambda: "fam/2-renamed" in views[-1].families[0].members)
        delta = views[-1].delta
        assert delta is not None
        assert delta.describe() == "1 renamed"  # not "1 new, 1 removed, 1 family changed"
        assert delta.renames == {"fam/2": "fam/2-renamed"}
        assert views[-1].identity[0] == identity
        assert views[-1].keep_row == 0  # the request's document, under its new name
    finally:
        explorer.close()


def test_pair_renames_is_one_to_one_by_fingerprint():
    from ditto_tui.explore.view import pair_renames

    assert pair_renames({"a": 1, "b": 1, "c": 2}, {"x": 1, "y": 3, "z": 1}) == {"a": "x", "b": "z"}
    assert pair_renames({"a": 1}, {"b": 2}) == {}
