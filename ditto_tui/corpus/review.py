"""The review store: decisions, reviewed and ignored families, ignored pairs, saved sessions.

One SQLite database per corpus root, beside the fingerprint cache (``review-<root
digest>.sqlite``; never inside the root), with the action journals in the sibling folder
``review-<root digest>.journals`` (:mod:`ditto_tui.corpus.journal`). Unlike the cache this is
the user's work, so it is written at once (one transaction per call; bulk calls take lists)
with ``synchronous=FULL``: a decision the call returned for survives a crash. Records are
keyed by path with the document's content identity beside it, and matched back to the
corpus with :func:`ditto_tui.core.review.decisions.resolve` (renames followed, edits stale).

Several processes may hold the same store (two explorers on one folder, the tabs of
``ditto-tui serve``): WAL, and every write one ``BEGIN IMMEDIATE`` transaction of the rows
it changes (never a read-modify-write of the whole review), so they take turns as writers
(waiting up to 10 s) and none loses another's rows; of two writes of the same row (one
document's decision, one family's mark) the later wins. :meth:`ReviewStore.changed_elsewhere`
tells a process that another one wrote.

A damaged database or one of another schema is set aside (``<name>.corrupt-<stamp>``) and a
fresh one created, with a notice; ``fresh=True`` sets the current one aside the same way
(``<name>.before-fresh-<stamp>``), so "start clean" never destroys anything. Journals are
never set aside: undo stays possible.

Sessions (:class:`SessionState`) hold the explorer's view: k, grouping, filters, sort and
whether ignored families are shown; unknown or malformed fields load as defaults.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ditto_tui.core.review.decisions import DECISIONS, Identity, Record, Resolution, resolve
from ditto_tui.corpus.cache import (
    default_cache_path,
    is_corruption,
    open_when_free,
    private_database,
    private_folder,
    root_digest,
    set_aside_database,
    to_signed,
    to_unsigned,
)
from ditto_tui.corpus.journal import journal_folder
from ditto_tui.corpus.rootdir import is_inside

__all__ = ["ReviewStore", "SessionState", "review_path_for"]

SCHEMA_VERSION = 1
APPLICATION = "ditto-tui review store"
FAMILY_MARKS = ("reviewed", "ignored")

_SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE decisions(
    path BLOB PRIMARY KEY, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
    inode INTEGER NOT NULL, fp INTEGER NOT NULL, value TEXT NOT NULL, at REAL NOT NULL);
CREATE INDEX decisions_identity ON decisions(inode, size, mtime_ns);
CREATE TABLE families(
    kind TEXT NOT NULL, key TEXT NOT NULL, members INTEGER NOT NULL, at REAL NOT NULL,
    PRIMARY KEY(kind, key)) WITHOUT ROWID;
CREATE TABLE ignored_pairs(
    a BLOB NOT NULL, a_size INTEGER, a_mtime_ns INTEGER, a_inode INTEGER, a_fp INTEGER,
    b BLOB NOT NULL, b_size INTEGER, b_mtime_ns INTEGER, b_inode INTEGER, b_fp INTEGER,
    at REAL NOT NULL, PRIMARY KEY(a, b)) WITHOUT ROWID;
CREATE TABLE state(key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


def review_path_for(root: str | Path, cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """``review-<root digest>.sqlite`` beside the root's default fingerprint cache, or in
    ``cache_dir``; ValueError when that lies inside the root."""
    name = f"review-{root_digest(root)}.sqlite"
    folder = Path(cache_dir) if cache_dir is not None else default_cache_path(root).parent
    if is_inside(folder, root):
        raise ValueError(f"the review store folder {folder} must not be inside {root}")
    return folder / name


def _enc(path: str) -> bytes:
    return os.fsencode(path)


def _dec(raw: bytes) -> str:
    return os.fsdecode(raw)


def _ident_row(ident: Identity) -> tuple[int, int, int, int]:
    return (ident.size, ident.mtime_ns, to_signed(ident.inode), to_signed(ident.fp))


def _ident(size: int, mtime_ns: int, inode: int, fp: int) -> Identity:
    return Identity(size, mtime_ns, to_unsigned(inode), to_unsigned(fp))


@dataclass
class SessionState:
    """The explorer's view of one root, saved on exit and restored on reopen."""

    k: int | None = None
    mode: str | None = None
    sort: str | None = None
    filters: dict[str, Any] = field(default_factory=dict)
    show_ignored: bool = False
    selected: str | None = None

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=True, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> SessionState:
        """Parse leniently: a missing, unknown or ill-typed field takes its default."""
        try:
            data = json.loads(text)
        except ValueError:
            return cls()
        if not isinstance(data, dict):
            return cls()
        state = cls()
        if isinstance(data.get("k"), int) and not isinstance(data.get("k"), bool) and 0 <= data["k"] <= 64:
            state.k = data["k"]
        if data.get("mode") in ("chain", "star"):
            state.mode = data["mode"]
        if isinstance(data.get("sort"), str):
            state.sort = data["sort"]
        if isinstance(data.get("filters"), dict):
            state.filters = data["filters"]
        if isinstance(data.get("show_ignored"), bool):
            state.show_ignored = data["show_ignored"]
        if isinstance(data.get("selected"), str):
            state.selected = data["selected"]
        return state


