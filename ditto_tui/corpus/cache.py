"""The fingerprint cache: one SQLite database per corpus root, outside the root.

Rows are keyed by (pipeline identity, root-relative path) and remember the file's (size,
mtime_ns, inode) at the read; a file whose key is unchanged is never read again. Several
pipeline identities live side by side, so switching pipelines back and forth is instant.
Fingerprints and inodes are stored as signed 64-bit reinterpretations of the unsigned
values (never floats); paths as ``os.fsencode`` bytes (names need not be UTF-8).

Beside the files, one blob of near pairs per (pipeline identity, max k) remembers the last
all-pairs join (:class:`UniquePairs`, keyed by the digest of the distinct fingerprints), so
reopening an unchanged corpus skips the join; storing one replaces the previous one.

Durability: WAL journal, writes in batched transactions (``BATCH_ROWS`` rows or
``FLUSH_SECONDS``), so a crash or kill at any moment loses at most the last batch and never
corrupts the file. A database that is corrupt or of another schema (``PRAGMA user_version``
and the ``meta`` table) is renamed ``<name>.corrupt-<timestamp>`` and rebuilt, with a
notice appended to ``notices``; an error that says nothing about the file (disk full, out of
memory, permission, a read-only location, busy) never sets it aside: the cache is then not
used for the session (see :func:`open_cache_for_root`); a healthy version 1 database is upgraded in place (the
pairs table is added). Any later SQLite error disables the cache for the session
(with a notice) instead of failing a scan.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import stat
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TypeVar

import numpy as np

from ditto_tui.core.index.pairs import UniquePairs
from ditto_tui.corpus.records import CachedFile, FileResult
from ditto_tui.corpus.rootdir import is_inside

T = TypeVar("T")

SCHEMA_VERSION = 2
_UPGRADABLE = (1,)  # older versions whose tables are a subset of the current schema
#: Pairs blobs larger than this (per index array) are not stored (SQLite caps a blob at 1 GB).
MAX_PAIRS_BYTES = 256 * 1024 * 1024
APPLICATION = "ditto-tui corpus cache"
BATCH_ROWS = 2000
FLUSH_SECONDS = 1.0
_U64 = 1 << 64
_I64 = 1 << 63

_SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE pipelines(pid INTEGER PRIMARY KEY, identity TEXT NOT NULL UNIQUE);
CREATE TABLE files(
    pid INTEGER NOT NULL, path BLOB NOT NULL, size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL, inode INTEGER NOT NULL, binary INTEGER NOT NULL,
    mbox INTEGER NOT NULL, fp INTEGER, PRIMARY KEY(pid, path)) WITHOUT ROWID;
CREATE TABLE messages(
    pid INTEGER NOT NULL, path BLOB NOT NULL, part INTEGER NOT NULL,
    offset INTEGER NOT NULL, size INTEGER NOT NULL, fp INTEGER NOT NULL,
    PRIMARY KEY(pid, path, part)) WITHOUT ROWID;
CREATE TABLE pairs(
    pid INTEGER NOT NULL, k INTEGER NOT NULL, digest TEXT NOT NULL, n INTEGER NOT NULL,
    i BLOB NOT NULL, j BLOB NOT NULL, d BLOB NOT NULL, PRIMARY KEY(pid, k));
"""


def to_signed(value: int) -> int:
    """Unsigned 64-bit -> the signed int64 with the same bits."""
    return value - _U64 if value >= _I64 else value


def to_unsigned(value: int) -> int:
    """Signed int64 -> the unsigned 64-bit value with the same bits."""
    return value + _U64 if value < 0 else value


def root_digest(root: str | Path) -> str:
    """A short stable digest of a root's real path (names its cache file)."""
    return hashlib.sha256(os.fsencode(os.path.realpath(root))).hexdigest()[:20]


def cache_file_for(cache: str | os.PathLike[str], root: str | Path) -> Path:
    """``<stem>-<root digest><suffix>`` beside ``cache``: one database per root."""
    path = Path(cache)
    return path.with_name(f"{path.stem}-{root_digest(root)}{path.suffix}")


