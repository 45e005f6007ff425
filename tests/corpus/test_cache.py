"""Reopening a folder: unchanged files come from the cache, damage never stops the user."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import ditto_tui.corpus.cache as cache_mod
import ditto_tui.corpus.scan as scan_mod
from ditto_tui.core.fingerprint.pipeline import make_pipeline
from ditto_tui.core.index.pairs import UniquePairs, fingerprints_digest
from ditto_tui.corpus.cache import (
    SCHEMA_VERSION,
    FingerprintCache,
    default_cache_path,
    open_cache_for_root,
    to_signed,
    to_unsigned,
)
from ditto_tui.corpus.documents import ScanOptions
from ditto_tui.corpus.records import FileResult
from ditto_tui.corpus.session import CorpusSession
from ditto_tui.corpus.stream import iter_fingerprints

from .conftest import TEXT_A, TEXT_B, busy_when_opened, write


@pytest.fixture
def reads(monkeypatch) -> list[str]:
    """Paths read by the scanner (in-process scans only: use jobs=1)."""
    seen: list[str] = []
    real = scan_mod.read_document_bytes

    def counting(root, rel: str, **kw):
        seen.append(root.abspath(rel))
        return real(root, rel, **kw)

    monkeypatch.setattr(scan_mod, "read_document_bytes", counting)
    return seen


def make_folder(root: Path, n: int = 20) -> None:
    for i in range(n):
        write(root, f"d{i % 3}/f{i:03}.txt", f"{TEXT_A} {i} {TEXT_B}")
    write(root, "bin/blob.dat", b"\0\1\2" * 100)


def test_reopen_reads_nothing_and_change_invalidates(
    root: Path, pipeline, cache_path: Path, reads: list[str]
) -> None:
    make_folder(root)
    with CorpusSession(root, pipeline, cache=cache_path, jobs=1) as s:
        first = s.scan()
        fps = dict(s.fingerprints)
    assert len(first.added) == 20 and len(reads) == 21  # the binary file is read once too
    reads.clear()
    with CorpusSession(root, pipeline, cache=cache_path, jobs=1) as s:
        batch = s.scan()
        assert dict(s.fingerprints) == fps
        assert [k.reason for k in s.skipped] == ["binary file"]
        assert reads == []  # nothing opened: every answer came from the cache
        assert set(batch.added) == set(fps)
    # One file edited, one deleted, one added: only the edited and the new one are read.
    write(root, "d0/f000.txt", TEXT_B)
    os.unlink(root / "d1/f001.txt")
    write(root, "d2/new.txt", TEXT_A)
    with CorpusSession(root, pipeline, cache=cache_path, jobs=1) as s:
        s.scan()
        assert sorted(reads) == [str(root / "d0/f000.txt"), str(root / "d2/new.txt")]
        assert s.fingerprints["d0/f000.txt"] == pipeline.fingerprint(TEXT_B.encode())
        assert "d1/f001.txt" not in s.fingerprints


def test_same_mtime_different_inode_is_a_change(root: Path, pipeline, cache_path, reads) -> None:
    path = write(root, "a.txt", TEXT_A)
    with CorpusSession(root, pipeline, cache=cache_path, jobs=1) as s:
        s.scan()
    st = path.stat()
    tmp = write(root, "a.tmp", TEXT_B[: len(TEXT_A)].ljust(len(TEXT_A)))
    os.utime(tmp, ns=(st.st_atime_ns, st.st_mtime_ns))
    os.replace(tmp, path)  # same size, same mtime, new inode
    reads.clear()
    with CorpusSession(root, pipeline, cache=cache_path, jobs=1) as s:
        s.scan()
        assert reads == [str(path)]
        assert s.fingerprints["a.txt"] == pipeline.fingerprint(path.read_bytes())


def test_pipelines_live_side_by_side(root: Path, cache_path: Path, reads: list[str]) -> None:
    make_folder(root, 6)
    write(root, "page.html", "<html><body><p>page</p></body></html>")
    ditto, words = make_pipeline("ditto"), make_pipeline("ditto", char_n=0, word_n=3)
    html = make_pipeline("html")  # skips every non-HTML file: their rows must survive
    for p in (ditto, words, html):
        with CorpusSession(root, p, cache=cache_path, jobs=1) as s:
            s.scan()
    reads.clear()
    for p in (ditto, words, ditto, html):
        with CorpusSession(root, p, cache=cache_path, jobs=1) as s:
            s.scan()
            assert s.fingerprints["page.html"] == p.fingerprint((root / "page.html").read_bytes())
    assert reads == []


def test_include_binary_switch_uses_the_cache_correctly(root: Path, pipeline, cache_path) -> None:
    make_folder(root, 3)
    with CorpusSession(root, pipeline, cache=cache_path, jobs=1) as s:
        s.scan()
        assert "bin/blob.dat" not in s.fingerprints
    with CorpusSession(
        root, pipeline, cache=cache_path, jobs=1, options=ScanOptions(include_binary=True)
    ) as s:
        s.scan()
        assert s.fingerprints["bin/blob.dat"] == pipeline.fingerprint(b"\0\1\2" * 100)


def test_cli_stream_uses_and_fills_the_cache(root: Path, pipeline, tmp_path, reads) -> None:
    make_folder(root, 10)
    cache_dir = tmp_path / "caches"
    first = list(iter_fingerprints([str(root)], pipeline, jobs=1, cache_dir=str(cache_dir)))
    n = len(reads)
    assert n == 11
    again = list(iter_fingerprints([str(root)], pipeline, jobs=1, cache_dir=str(cache_dir)))
    assert again == first and len(reads) == n
    list(iter_fingerprints([str(root)], pipeline, jobs=1, use_cache=False))
    assert len(reads) == 2 * n


def test_unsigned_fingerprints_round_trip(cache_path: Path) -> None:
    for v in (0, 1, (1 << 63) - 1, 1 << 63, (1 << 64) - 1):
        assert to_unsigned(to_signed(v)) == v and -(1 << 63) <= to_signed(v) < (1 << 63)
    cache = FingerprintCache(cache_path)
    cache.put("p", FileResult("x", (1, 2, (1 << 64) - 5), False, False, (1 << 64) - 1, (), None))
    cache.flush()
    row = cache.load("p")["x"]
    assert row.fp == (1 << 64) - 1 and row.key == (1, 2, (1 << 64) - 5)
    cache.close()
    with sqlite3.connect(cache_path) as conn:
        assert conn.execute("SELECT typeof(fp) FROM files").fetchone() == ("integer",)


def test_default_location_is_outside_the_root(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "home" / ".cache"))
    outside = default_cache_path(tmp_path / "corpus")
    assert outside.parent == tmp_path / "home" / ".cache" / "ditto-tui"
    assert default_cache_path(tmp_path / "corpus") == outside  # stable per root
    assert default_cache_path(tmp_path / "other") != outside
    home = default_cache_path(tmp_path / "home")  # user cache inside the root: fall back
    assert not str(home).startswith(str(tmp_path / "home") + "/")
    with pytest.raises(ValueError):
        open_cache_for_root(tmp_path / "home", cache=tmp_path / "home" / "c.sqlite")


def test_corrupt_cache_is_set_aside_with_a_notice(root: Path, pipeline, cache_path: Path) -> None:
    make_folder(root, 4)
    cache_path.parent.mkdir(parents=True)
    cache_path.write_bytes(b"this is not a database" * 100)
    with CorpusSession(root, pipeline, cache=cache_path) as s:
        s.scan()
        assert len(s.fingerprints) == 4
        assert len(s.notices) == 1 and "moved to" in s.notices[0]
    aside = [p for p in cache_path.parent.iterdir() if ".corrupt-" in p.name]
    assert len(aside) == 1 and aside[0].read_bytes().startswith(b"this is not")
    with CorpusSession(root, pipeline, cache=cache_path) as s:
        s.scan()
        assert s.notices == []  # the rebuilt cache is healthy


def test_foreign_schema_version_is_rebuilt(root: Path, pipeline, cache_path: Path) -> None:
    write(root, "a.txt", TEXT_A)
    cache_path.parent.mkdir(parents=True)
    with sqlite3.connect(cache_path) as conn:
        conn.execute("CREATE TABLE files(x)")
        conn.execute("PRAGMA user_version=99")
    with CorpusSession(root, pipeline, cache=cache_path) as s:
        s.scan()
        assert "schema version 99" in s.notices[0]
        assert len(s.fingerprints) == 1


def some_pairs(seed: int, k: int = 8) -> UniquePairs:
    """Pairs-shaped arrays over 500 random fingerprints."""
    rng = np.random.default_rng(seed)
    u = np.unique(rng.integers(0, 2**64, 500, dtype=np.uint64))
    return UniquePairs(  # arbitrary content: the cache stores what it is given
        fingerprints_digest(u),
        k,
        np.sort(rng.integers(0, 250, 1000)).astype(np.int32),
        rng.integers(250, len(u), 1000).astype(np.int32),
        rng.integers(1, k + 1, 1000).astype(np.uint8),
    )


def same_pairs(a: UniquePairs | None, b: UniquePairs) -> bool:
    return (
        a is not None
        and (a.digest, a.k) == (b.digest, b.k)
        and all(np.array_equal(x, y) for x, y in ((a.i, b.i), (a.j, b.j), (a.d, b.d)))
    )


def test_near_pairs_round_trip_are_replaced_and_survive_reopen(
    root: Path, pipeline, cache_path: Path
) -> None:
    make_folder(root, 3)
    one, two, at_3 = some_pairs(1), some_pairs(2), some_pairs(3, k=3)
    with CorpusSession(root, pipeline, cache=cache_path) as s:
        s.scan()
        assert s.load_pairs(one.digest, 8) is None
        s.store_pairs(one)
        s.store_pairs(at_3)  # another k lives beside it
        got = s.load_pairs(one.digest, 8)
        assert same_pairs(got, one)
        assert got.i.dtype == got.j.dtype == np.int32 and got.d.dtype == np.uint8
        assert s.load_pairs(one.digest, 7) is None
        assert s.load_pairs(two.digest, 8) is None
        s.store_pairs(two)  # replaces the pairs at k=8
        assert s.load_pairs(one.digest, 8) is None
    with CorpusSession(root, pipeline, cache=cache_path) as s:
        assert same_pairs(s.load_pairs(two.digest, 8), two)
        assert same_pairs(s.load_pairs(at_3.digest, 3), at_3)
        html = s.with_pipeline(make_pipeline("html"))
        assert html.load_pairs(two.digest, 8) is None  # per pipeline identity
        html.close()
    with sqlite3.connect(cache_path) as conn:
        assert conn.execute("SELECT count(*) FROM pairs").fetchone() == (2,)
        n, i = conn.execute("SELECT n, i FROM pairs WHERE k=8").fetchone()
        assert n == 1000 and i == two.i.astype("<i4").tobytes()
    with CorpusSession(root, pipeline, use_cache=False) as s:  # no cache: no-ops
        s.store_pairs(one)
        assert s.load_pairs(one.digest, 8) is None


def test_damaged_pairs_row_is_ignored(cache_path: Path) -> None:
    cache = FingerprintCache(cache_path)
    pairs = some_pairs(4)
    cache.store_pairs("p", pairs)
    cache._conn.execute("UPDATE pairs SET j = substr(j, 1, 40)")
    assert cache.load_pairs("p", 8, pairs.digest) is None
    assert cache.enabled
    cache.close()


def test_version_1_cache_is_upgraded_keeping_its_fingerprints(
    root: Path, pipeline, cache_path: Path, reads: list[str]
) -> None:
    make_folder(root, 4)
    with CorpusSession(root, pipeline, cache=cache_path, jobs=1) as s:
        s.scan()
    with sqlite3.connect(cache_path) as conn:  # what version 1 wrote: no pairs table
        conn.execute("DROP TABLE pairs")
        conn.execute("PRAGMA user_version=1")
    reads.clear()
    with CorpusSession(root, pipeline, cache=cache_path, jobs=1) as s:
        s.scan()
        assert s.notices == [] and reads == []
        pairs = some_pairs(5)
        s.store_pairs(pairs)
        assert same_pairs(s.load_pairs(pairs.digest, 8), pairs)
    with sqlite3.connect(cache_path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)


CRASHER = textwrap.dedent(
    """
    import sys, time
    from ditto_tui.corpus.cache import FingerprintCache
    from ditto_tui.corpus.records import FileResult
    cache = FingerprintCache(sys.argv[1])
    i = 0
    while True:
        cache.put("p", FileResult(f"f{i}", (i, i, i), False, False, i, (), None))
        i += 1
        if i == 2500:
            print("committed", flush=True)   # at least one 2000-row batch is on disk
    """
)


def test_killed_writer_leaves_a_usable_cache(tmp_path: Path, cache_path: Path) -> None:
    cache_path.parent.mkdir(parents=True)
    proc = subprocess.Popen(
        [sys.executable, "-c", CRASHER, str(cache_path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "committed"
        proc.send_signal(signal.SIGKILL)  # in the middle of a later batch
    finally:
        proc.wait(timeout=30)
    notices: list[str] = []
    cache = FingerprintCache(cache_path, notices=notices)
    rows = cache.load("p")
    assert notices == []
    assert len(rows) >= 2000  # every committed batch survived, as a prefix of the writes
    assert all(rows[f"f{i}"].fp == i for i in range(len(rows)))
    cache.put("p", FileResult("new", (1, 1, 1), False, False, 7, (), None))
    cache.flush()
    assert cache.load("p")["new"].fp == 7
    cache.close()


def test_cli_explicit_cache_file_one_per_folder(tmp_path: Path, pipeline, reads) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    write(one, "a.txt", TEXT_A)
    write(two, "b.txt", TEXT_B)
    db = tmp_path / "caches" / "fp.sqlite"
    db.parent.mkdir()
    list(iter_fingerprints([str(one)], pipeline, jobs=1, cache=db))
    assert db.exists()
    both = list(iter_fingerprints([str(one), str(two)], pipeline, jobs=1, cache=db))
    assert [i for i, _ in both] == [f"{one}/a.txt", f"{two}/b.txt"]
    assert len(list(db.parent.glob("fp-*.sqlite"))) == 2  # one database per folder
    reads.clear()
    assert list(iter_fingerprints([str(one), str(two)], pipeline, jobs=1, cache=db)) == both
    assert reads == []
    with pytest.raises(ValueError, match="inside"):
        list(iter_fingerprints([str(one)], pipeline, cache=one / "x.sqlite"))


class _FailingConnection:
    """A sqlite3 connection whose first statements fail as a full disk would make them."""

    def __init__(self, conn: sqlite3.Connection, error: sqlite3.Error) -> None:
        self._conn = conn
        self._error = error

    def execute(self, sql: str, *args):
        if sql.startswith("PRAGMA journal_mode") or sql.startswith("BEGIN"):
            raise self._error
        return self._conn.execute(sql, *args)

    def __getattr__(self, name: str):
        return getattr(self._conn, name)


@pytest.mark.parametrize(
    "error",
    [
        sqlite3.OperationalError("database or disk is full"),
        sqlite3.OperationalError("out of memory"),
        sqlite3.OperationalError("attempt to write a readonly database"),
        sqlite3.OperationalError("unable to open database file"),
        sqlite3.OperationalError("disk I/O error"),
    ],
    ids=["disk-full", "nomem", "readonly", "cantopen", "ioerr"],
)
def test_disk_full_at_open_is_not_corruption(
    root: Path, pipeline, cache_path: Path, monkeypatch, error: sqlite3.Error
) -> None:
    make_folder(root, 4)
    with CorpusSession(root, pipeline, cache=cache_path) as s:
        s.scan()  # a healthy cache with four files
    before = cache_path.read_bytes()
    real = cache_mod.FingerprintCache._connect
    monkeypatch.setattr(
        cache_mod.FingerprintCache, "_connect",
        lambda self: _FailingConnection(real(self), error),
    )
    for _ in range(3):  # every later run too: nothing piles up
        with CorpusSession(root, pipeline, cache=cache_path) as s:
            s.scan()
            assert len(s.fingerprints) == 4
            assert len(s.notices) == 1 and "could not be opened" in s.notices[0]
            assert "moved to" not in s.notices[0]
    assert [p.name for p in cache_path.parent.iterdir() if ".corrupt-" in p.name] == []
    monkeypatch.undo()
    assert cache_path.read_bytes() == before
    with CorpusSession(root, pipeline, cache=cache_path) as s:
        s.scan()
        assert s.notices == [] and len(s.fingerprints) == 4


def test_a_read_only_cache_location_is_used_or_skipped_never_set_aside(
    root: Path, pipeline, cache_path: Path, monkeypatch
) -> None:
    make_folder(root, 4)
    with CorpusSession(root, pipeline, cache=cache_path) as s:
        s.scan()
    before = cache_path.read_bytes()
    write(root, "new.txt", TEXT_B)  # something the read-only cache cannot store

    def read_only(self):
        conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=10,
                               check_same_thread=False, isolation_level=None)
        return conn

    monkeypatch.setattr(cache_mod.FingerprintCache, "_connect", read_only)
    with CorpusSession(root, pipeline, cache=cache_path) as s:
        s.scan()
        assert len(s.fingerprints) == 5
        assert all("moved to" not in n for n in s.notices)
    assert [p.name for p in cache_path.parent.iterdir() if ".corrupt-" in p.name] == []
    assert cache_path.read_bytes() == before


def test_is_corruption_tells_damage_from_trouble() -> None:
    assert cache_mod.is_corruption(sqlite3.DatabaseError("file is not a database"))
    assert cache_mod.is_corruption(sqlite3.DatabaseError("database disk image is malformed"))
    assert not cache_mod.is_corruption(sqlite3.OperationalError("database or disk is full"))
    assert not cache_mod.is_corruption(sqlite3.OperationalError("database is locked"))


def test_a_cache_busy_while_opening_is_waited_for_not_set_aside(tmp_path: Path, monkeypatch):
    """Two processes opening the cache at once (two tabs of ditto-tui serve): SQLite can
    say "database is locked" at once; the cache is then waited for, not given up or set
    aside."""
    from ditto_tui.corpus.cache import FingerprintCache

    path = tmp_path / "cache.sqlite"
    FingerprintCache(path).close()
    busy = busy_when_opened(monkeypatch, FingerprintCache)
    notices: list[str] = []
    FingerprintCache(path, notices=notices).close()
    assert busy == [0] and notices == [] and not list(tmp_path.glob("*.corrupt-*"))