class ReviewStore:
    """A handle on one review database (thread-safe; see the module docstring)."""

    def __init__(self, path: str | Path, *, fresh: bool = False,
                 notices: list[str] | None = None) -> None:
        self.path = Path(path)
        self.notices = notices if notices is not None else []
        self._lock = threading.RLock()
        private_folder(self.path.parent)
        if fresh and self.path.exists():
            aside = self._set_aside("before-fresh")
            self.notices.append(f"Started a fresh review; the previous one is kept at {aside}.")
        private_database(self.path)  # decisions name documents: owner only
        self._conn = open_when_free(self._open_once)
        self._seen_version = self._data_version()

    @classmethod
    def for_root(cls, root: str | Path, *, cache_dir: str | os.PathLike[str] | None = None,
                 fresh: bool = False, notices: list[str] | None = None) -> ReviewStore:
        """The store of a corpus root (see :func:`review_path_for`)."""
        return cls(review_path_for(root, cache_dir), fresh=fresh, notices=notices)

    @property
    def journal_dir(self) -> Path:
        """Where this root's action journals live."""
        return journal_folder(self.path)

    # -- opening ------------------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=10, check_same_thread=False,
                               isolation_level=None)
        conn.execute("PRAGMA busy_timeout=10000")
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
        return conn

    def _open_once(self) -> sqlite3.Connection:
        problem = None
        conn: sqlite3.Connection | None = None
        try:
            conn = self._connect()
            conn.execute("BEGIN")  # (both read at one moment: another may be creating it)
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
            conn.execute("COMMIT")
            if version == 0 and not tables:
                self._create(conn)
                return conn
            if version != SCHEMA_VERSION:
                problem = f"schema version {version}, expected {SCHEMA_VERSION}"
            else:
                app = conn.execute("SELECT value FROM meta WHERE key='application'").fetchone()
                if app is None or app[0] != APPLICATION:
                    problem = "not a ditto-tui review store"
                elif conn.execute("PRAGMA quick_check").fetchone()[0] != "ok":
                    problem = "damaged"
            if problem is None:
                return conn
        except sqlite3.DatabaseError as exc:
            if isinstance(exc, sqlite3.OperationalError) and not is_corruption(exc):
                if conn is not None:
                    conn.close()
                raise  # busy, locked, out of memory...: the file is fine (see open_when_free)
            problem = f"unreadable ({exc})"
        if conn is not None:
            conn.close()
        aside = self._set_aside("corrupt")
        private_database(self.path)
        self.notices.append(f"Review store {self.path} was {problem}; kept at {aside}, "
                            "starting an empty one.")
        conn = self._connect()
        self._create(conn)
        return conn

    def _create(self, conn: sqlite3.Connection) -> None:
        # IF NOT EXISTS: two processes (two tabs of `ditto-tui serve`) opening a new store
        # at once both find it empty; the second one's create then finds the tables made
        # and changes nothing, instead of failing and setting a healthy store aside
        conn.execute("BEGIN IMMEDIATE")
        for statement in _SCHEMA.split(";"):
            if statement.strip():
                conn.execute(statement.replace("CREATE TABLE", "CREATE TABLE IF NOT EXISTS")
                             .replace("CREATE INDEX", "CREATE INDEX IF NOT EXISTS"))
        conn.execute("INSERT OR REPLACE INTO meta VALUES ('application', ?)", (APPLICATION,))
        conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        conn.execute("COMMIT")

    def _set_aside(self, why: str) -> Path:
        return set_aside_database(self.path, why)

    @contextlib.contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def _data_version(self) -> int:
        with self._lock:
            return int(self._conn.execute("PRAGMA data_version").fetchone()[0])

    def changed_elsewhere(self) -> bool:
        """Whether another connection (another process: a second explorer on the same
        folder, another tab of ``ditto-tui serve``) committed to the store since the last
        call or the opening (SQLite's ``data_version``; this handle's own writes do not
        count). Cheap: one pragma, nothing read."""
        version = self._data_version()
        changed = version != self._seen_version
        self._seen_version = version
        return changed

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None  # type: ignore[assignment]

    def __enter__(self) -> ReviewStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- decisions ----------------------------------------------------------------------
    def set_decisions(self, items: Iterable[tuple[str, Identity, str | None]]) -> None:
        """Record (id, identity, decision) triples at once; a None decision clears it.
        Raises ValueError for a decision not in ``DECISIONS`` (nothing is written)."""
        rows, clear = [], []
        now = time.time()
        for doc_id, ident, value in items:
            if value is None:
                clear.append((_enc(doc_id),))
            elif value not in DECISIONS:
                raise ValueError(f"unknown decision {value!r} (expected {', '.join(DECISIONS)})")
            else:
                rows.append((_enc(doc_id), *_ident_row(ident), value, now))
        with self._tx() as conn:
            conn.executemany("DELETE FROM decisions WHERE path=?", clear)
            conn.executemany("INSERT OR REPLACE INTO decisions VALUES (?, ?, ?, ?, ?, ?, ?)", rows)

    def set_decision(self, doc_id: str, ident: Identity, value: str | None) -> None:
        """Record (or with None clear) one document's decision."""
        self.set_decisions([(doc_id, ident, value)])

    def decision_records(self) -> list[Record]:
        with self._lock:
            rows = self._conn.execute(
                "SELECT path, size, mtime_ns, inode, fp, value FROM decisions").fetchall()
        return [Record(_dec(p), _ident(s, m, i, f), v) for p, s, m, i, f, v in rows]

    def decisions(self, documents: Mapping[str, Identity], *, follow: bool = True) -> Resolution:
        """Stored decisions matched to ``documents`` (id -> identity now). With ``follow``
        the records of renamed documents are moved to their new paths in the store."""
        resolution = resolve(self.decision_records(), documents)
        if follow and resolution.moved:
            with self._tx() as conn:
                for old, new in resolution.moved.items():
                    conn.execute("DELETE FROM decisions WHERE path=?", (_enc(new),))
                    conn.execute("UPDATE decisions SET path=? WHERE path=?", (_enc(new), _enc(old)))
        return resolution

    # -- families -----------------------------------------------------------------------
    def mark_family(self, kind: str, key: str, members: int, on: bool = True) -> None:
        """Mark (or unmark) a family, by :func:`~ditto_tui.core.review.decisions.family_key`, as
        ``reviewed`` or ``ignored`` ("this family is fine")."""
        if kind not in FAMILY_MARKS:
            raise ValueError(f"unknown family mark {kind!r}")
        with self._tx() as conn:
            if on:
                conn.execute("INSERT OR REPLACE INTO families VALUES (?, ?, ?, ?)",
                             (kind, key, members, time.time()))
            else:
                conn.execute("DELETE FROM families WHERE kind=? AND key=?", (kind, key))

    def family_marks(self, kind: str) -> set[str]:
        with self._lock:
            return {r[0] for r in self._conn.execute(
                "SELECT key FROM families WHERE kind=?", (kind,))}

    # -- ignored pairs ------------------------------------------------------------------
    def ignore_pair(self, a: tuple[str, Identity], b: tuple[str, Identity], on: bool = True) -> None:
        """Record (or forget) "these two documents are not duplicates"."""
        (pa, ia), (pb, ib) = sorted([a, b], key=lambda x: _enc(x[0]))
        with self._tx() as conn:
            if on:
                conn.execute("INSERT OR REPLACE INTO ignored_pairs VALUES "
                             "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                             (_enc(pa), *_ident_row(ia), _enc(pb), *_ident_row(ib), time.time()))
            else:
                conn.execute("DELETE FROM ignored_pairs WHERE a=? AND b=?", (_enc(pa), _enc(pb)))

    def ignored_pairs(self, documents: Mapping[str, Identity]) -> tuple[list[tuple[str, str]], int]:
        """Ignored pairs as current document ids (renames followed), and how many stored
        pairs no longer apply (a side edited or gone)."""
        with self._lock:
            rows = self._conn.execute("SELECT * FROM ignored_pairs").fetchall()
        pairs, lapsed = [], 0
        for row in rows:
            a = Record(_dec(row[0]), _ident(*row[1:5]), "")
            b = Record(_dec(row[5]), _ident(*row[6:10]), "")
            ra, rb = resolve([a], documents), resolve([b], documents)
            if len(ra.current) == 1 and len(rb.current) == 1:
                pairs.append((next(iter(ra.current)), next(iter(rb.current))))
            else:
                lapsed += 1
        return pairs, lapsed

    # -- sessions -----------------------------------------------------------------------
    def save_session(self, state: SessionState) -> None:
        with self._tx() as conn:
            conn.execute("INSERT OR REPLACE INTO state VALUES ('session', ?)", (state.to_json(),))

    def load_session(self) -> SessionState | None:
        """The saved view, or None when nothing was saved."""
        with self._lock:
            row = self._conn.execute("SELECT value FROM state WHERE key='session'").fetchone()
        return None if row is None else SessionState.from_json(row[0])