def default_cache_path(root: str | Path) -> Path:
    """Where the cache of ``root`` lives: the user cache folder, one file per real root path.

    Falls back to the temporary folder when the user cache folder lies inside the root (a
    home folder opened as a corpus); raises ValueError when every candidate does.
    """
    import platformdirs

    real = os.path.realpath(root)
    name = f"corpus-{root_digest(real)}.sqlite"
    candidates = [
        Path(platformdirs.user_cache_dir("ditto-tui", appauthor=False)),
        Path(tempfile.gettempdir()) / f"ditto-tui-{os.getuid() if hasattr(os, 'getuid') else 0}",
    ]
    for folder in candidates:
        if not is_inside(folder, real):
            return folder / name
    raise ValueError(f"no cache location outside {real}")


def private_folder(folder: str | Path) -> Path:
    """Create ``folder`` (and its parents) for ditto-tui's own files, mode 0700; an
    existing one that is ours is narrowed to 0700. OSError when it is a symlink or
    belongs to another user (a planted folder in a shared temporary folder)."""
    path = Path(folder)
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
        raise OSError(f"{path} is not a real folder")
    if hasattr(os, "getuid"):
        if st.st_uid != os.getuid():
            raise OSError(f"{path} belongs to another user")
        if st.st_mode & 0o077:
            os.chmod(path, 0o700)
    return path


def private_database(path: str | Path) -> None:
    """Make the SQLite database ``path`` readable by its owner only before SQLite opens
    it: created empty with mode 0600 (SQLite gives its ``-wal``/``-shm`` files the mode of
    the database), or, when it exists, narrowed to 0600 with those files."""
    path = Path(path)
    private_folder(path.parent)
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    os.close(os.open(path, flags, 0o600))
    for p in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        with contextlib.suppress(FileNotFoundError):
            st = os.lstat(p)
            if stat.S_ISREG(st.st_mode) and st.st_mode & 0o077 and (
                    not hasattr(os, "getuid") or st.st_uid == os.getuid()):
                os.chmod(p, 0o600)


#: SQLite result codes (primary) that mean the file itself is damaged or not a database.
_CORRUPT_CODES = (11, 26)  # SQLITE_CORRUPT, SQLITE_NOTADB


def is_corruption(exc: sqlite3.Error) -> bool:
    """True when ``exc`` says the database file is damaged (not when the disk is full, memory
    ran out, permission was denied or the file is busy: those leave a healthy file)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF in _CORRUPT_CODES
    message = str(exc).lower()
    return "malformed" in message or "not a database" in message


#: SQLite result codes (primary) that mean another connection holds the database.
_BUSY_CODES = (5, 6)  # SQLITE_BUSY, SQLITE_LOCKED
#: How long opening a database waits while another connection holds it (see open_when_free).
OPEN_WAIT_S = 10.0


def is_busy(exc: sqlite3.Error) -> bool:
    """True when ``exc`` says another connection holds the database (busy or locked)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF in _BUSY_CODES
    message = str(exc).lower()
    return "locked" in message or "busy" in message


def open_when_free(open_once: Callable[[], T]) -> T:
    """``open_once()``, tried again while it fails because another connection holds the
    database, for :data:`OPEN_WAIT_S` at most. SQLite can say "database is locked" at
    once, without its busy wait, when two connections switch a new file to WAL together
    (two tabs of ``ditto-tui serve`` opening the same store): busy is not damaged."""
    deadline = time.monotonic() + OPEN_WAIT_S
    while True:
        try:
            return open_once()
        except sqlite3.OperationalError as exc:
            if not is_busy(exc) or time.monotonic() >= deadline:
                raise
            time.sleep(0.02)


