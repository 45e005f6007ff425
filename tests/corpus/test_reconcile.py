"""Changes inotify never reported are still found, and an idle reconcile touches little.

The watcher's reconcile (``deliver(set(), "reconcile")``) is called here directly, or by a
watcher whose events are thrown away: what a missed event looks like.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from ditto_tui.corpus.documents import ScanOptions
from ditto_tui.corpus.session import CorpusSession

from .conftest import TEXT_A, TEXT_B, wait_for, write


def truth(root: Path, pipeline, options: ScanOptions | None = None) -> tuple[dict, dict]:
    """What a fresh scan of the folder finds: fingerprints and skip reasons by id."""
    with CorpusSession(
        root, pipeline, options=options or ScanOptions(), use_cache=False, jobs=1,
        reconcile_every=None,
    ) as fresh:
        fresh.scan()
        return dict(fresh.fingerprints), {s.id: s.reason for s in fresh.skipped}


def state(session: CorpusSession) -> tuple[dict, dict]:
    return dict(session.fingerprints), {s.id: s.reason for s in session.skipped}


def reconcile(session: CorpusSession) -> None:
    """What the watcher does every ``reconcile_every`` seconds."""
    session._deliver(set(), "reconcile")


def later(path: Path) -> None:
    """Move a file's mtime on (a rewrite within one clock tick could keep it)."""
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


def tree(root: Path) -> None:
    write(root, "a/one.txt", TEXT_A + " one")
    write(root, "a/two.txt", TEXT_B + " two")
    write(root, "b/deep/three.txt", TEXT_A + " three")
    write(root, "top.txt", TEXT_B + " top")


def new_file_in_existing_folder(root: Path) -> None:
    write(root, "a/new.txt", TEXT_B + " new")


def deleted_file(root: Path) -> None:
    os.unlink(root / "a/two.txt")


def same_size_content_change(root: Path) -> None:
    path = root / "a/one.txt"
    before = path.read_bytes()
    path.write_bytes(before.replace(b"one", b"eno"))
    assert path.stat().st_size == len(before)
    later(path)


def new_folder_with_files(root: Path) -> None:
    write(root, "b/fresh/x.txt", TEXT_A + " x")
    write(root, "b/fresh/y/z.txt", TEXT_B + " z")


def renamed_file(root: Path) -> None:
    os.rename(root / "a/one.txt", root / "b/deep/moved.txt")


def renamed_folder(root: Path) -> None:
    os.rename(root / "b/deep", root / "a/deeper")


def replaced_by_rename(root: Path) -> None:
    write(root, "a/.one.txt.tmp", TEXT_B + " saved")  # an editor's atomic save
    os.replace(root / "a/.one.txt.tmp", root / "a/one.txt")


def broken_link_mended(root: Path) -> None:
    (root / "b/target.txt").write_text(TEXT_A + " target")


MISSED: dict[str, Callable[[Path], None]] = {
    "a new file in an existing folder": new_file_in_existing_folder,
    "a deleted file": deleted_file,
    "a content change of the same size": same_size_content_change,
    "a new folder with files": new_folder_with_files,
    "a renamed file": renamed_file,
    "a renamed folder": renamed_folder,
    "a file replaced by a rename": replaced_by_rename,
    "a broken symlink whose target appears": broken_link_mended,
}


@pytest.mark.parametrize("change", MISSED.values(), ids=list(MISSED))
def test_one_reconcile_finds_a_change_inotify_missed(
    root: Path, pipeline, change: Callable[[Path], None]
) -> None:
    tree(root)
    os.symlink("target.txt", root / "b/link.txt")  # broken until its target appears
    with CorpusSession(root, pipeline, use_cache=False, jobs=1, reconcile_every=None) as s:
        s.scan()
        assert state(s) == truth(root, pipeline)
        change(root)  # no watcher runs: no event will ever tell
        reconcile(s)
        assert state(s) == truth(root, pipeline)


