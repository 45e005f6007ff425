"""Fingerprinting many files: parallel equals serial, order is kept, racing files are safe."""

from __future__ import annotations

import os
from pathlib import Path

import ditto_tui.corpus.reading as reading
import ditto_tui.corpus.scan as scan_mod
from ditto_tui.corpus.documents import ChangeBatch, ScanOptions, Skipped
from ditto_tui.corpus.reading import SkipFile, read_document_bytes
from ditto_tui.corpus.rootdir import RootDir
from ditto_tui.corpus.scan import resolve_entries
from ditto_tui.corpus.session import CorpusSession
from ditto_tui.corpus.stream import iter_fingerprints
from ditto_tui.corpus.walk import Walker

from .conftest import TEXT_A, TEXT_B, write


def big_folder(root: Path, n: int = 300) -> None:
    for i in range(n):
        body = (TEXT_A if i % 2 else TEXT_B) * 20 + f" document {i}"
        write(root, f"g{i % 7}/{i:04}.txt", body)
    write(root, "g3/zz.bin", b"\0" * 10)


def test_worker_processes_give_the_serial_answer_in_walk_order(
    root: Path, pipeline, monkeypatch
) -> None:
    big_folder(root)
    pools = []

    class CountingPool(scan_mod.ProcessPoolExecutor):
        def __init__(self, *a, **kw) -> None:
            pools.append(kw["max_workers"])
            super().__init__(*a, **kw)

    monkeypatch.setattr(scan_mod, "ProcessPoolExecutor", CountingPool)
    serial = list(iter_fingerprints([str(root)], pipeline, jobs=1, use_cache=False))
    assert pools == []
    parallel = list(iter_fingerprints([str(root)], pipeline, jobs=2, use_cache=False))
    assert pools == [2]
    assert parallel == serial and len(serial) == 301
    ids = [o.id if isinstance(o, Skipped) else o[0] for o in serial]
    walk_ids = [str(root / e.id) for e in Walker(str(root)).walk()]
    assert ids == walk_ids
    for ident, fp in serial[:5]:
        assert fp == pipeline.fingerprint(Path(ident).read_bytes())


def test_session_scan_reports_progress_and_batches(root: Path, pipeline, cache_path) -> None:
    big_folder(root, 120)
    progress, pieces = [], []
    with CorpusSession(root, pipeline, cache=cache_path, jobs=2) as s:
        given = s.scan(on_progress=progress.append, on_batch=pieces.append)
    assert not given  # delivered in pieces, not gathered as well
    with CorpusSession(root, pipeline, use_cache=False, jobs=1) as fresh:
        batch = fresh.scan()
    assert len(batch.added) == 120 and [k.reason for k in batch.skipped] == ["binary file"]
    merged = ChangeBatch()
    for piece in pieces:
        merged.extend(piece)
    assert merged.added == batch.added and merged.skipped == batch.skipped
    assert merged.documents == batch.documents
    assert progress[-1].done == 121 and progress[-1].total == 121
    assert progress[-1].bytes_done == sum(
        p.stat().st_size for p in root.rglob("*") if p.is_file()
    )


def test_cancelled_scan_stops_early_and_removes_nothing(root: Path, pipeline) -> None:
    big_folder(root, 100)
    with CorpusSession(root, pipeline, use_cache=False, jobs=1) as s:
        s.scan()
        calls = iter(range(10**6))
        write(root, "g0/zzz-new.txt", TEXT_A)
        s.scan(cancelled=lambda: next(calls) > 30)
        assert len(s.fingerprints) == 100  # a partial walk never deletes unseen documents


def test_file_growing_while_read_is_read_again(tmp_path: Path, monkeypatch) -> None:
    path = write(tmp_path, "log.txt", b"first version\n")
    real = reading._read_all
    calls = {"n": 0}

    def racing(fd: int, limit: int, *expect: int) -> bytes:
        calls["n"] += 1
        data = real(fd, limit, *expect)
        if calls["n"] == 1:
            with open(path, "ab") as f:  # a writer appends between our read and our check
                f.write(b"appended line\n")
        return data

    monkeypatch.setattr(reading, "_read_all", racing)
    data, st, binary = read_document_bytes(RootDir(path.parent), path.name, max_size=1000)
    assert data == b"first version\nappended line\n" and calls["n"] == 2
    assert st.st_size == len(data) and not binary


def test_file_that_keeps_changing_or_vanishes_is_skipped(tmp_path: Path, monkeypatch) -> None:
    path = write(tmp_path, "hot.txt", b"x")
    real = reading._read_all

    def always_growing(fd: int, limit: int, *expect: int) -> bytes:
        data = real(fd, limit, *expect)
        with open(path, "ab") as f:
            f.write(b"x")
        return data

    monkeypatch.setattr(reading, "_read_all", always_growing)
    try:
        read_document_bytes(RootDir(path.parent), path.name, max_size=1000)
    except SkipFile as exc:
        assert exc.reason == "kept changing while being read"
    else:
        raise AssertionError("a file that never settles must be skipped")
    monkeypatch.undo()
    walker = Walker(str(tmp_path))
    entries = list(walker.walk())
    os.unlink(path)  # vanishes between the walk and the read
    (result,) = list(
        resolve_entries(entries, _pipeline(), walker.rootdir, options=ScanOptions(), jobs=1)
    )
    assert result.skip is not None and result.skip.reason == "vanished while reading"


def _pipeline():
    from ditto_tui.core.fingerprint.pipeline import make_pipeline

    return make_pipeline("ditto")


def test_scan_from_a_threaded_program_uses_a_safe_pool(root: Path, pipeline) -> None:
    import threading

    big_folder(root, 120)
    stop = threading.Event()
    ui = threading.Thread(target=stop.wait)  # a UI or watcher thread is running
    ui.start()
    result: dict = {}
    try:
        assert scan_mod.pool_context().get_start_method() == "forkserver"

        def worker() -> None:
            with CorpusSession(root, pipeline, use_cache=False, jobs=2) as s:
                s.scan()
                result.update(s.fingerprints)

        t = threading.Thread(target=worker)
        t.start()
        t.join(timeout=60)
    finally:
        stop.set()
        ui.join()
    serial = {
        o[0].removeprefix(f"{root}/"): o[1]
        for o in iter_fingerprints([str(root)], pipeline, jobs=1, use_cache=False)
        if not isinstance(o, Skipped)
    }
    assert result == serial