def set_aside_database(path: Path, why: str) -> Path:
    """Rename the SQLite database ``path`` (and its ``-wal``/``-shm`` files) to
    ``<name>.<why>-<time stamp>`` beside it, never over an existing file; return the new path."""
    stamp = time.strftime("%Y%m%dT%H%M%S")
    aside = path.with_name(f"{path.name}.{why}-{stamp}")
    n = 1
    while aside.exists():
        aside = path.with_name(f"{path.name}.{why}-{stamp}-{n}")
        n += 1
    os.replace(path, aside)
    for suffix in ("-wal", "-shm"):
        side = path.with_name(path.name + suffix)
        if side.exists():
            with contextlib.suppress(OSError):
                os.replace(side, aside.with_name(aside.name + suffix))
    return aside


class FingerprintCache:
    """A thread-safe handle on one cache database (see the module docstring).

    All methods swallow SQLite failures after the database is open: the cache then turns
    itself off (``enabled`` False) and appends a notice, and look-ups answer "not cached".
    """

    def __init__(self, path: str | Path, *, notices: list[str] | None = None) -> None:
        self.path = Path(path)
        self.notices = notices if notices is not None else []
        self.enabled = True
        self._lock = threading.RLock()
        self._pending: list[tuple[str, FileResult]] = []
        self._last_flush = time.monotonic()
        self._pids: dict[str, int] = {}
        private_database(self.path)  # document paths: readable by their owner only
        self._conn = open_when_free(self._open)

    # -- opening ------------------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(
            self.path, timeout=10, check_same_thread=False, isolation_level=None
        )
        conn.execute("PRAGMA busy_timeout=10000")
        return conn

    def _open(self) -> sqlite3.Connection:
        problem: str | None = None
        conn: sqlite3.Connection | None = None
        try:
            conn = self._connect()
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("BEGIN")  # (both read at one moment: another may be creating it)
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
            conn.execute("COMMIT")
            if version == 0 and not tables:
                self._create(conn)
                return conn
            if version != SCHEMA_VERSION and version not in _UPGRADABLE:
                problem = f"schema version {version}, expected {SCHEMA_VERSION}"
            else:
                app = conn.execute("SELECT value FROM meta WHERE key='application'").fetchone()
                if app is None or app[0] != APPLICATION:
                    problem = "not a ditto-tui cache"
                else:
                    check = conn.execute("PRAGMA quick_check").fetchone()[0]
                    if check != "ok":
                        problem = f"damaged ({check})"
            if problem is None:
                if version != SCHEMA_VERSION:
                    self._create(conn)  # adds the missing tables, keeps the rows
                conn.execute("PRAGMA synchronous=NORMAL")
                return conn
        except sqlite3.DatabaseError as exc:
            if not is_corruption(exc):
                # Disk full, out of memory, no permission, locked, I/O error: the file may
                # be perfectly healthy. Never set it aside; the caller works without it.
                if conn is not None:
                    conn.close()
                raise
            problem = f"unreadable ({exc})"
        if conn is not None:
            conn.close()
        aside = self._set_aside()
        private_database(self.path)
        self.notices.append(
            f"Fingerprint cache {self.path} was {problem}; moved to {aside} and rebuilt."
        )
        conn = self._connect()
        conn.execute("PRAGMA journal_mode=WAL")
        self._create(conn)
        return conn

    def _create(self, conn: sqlite3.Connection) -> None:
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("BEGIN IMMEDIATE")
        for statement in _SCHEMA.split(";"):
            if statement.strip():
                conn.execute(statement.replace("CREATE TABLE", "CREATE TABLE IF NOT EXISTS"))
        conn.execute(
            "INSERT OR REPLACE INTO meta(key, value) VALUES ('application', ?)", (APPLICATION,)
        )
        conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        conn.execute("COMMIT")

    def _set_aside(self) -> Path:
        return set_aside_database(self.path, "corrupt")

    def _fail(self, exc: Exception) -> None:
        if self.enabled:
            self.enabled = False
            self.notices.append(f"Fingerprint cache {self.path} turned off: {exc}")

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (caller holds the lock): committed when the block ends; on
        a database error it is rolled back and the cache turns itself off with a notice."""
        try:
            self._conn.execute("BEGIN IMMEDIATE")
            yield self._conn
            self._conn.execute("COMMIT")
        except sqlite3.Error as exc:
            with contextlib.suppress(sqlite3.Error):
                self._conn.execute("ROLLBACK")
            self._pids.clear()
            self._fail(exc)

    # -- reading ------------------------------------------------------------------------
    def _pid(self, identity: str, *, create: bool) -> int | None:
        pid = self._pids.get(identity)
        if pid is not None:
            return pid
        row = self._conn.execute(
            "SELECT pid FROM pipelines WHERE identity=?", (identity,)
        ).fetchone()
        if row is None:
            if not create:
                return None
            cur = self._conn.execute("INSERT INTO pipelines(identity) VALUES (?)", (identity,))
            pid = int(cur.lastrowid or 0)
        else:
            pid = int(row[0])
        self._pids[identity] = pid
        return pid

    def load(self, identity: str) -> dict[str, CachedFile]:
        """Every cached file of a pipeline identity, by root-relative path (one query)."""
        with self._lock:
            if not self.enabled:
                return {}
            try:
                self.flush()
                pid = self._pid(identity, create=False)
                if pid is None:
                    return {}
                files = self._conn.execute(
                    "SELECT path, size, mtime_ns, inode, binary, mbox, fp FROM files"
                    " WHERE pid=?", (pid,)
                ).fetchall()
                msgs = self._conn.execute(
                    "SELECT path, offset, size, fp FROM messages WHERE pid=?"
                    " ORDER BY path, part", (pid,)
                ).fetchall()
            except sqlite3.Error as exc:
                self._fail(exc)
                return {}
        parts: dict[bytes, list[tuple[int, int, int]]] = {}
        for path, off, size, fp in msgs:
            parts.setdefault(path, []).append((off, size, to_unsigned(fp)))
        out: dict[str, CachedFile] = {}
        encoding = sys.getfilesystemencoding()
        no_parts: tuple[tuple[int, int, int], ...] = ()
        for path, size, mtime_ns, inode, binary, mbox, fp in files:
            out[path.decode(encoding, "surrogateescape")] = CachedFile(
                (size, mtime_ns, inode + _U64 if inode < 0 else inode),
                bool(binary),
                bool(mbox),
                None if fp is None else fp + _U64 if fp < 0 else fp,
                tuple(parts[path]) if mbox and path in parts else no_parts,
            )
        return out

    def load_pairs(self, identity: str, k: int, digest: str) -> UniquePairs | None:
        """The stored pairs of ``identity`` at ``k`` if they are those of ``digest``."""
        with self._lock:
            if not self.enabled:
                return None
            try:
                pid = self._pid(identity, create=False)
                if pid is None:
                    return None
                row = self._conn.execute(
                    "SELECT n, i, j, d FROM pairs WHERE pid=? AND k=? AND digest=?",
                    (pid, k, digest),
                ).fetchone()
            except sqlite3.Error as exc:
                self._fail(exc)
                return None
        if row is None:
            return None
        n, i, j, d = row
        if not len(i) == len(j) == 4 * n or len(d) != n:
            return None  # a damaged row: compute the pairs again
        return UniquePairs(
            digest,
            k,
            np.frombuffer(i, "<i4").astype(np.int32, copy=False),
            np.frombuffer(j, "<i4").astype(np.int32, copy=False),
            np.frombuffer(d, np.uint8),
        )

    # -- writing ------------------------------------------------------------------------
    def store_pairs(self, identity: str, pairs: UniquePairs) -> None:
        """Store ``pairs`` for ``identity`` at ``pairs.k``, replacing the previous ones (one
        transaction; skipped beyond ``MAX_PAIRS_BYTES``)."""
        n = len(pairs.d)
        if 4 * n > MAX_PAIRS_BYTES or not len(pairs.i) == len(pairs.j) == n:
            return
        i = np.ascontiguousarray(pairs.i, "<i4").tobytes()
        j = np.ascontiguousarray(pairs.j, "<i4").tobytes()
        d = np.ascontiguousarray(pairs.d, np.uint8).tobytes()
        with self._lock:
            if not self.enabled:
                return
            self.flush()
            if not self.enabled:
                return
            with self._transaction() as conn:
                pid = self._pid(identity, create=True)
                conn.execute(
                    "INSERT OR REPLACE INTO pairs VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (pid, pairs.k, pairs.digest, n, i, j, d),
                )

    def put(self, identity: str, result: FileResult) -> None:
        """Queue one file result (skips other than "binary file" are not cached)."""
        if result.skip is not None and not result.binary:
            return
        with self._lock:
            if not self.enabled:
                return
            self._pending.append((identity, result))
            if (
                len(self._pending) >= BATCH_ROWS
                or time.monotonic() - self._last_flush >= FLUSH_SECONDS
            ):
                self.flush()

    def flush(self) -> None:
        """Write queued results in one transaction (all or nothing)."""
        with self._lock:
            if not self._pending or not self.enabled:
                self._pending.clear()
                self._last_flush = time.monotonic()
                return
            pending, self._pending = self._pending, []
            with self._transaction() as conn:
                files = []
                msgs = []
                stale = []
                for identity, r in pending:
                    pid = self._pid(identity, create=True)
                    raw = os.fsencode(r.id)
                    size, mtime_ns, inode = r.key
                    fp = None if r.fp is None else to_signed(r.fp)
                    files.append((pid, raw, size, mtime_ns, to_signed(inode), int(r.binary),
                                  int(r.mbox), fp))
                    stale.append((pid, raw))
                    msgs += [
                        (pid, raw, i, off, n, to_signed(mfp))
                        for i, (off, n, mfp) in enumerate(r.parts, 1)
                    ]
                conn.executemany("DELETE FROM messages WHERE pid=? AND path=?", stale)
                conn.executemany(
                    "INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?, ?, ?, ?)", files
                )
                conn.executemany("INSERT INTO messages VALUES (?, ?, ?, ?, ?, ?)", msgs)
            self._last_flush = time.monotonic()

    def forget(self, identity: str, paths: Iterable[str]) -> None:
        """Drop the rows of ``identity`` for these paths (other pipelines keep theirs)."""
        raws = [os.fsencode(p) for p in paths]
        if not raws:
            return
        with self._lock:
            if not self.enabled:
                return
            self.flush()
            if not self.enabled:
                return
            with self._transaction() as conn:
                pid = self._pid(identity, create=False)
                if pid is not None:
                    rows = [(pid, raw) for raw in raws]
                    conn.executemany("DELETE FROM files WHERE pid=? AND path=?", rows)
                    conn.executemany("DELETE FROM messages WHERE pid=? AND path=?", rows)

    def close(self) -> None:
        """Flush and close; later calls are no-ops."""
        with self._lock:
            if self._conn is None:
                return
            self.flush()
            with contextlib.suppress(sqlite3.Error):
                self._conn.close()
            self._conn = None  # type: ignore[assignment]
            self.enabled = False


def open_cache_for_root(
    root: str | Path,
    *,
    cache: str | Path | None = None,
    cache_dir: str | Path | None = None,
    notices: list[str] | None = None,
) -> FingerprintCache | None:
    """The cache for a corpus root, or None (with a notice) when none can be used.

    ``cache`` is an explicit database path; ``cache_dir`` a folder for the default file
    name. A location inside the root is refused (ValueError) for an explicit path and
    replaced by the fallback for the default one.
    """
    notices = notices if notices is not None else []
    if cache is not None:
        if is_inside(os.path.dirname(os.path.abspath(cache)), root):
            raise ValueError(f"the cache {cache} must not be inside the corpus folder {root}")
        path = Path(cache)
    else:
        try:
            path = default_cache_path(root)
        except ValueError as exc:
            notices.append(f"Fingerprint cache off: {exc}.")
            return None
        if cache_dir is not None:
            path = Path(cache_dir) / path.name
            if is_inside(path.parent, root):
                raise ValueError(f"the cache folder {cache_dir} must not be inside {root}")
    try:
        return FingerprintCache(path, notices=notices)
    except (OSError, sqlite3.Error) as exc:
        notices.append(f"Fingerprint cache {path} could not be opened ({exc}); working without.")
        return None