def test_an_empty_file_filled_in_place_is_found(root: Path, pipeline) -> None:
    options = ScanOptions(skip_empty=True)
    tree(root)
    write(root, "a/empty.txt", b"")
    with CorpusSession(root, pipeline, options=options, use_cache=False, jobs=1,
                       reconcile_every=None) as s:
        s.scan()
        assert s.skipped[0].reason == "empty file"
        with open(root / "a/empty.txt", "w") as f:  # in place: its folder does not change
            f.write(TEXT_A + " filled")
        reconcile(s)
        assert state(s) == truth(root, pipeline, options)
        assert "a/empty.txt" in s.fingerprints


def many(root: Path, folders: int = 6, per_folder: int = 100) -> list[Path]:
    return [
        write(root, f"d{i}/f{i}-{j:03}.txt", f"{TEXT_A[:80]} {i} {j}")
        for i in range(folders) for j in range(per_folder)
    ]


def files_per_call(monkeypatch, n: int) -> None:
    """Re-stat ``n`` known files per reconcile (where the reconcile works by slices), and
    trust the stamps of folders made a moment ago (as if the test had waited)."""
    try:
        from ditto_tui.corpus import reconcile as module
    except ImportError:  # a reconcile that walks everything
        return
    monkeypatch.setattr(module, "FILES_PER_CALL", n)
    monkeypatch.setattr(module, "_RACY_NS", 0)


def count_stats(monkeypatch) -> list[str]:
    """Every name or path given to ``os.stat`` (``lstat`` included) from now on."""
    seen: list[str] = []
    real_stat, real_lstat = os.stat, os.lstat

    def stat(path, *args, **kwargs):
        seen.append(os.fspath(path) if not isinstance(path, int) else "<fd>")
        return real_stat(path, *args, **kwargs)

    def lstat(path, *args, **kwargs):
        seen.append(os.fspath(path))
        return real_lstat(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", stat)
    monkeypatch.setattr(os, "lstat", lstat)
    return seen


def test_an_idle_reconcile_stats_folders_and_a_slice_of_files(
    root: Path, pipeline, monkeypatch
) -> None:
    files = many(root)
    files_per_call(monkeypatch, 100)
    with CorpusSession(root, pipeline, use_cache=False, jobs=1, reconcile_every=None) as s:
        s.scan()
        seen = count_stats(monkeypatch)
        reconcile(s)
        looked_at = [p for p in seen if p.endswith(".txt")]
        # not every file each time: a slice of them (plus the folders' own stamps)
        assert len(looked_at) <= 150 < len(files)
        for _ in range(len(files) // 100):
            reconcile(s)
        # ...yet every file is looked at within a few calls
        assert {os.path.basename(p) for p in seen} >= {f.name for f in files}


def test_an_idle_reconcile_re_walks_nothing(root: Path, pipeline, monkeypatch) -> None:
    many(root, folders=3, per_folder=20)
    with CorpusSession(root, pipeline, use_cache=False, jobs=1, reconcile_every=None) as s:
        s.scan()
        walks: list[object] = []
        walk = s._walker.walk
        monkeypatch.setattr(s._walker, "walk", lambda *a, **kw: walks.append(a) or walk(*a, **kw))
        batches: list[object] = []
        s._on_change = batches.append
        for _ in range(3):
            reconcile(s)
        assert walks == [] and batches == []
        write(root, "d1/late.txt", TEXT_B + " late")
        reconcile(s)
        assert walks and all(a and a[0] for a in walks)  # only what changed, never the root
        assert [list(b.added) for b in batches] == [["d1/late.txt"]]


def test_a_slow_rolling_slice_still_finds_an_in_place_change(
    root: Path, pipeline, monkeypatch
) -> None:
    files = many(root, folders=4, per_folder=50)
    files_per_call(monkeypatch, 30)
    with CorpusSession(root, pipeline, use_cache=False, jobs=1, reconcile_every=None) as s:
        s.scan()
        victim = files[-1]
        victim.write_bytes(victim.read_bytes().replace(b"The", b"Teh"))
        later(victim)
        for _ in range(-(-len(files) // 30)):
            reconcile(s)
        assert state(s) == truth(root, pipeline)


def test_watching_without_events_follows_the_folder(root: Path, pipeline, monkeypatch) -> None:
    tree(root)
    with CorpusSession(root, pipeline, use_cache=False, jobs=1, reconcile_every=0.2) as s:
        s.scan()
        s.start_watching(lambda batch: None)
        # every event is lost (a network mount, a watch set too late)
        monkeypatch.setattr(s._watcher, "note_paths", lambda *a, **kw: None)
        new_folder_with_files(root)
        deleted_file(root)
        renamed_folder(root)
        want = truth(root, pipeline)
        assert wait_for(lambda: state(s) == want)


def test_stopping_ends_a_reconcile_in_progress(root: Path, pipeline, monkeypatch) -> None:
    from ditto_tui.corpus import reconcile as module

    many(root, folders=2, per_folder=50)
    monkeypatch.setattr(module, "RUN_SECONDS", 0.0)
    with CorpusSession(root, pipeline, use_cache=False, jobs=1, reconcile_every=None) as s:
        s.scan()
        found = s._reconciler.find_changes(
            s._files, s._skips, unchanged=lambda r: True, cancelled=lambda: True
        )
        assert not found.complete


def test_after_events_were_applied_a_reconcile_re_walks_nothing(
    root: Path, pipeline, monkeypatch
) -> None:
    tree(root)
    with CorpusSession(root, pipeline, use_cache=False, jobs=1, reconcile_every=None) as s:
        s.scan()
        s.start_watching(lambda batch: None)
        new_folder_with_files(root)
        renamed_folder(root)
        deleted_file(root)
        want = truth(root, pipeline)
        assert wait_for(lambda: state(s) == want)
        time.sleep(0.5)  # the last events are in
        walks: list[object] = []
        walk = s._walker.walk
        monkeypatch.setattr(s._walker, "walk", lambda *a, **kw: walks.append(a) or walk(*a, **kw))
        reconcile(s)
        reconcile(s)
        assert walks == []  # what the events re-walked was recorded: nothing looks changed
        assert state(s) == want


def test_a_reconcile_rests_between_short_runs(root: Path, pipeline, monkeypatch) -> None:
    """The UI thread gets the GIL back every few milliseconds, however large the corpus."""
    from ditto_tui.corpus import reconcile as module

    many(root, folders=4, per_folder=100)
    with CorpusSession(root, pipeline, use_cache=False, jobs=1, reconcile_every=None) as s:
        s.scan()
        monkeypatch.setattr(module, "RUN_SECONDS", 0.0)  # every check of the clock rests
        rests: list[float] = []
        monkeypatch.setattr(module.time, "sleep", rests.append)
        reconcile(s)
        assert len(rests) >= 400 // 4  # a rest at least every 4 files


def test_a_reconcile_that_waited_for_the_first_scan_does_not_walk_everything_again(
    root: Path, pipeline
) -> None:
    # The watcher starts with the first scan; its periodic reconcile can come while that
    # scan runs (a million files take a minute). It waits for the scan, whose whole walk
    # is then its answer: a second walk of everything doubled the work and the memory.
    import threading

    tree(root)
    with CorpusSession(root, pipeline, use_cache=False, jobs=1, reconcile_every=None) as s:
        walks: list[object] = []
        update = s._update
        def counted(scopes, **kw):  # type: ignore[no-untyped-def]
            walks.append(scopes)
            return update(scopes, **kw)

        s._update = counted  # type: ignore[method-assign]
        with s._update_lock:  # the first scan is running
            waiting = threading.Thread(target=reconcile, args=(s,))
            waiting.start()
            time.sleep(0.2)
            s.scan()
        waiting.join(timeout=10)
        assert walks == [None]  # the scan's walk only
        assert state(s) == truth(root, pipeline)
        new_file_in_existing_folder(root)
        reconcile(s)  # later reconciles still find what events missed
        assert state(s) == truth(root, pipeline)
