"""A corpus opened by the UI: scan once, then follow the folder live.

:class:`CorpusSession` owns the documents of one root and keeps them current. ``scan()``
blocks (call it from a Textual thread worker); watching runs in the watcher's own thread
and reports :class:`ChangeBatch` es through the ``on_change`` callback, which therefore runs
off the UI thread (post a message or use ``call_from_thread``). The public mappings
(``documents``, ``fingerprints``) and the ``skipped`` list are immutable snapshots replaced
as a whole on every update, so reading them from any thread never sees a half-applied change.
"""

from __future__ import annotations

import bisect
import errno
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from itertools import chain
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Generic, TypeVar

from ditto_tui.core.fingerprint.simhash import Fingerprint
from ditto_tui.core.index.pairs import UniquePairs
from ditto_tui.corpus.cache import FingerprintCache, open_cache_for_root
from ditto_tui.corpus.documents import (
    DEFAULT_OPTIONS,
    ChangeBatch,
    Document,
    MailInfo,
    ScanOptions,
    ScanProgress,
    Skipped,
)
from ditto_tui.corpus.mail import MAIL_HEAD_BYTES, mail_info
from ditto_tui.corpus.reading import (
    SkipFile,
    read_document_bytes,
    read_head,
    read_range,
    refused_reason,
)
from ditto_tui.corpus.reconcile import Reconciler, TreeRecord
from ditto_tui.corpus.records import CachedFile, FileEntry, Resolved
from ditto_tui.corpus.scan import resolve_entries
from ditto_tui.corpus.walk import Walker, walk_order_key
from ditto_tui.corpus.watch import RECONCILE_SECONDS, FolderWatcher, WatchState

if TYPE_CHECKING:
    from ditto_tui.core.fingerprint.pipeline import Pipeline

__all__ = ["ChangeBatch", "CorpusSession", "ScanProgress"]

T = TypeVar("T")
PROGRESS_SECONDS = 0.1
BATCH_SECONDS = 0.25
#: Bytes read from the start of a document for its excerpt.
EXCERPT_BYTES = 16 * 1024


def _never() -> bool:
    return False


class CorpusSession:
    """The live corpus of one root folder (or one file) for one pipeline.

    ``cache`` is an explicit cache database path (default: the user cache folder, one file
    per real root path, never inside the root); ``use_cache=False`` reads everything.
    ``jobs`` bounds worker processes for large scans. ``reconcile_every`` (seconds, or
    None) is the period of the safety reconcile while watching: each one stats folders
    and a slice of the files and re-walks only what changed
    (:mod:`~ditto_tui.corpus.reconcile`), so an idle session costs little CPU however
    large the folder. Problems the user
    should know about (cache set aside, watch fallbacks) are appended to ``notices``.
    Raises FileNotFoundError when ``root`` does not exist and ValueError when an explicit
    ``cache`` lies inside it.

    Watching follows the real folder tree: documents reached through a symlinked folder
    are refreshed by the periodic reconcile, not by events. :meth:`with_pipeline` opens a
    sibling session for another pipeline on the same root and cache database.
    """

    def __init__(
        self,
        root: str | Path,
        pipeline: Pipeline,
        *,
        options: ScanOptions = DEFAULT_OPTIONS,
        cache: str | Path | None = None,
        use_cache: bool = True,
        jobs: int | None = None,
        reconcile_every: float | None = RECONCILE_SECONDS,
    ) -> None:
        self.root = Path(os.path.abspath(root))
        if not os.path.lexists(self.root):
            raise FileNotFoundError(errno.ENOENT, "no such file or folder", os.fspath(root))
        self.pipeline = pipeline
        self.options = options
        self.jobs = jobs
        self.reconcile_every = reconcile_every
        self.notices: list[str] = []
        self._walker = Walker(
            str(self.root), options, accepts=pipeline.accepts, pipeline_name=pipeline.name
        )
        self._reconciler = Reconciler(self._walker.rootdir, self._walker.rules.is_ignored)
        self._stop_reconcile = threading.Event()
        self._cache: FingerprintCache | None = None
        if use_cache:
            self._cache = open_cache_for_root(self.root, cache=cache, notices=self.notices)
        self._update_lock = threading.RLock()
        self._files: dict[str, Resolved] = {}
        self._sorted_files: list[str] | None = None
        self._docs: dict[str, Document] = {}
        self._fps: dict[str, Fingerprint] = {}
        self._skips: dict[str, Skipped] = {}
        self._skipped_list: list[Skipped] = []
        self._watcher: FolderWatcher | None = None
        self._on_change: Callable[[ChangeBatch], None] | None = None
        self._on_state: Callable[[WatchState], None] | None = None
        self._closed = False

    # -- snapshots ----------------------------------------------------------------------
    @property
    def documents(self) -> Mapping[str, Document]:
        """Every current document by id (read-only snapshot)."""
        return MappingProxyType(self._docs)

    @property
    def fingerprints(self) -> Mapping[str, Fingerprint]:
        """Every current fingerprint by document id (read-only snapshot)."""
        return MappingProxyType(self._fps)

    @property
    def skipped(self) -> list[Skipped]:
        """Current skips in walk order (a copy)."""
        return list(self._skipped_list)

    @property
    def watch_state(self) -> WatchState:
        """``"watching"``, ``"paused"``, ``"rescanning"`` or ``"off"``."""
        return self._watcher.state if self._watcher is not None else "off"

    # -- scanning -----------------------------------------------------------------------
    def scan(
        self,
        *,
        on_progress: Callable[[ScanProgress], None] | None = None,
        on_batch: Callable[[ChangeBatch], None] | None = None,
        cancelled: Callable[[], bool] = _never,
    ) -> ChangeBatch:
        """Walk the whole root and bring the session up to date; blocking.

        Returns the change against the state before the call (everything is ``added`` on
        the first scan). With ``on_batch`` the change is delivered in pieces while the scan
        runs (about every 0.25 s) and not gathered as well: the return value is then an
        empty batch (at a million documents the union is a second copy of every change,
        ~80 MB held to the end). ``on_progress`` is called about ten times a second.
        Unchanged files are answered from memory or from the cache without being read.
        When ``cancelled()`` turns True the scan stops early: what was resolved so far is
        applied and nothing is removed.
        """
        return self._update(
            None, on_progress=on_progress, on_batch=on_batch, cancelled=cancelled,
            use_rows=True,
        )

    def _memory_hit(self, entry: FileEntry) -> Resolved | None:
        known = self._files.get(entry.id)
        if (
            known is None
            or known.key != entry.key
            or known.entry.kind != entry.kind
            or known.entry.sniff != entry.sniff
        ):
            return None
        if known.skip is not None and known.skip.reason != "binary file" and not (
            entry.sniff and known.skip.reason == refused_reason(self.pipeline.name)
        ):
            return None  # retry unreadable files (not those refused by their unchanged head)
        return known

    def _in_scope(self, scopes: list[str]) -> tuple[list[str], list[str]]:
        """Known file ids and skip ids at or below any of ``scopes``."""
        if self._sorted_files is None:
            self._sorted_files = sorted(self._files)
        files = self._sorted_files
        found: list[str] = []
        for s in scopes:
            if s in self._files:
                found.append(s)
            lo = bisect.bisect_left(files, s + "/")
            hi = bisect.bisect_left(files, s + "0")  # "0" sorts right after "/"
            found.extend(files[lo:hi])
        skips = [
            k for k in self._skips
            if any(k == s or k.startswith(s + "/") for s in scopes)
        ]
        return found, skips

    def _update(
        self,
        scopes: list[str] | None,
        *,
        on_progress: Callable[[ScanProgress], None] | None = None,
        on_batch: Callable[[ChangeBatch], None] | None = None,
        cancelled: Callable[[], bool] = _never,
        use_rows: bool = False,
        rescan: bool = False,
    ) -> ChangeBatch:
        """Re-walk ``scopes`` (root-relative paths; None = everything) and apply the result."""
        with self._update_lock:
            start = time.monotonic()
            record = TreeRecord()  # what the reconcile compares with later
            if scopes is None:
                old_file_ids: Iterable[str] = list(self._files)
                old_skip_ids: Iterable[str] = list(self._skips)
                items: Iterator[FileEntry | Skipped] = self._walker.walk(record=record)
            else:
                scopes = _minimal(scopes)
                old_file_ids, old_skip_ids = self._in_scope(scopes)
                seen: dict[tuple[int, int], str] = {}
                known = self._owner_lookup(old_file_ids)
                items = chain.from_iterable(
                    self._walker.walk(s, seen=seen, known=known, record=record)
                    for s in scopes
                )
            # The cache rows load in a helper thread while the walk stats the files.
            loader: _Background[dict[str, CachedFile]] | None = None
            if use_rows and self._cache is not None:
                loader = _Background(self._cache.load, self.pipeline.identity)
            walked: list[FileEntry | Skipped] = []
            last_progress = start
            with self._walker.rootdir.batch():  # scopes in one folder share its descriptor
                for item in items:
                    walked.append(item)
                    if on_progress is not None and (
                        time.monotonic() - last_progress >= PROGRESS_SECONDS
                    ):
                        last_progress = time.monotonic()
                        on_progress(ScanProgress(0, None, 0, last_progress - start))
                    if cancelled():
                        break
            total = sum(1 for i in walked if isinstance(i, FileEntry))
            rows = loader.result() if loader is not None else None

            old_fps, old_docs = self._fps, self._docs
            batch = ChangeBatch(rescan=rescan)  # the whole change, unless delivered in pieces
            records: dict[str, Document] = {}
            piece = ChangeBatch(documents=records)
            new_files: dict[str, Resolved] = {}
            new_skips: dict[str, Skipped] = {}
            new_fps: dict[str, Fingerprint] = {}
            skip_order: list[Skipped] = []
            done = bytes_done = 0
            last_batch = time.monotonic()
            for r in resolve_entries(
                walked, self.pipeline, self._walker.rootdir, options=self.options, jobs=self.jobs,
                cache=self._cache, rows=rows, cancelled=cancelled,
                cached=self._memory_hit if self._files else None,
            ):
                skip: Skipped | None
                if isinstance(r, Skipped):
                    skip = r
                else:
                    done += 1
                    bytes_done += r.key[0]
                    new_files[r.entry.id] = r
                    skip = r.skip
                    for doc, fp in r.docs:
                        new_fps[doc.id] = fp  # (the file record's own object, not a copy)
                        old = old_fps.get(doc.id)
                        if old is None:
                            piece.added[doc.id] = fp
                        elif old != fp:
                            piece.changed[doc.id] = fp
                        else:
                            known_doc = old_docs.get(doc.id)
                            if known_doc is doc or known_doc == doc:
                                continue  # nothing new about this document
                        records[doc.id] = doc
                if skip is not None:
                    skip_order.append(skip)
                    if self._skips.get(skip.id) != skip:
                        piece.skipped.append(skip)
                    new_skips[skip.id] = skip
                if done & 127:
                    continue  # look at the clock every 128 files only
                now = time.monotonic()
                if on_progress is not None and now - last_progress >= PROGRESS_SECONDS:
                    last_progress = now
                    on_progress(ScanProgress(done, total, bytes_done, now - start))
                if on_batch is not None and piece and now - last_batch >= BATCH_SECONDS:
                    last_batch = now
                    on_batch(piece)
                    records = {}
                    piece = ChangeBatch(documents=records)
            complete = not cancelled()
            # What disappeared: known documents in scope that the walk did not produce.
            removed_files: list[str] = []
            if complete:
                for fid in old_file_ids:
                    if fid not in new_files:
                        removed_files.append(fid)
                new_doc_ids = {d.id for r in new_files.values() for d, _ in r.docs}
                for fid in old_file_ids:
                    for doc, _ in self._files[fid].docs:
                        if doc.id not in new_doc_ids:
                            piece.removed.append(doc.id)
            self._apply(
                new_files, new_fps, new_skips, skip_order,
                old_file_ids if complete else [fid for fid in new_files if fid in self._files],
                old_skip_ids if complete else [],
                whole=scopes is None and complete,
            )
            if scopes is not None:
                self._reconciler.merge(scopes, record)
            elif complete:
                self._reconciler.replace(record)
            else:
                self._reconciler.forget()
            if self._cache is not None:
                identity = self.pipeline.identity
                if removed_files:
                    self._cache.forget(identity, removed_files)
                if rows is not None and complete:
                    self._cache.forget(identity, [p for p in rows if p not in new_files])
                self._cache.flush()
            if on_batch is None:
                batch.extend(piece)
            elif piece:
                on_batch(piece)
            if on_progress is not None:
                on_progress(ScanProgress(done, total, bytes_done, time.monotonic() - start))
            return batch

    def _owner_lookup(self, rewalked: Iterable[str]) -> Callable[[int, int], str | None]:
        """``known(dev, ino)`` for a partial walk: the document outside the walk that is
        that file (a hard link), checked on disk; the table is built on first use."""
        table: dict[int, str] | None = None
        files, skip = self._files, set(rewalked)

        def known(dev: int, ino: int) -> str | None:
            nonlocal table
            if table is None:
                table = {r.entry.inode: i for i, r in files.items() if i not in skip}
            owner = table.get(ino)
            if owner is None:
                return None
            try:
                st = self._walker.rootdir.lstat(owner)
            except OSError:
                return None
            return owner if (st.st_dev, st.st_ino) == (dev, ino) else None

        return known

    def _apply(
        self,
        new_files: dict[str, Resolved],
        new_fps: dict[str, Fingerprint],
        new_skips: dict[str, Skipped],
        skip_order: list[Skipped],
        old_file_ids: Iterable[str],
        old_skip_ids: Iterable[str],
        *,
        whole: bool,
    ) -> None:
        """Publish a new state: drop ``old_*`` ids, add the new ones (copy-on-write)."""
        if whole:
            files: dict[str, Resolved] = {}
            docs: dict[str, Document] = {}
            fps: dict[str, Fingerprint] = {}
            skips: dict[str, Skipped] = {}
        else:
            files = dict(self._files)
            docs = dict(self._docs)
            fps = dict(self._fps)
            skips = dict(self._skips)
            for fid in old_file_ids:
                old = files.pop(fid, None)
                if old is not None:
                    for doc, _ in old.docs:
                        docs.pop(doc.id, None)
                        fps.pop(doc.id, None)
            for sid in old_skip_ids:
                skips.pop(sid, None)
        files.update(new_files)
        for r in new_files.values():
            for doc, _ in r.docs:
                docs[doc.id] = doc
        fps.update(new_fps)
        skips.update(new_skips)
        if whole:
            skipped_list = skip_order
        else:
            skipped_list = sorted(skips.values(), key=lambda s: walk_order_key(s.id))
        self._files, self._docs, self._fps, self._skips = files, docs, fps, skips
        self._skipped_list = skipped_list
        self._sorted_files = None

    # -- reading ------------------------------------------------------------------------
    def read_bytes(self, id: str) -> bytes:
        """The bytes fingerprinted for ``id`` as they are on disk now.

        Raises KeyError for an unknown id and OSError (with a human reason) when the file
        cannot be read any more.
        """
        doc = self._docs[id]
        root = self._walker.rootdir
        try:
            if doc.kind == "mbox":
                rel = root.file_rel(id.rsplit("#", 1)[0])
                return read_range(root, rel, doc.offset, doc.size, expect_inode=doc.inode)
            return read_document_bytes(root, root.file_rel(id), max_size=self.options.max_size)[0]
        except SkipFile as exc:
            raise OSError(f"{id}: {exc.reason}") from exc

    def read_text(self, id: str, *, limit: int | None = None) -> str:
        """The document decoded for display like Go (one U+FFFD per bad byte), at most
        ``limit`` bytes of it."""
        from ditto_tui.core.fingerprint.normalize import decode_go

        data = self.read_bytes(id)
        return decode_go(data if limit is None else data[:limit])

    def mail_info(self, id: str) -> MailInfo | None:
        """Subject, sender and date of a mail document; None for other kinds or on failure."""
        doc = self._docs.get(id)
        if doc is None or doc.kind not in ("maildir", "mbox"):
            return None
        root = self._walker.rootdir
        try:
            if doc.kind == "mbox":
                head = read_range(
                    root, root.file_rel(id.rsplit("#", 1)[0]), doc.offset,
                    min(doc.size, MAIL_HEAD_BYTES), expect_inode=doc.inode,
                )
            else:
                head = read_head(root, root.file_rel(id), MAIL_HEAD_BYTES)
        except SkipFile:
            return None
        return mail_info(head)

    def excerpt(self, id: str, width: int = 80) -> str:
        """One line saying what document ``id`` is, for lists (at most about ``width``).

        An empty document reads ``"empty file"`` (``"empty message"`` in an mbox); a mail
        message (maildir or mbox) its Subject and sender (RFC 2047 decoded,
        :func:`~ditto_tui.core.text.display.mail_excerpt`), not its first header lines; any other
        document its first words (the text of an HTML page), whitespace collapsed. Control
        characters are escaped. Raises KeyError for an unknown id and OSError (with a human
        reason) when the file cannot be read. Reads at most ``EXCERPT_BYTES`` (or the mail
        header), so it is cheap enough to call for every row shown; still, call it off the
        UI thread.
        """
        from ditto_tui.core.fingerprint.normalize import decode_go
        from ditto_tui.core.text.display import excerpt, html_text, mail_excerpt

        doc = self._docs[id]
        if doc.size == 0:
            return "empty message" if doc.kind == "mbox" else "empty file"
        if doc.kind in ("maildir", "mbox"):
            info = self.mail_info(id)
            if info is not None and (info.subject or info.sender):
                return mail_excerpt(info.subject, info.sender, width)
        root = self._walker.rootdir
        try:
            if doc.kind == "mbox":
                rel = root.file_rel(id.rsplit("#", 1)[0])
                head = read_range(
                    root, rel, doc.offset, min(doc.size, EXCERPT_BYTES), expect_inode=doc.inode
                )
            else:
                head = read_head(root, root.file_rel(id), EXCERPT_BYTES)
        except SkipFile as exc:
            raise OSError(f"{id}: {exc.reason}") from exc
        text = decode_go(head)
        if doc.kind == "html":
            text = html_text(text)
        return excerpt(text, width)

    # -- watching -----------------------------------------------------------------------
    def start_watching(
        self,
        on_change: Callable[[ChangeBatch], None],
        *,
        poll: bool = False,
        on_state: Callable[[WatchState], None] | None = None,
    ) -> None:
        """Follow the root live; ``on_change`` gets each non-empty ChangeBatch (and every
        rescan batch) in the watcher thread, holding the update lock, so batches from
        watching and from :meth:`scan` (``on_batch``) arrive in the order the state
        changed. May be called before the first scan: changes seen during it are applied
        after it. ``poll=True`` polls instead of using inotify (network file systems).
        Restarts if already watching."""
        self.stop_watching()
        self._stop_reconcile.clear()
        self._on_change = on_change
        self._on_state = on_state
        self._watcher = FolderWatcher(
            str(self.root),
            self._deliver,
            poll=poll,
            is_ignored=self._walker.rules.is_ignored,
            reconcile_every=self.reconcile_every,
            on_state=on_state,
            notices=self.notices,
        )
        self._watcher.start()

    def _deliver(self, paths: set[str], mode: str) -> None:
        # The callback runs under the update lock: batches of the watcher and of a
        # concurrent scan reach their consumer in the order the state changed.
        reconcile = mode == "reconcile" and self._walker.is_dir
        if reconcile and self._reconciler.ready:
            self._reconcile()
            return
        with self._update_lock:
            if reconcile and self._reconciler.ready:
                # a whole walk ended while this waited (the first scan): it is the
                # reconcile's answer, not a second walk of everything (a million files)
                return
            if mode == "events" and "" not in paths:
                batch = self._update(sorted(paths))
            else:
                batch = self._update(None, rescan=mode == "rescan")
            if (batch or mode == "rescan") and self._on_change is not None:
                self._on_change(batch)

    def _reconcile(self) -> None:
        """Look for changes without the lock (paced, a slice at a time), then re-walk
        only the paths found, under it."""
        found = self._reconciler.find_changes(
            self._files, self._skips,
            unchanged=lambda r: self._memory_hit(r.entry) is not None,
            cancelled=self._stop_reconcile.is_set,
        )
        if not found.complete:
            return
        with self._update_lock:
            if "" in found.paths:  # the root itself could not be listed
                batch = self._update(None)
            else:
                batch = self._update(sorted(found.paths)) if found.paths else ChangeBatch()
            self._reconciler.commit(found)
            if batch and self._on_change is not None:
                self._on_change(batch)

    def pause_watching(self) -> None:
        """Hold change deliveries; they are applied on :meth:`resume_watching`."""
        if self._watcher is not None:
            self._watcher.pause()

    def resume_watching(self) -> None:
        """Apply what changed while paused, then reconcile."""
        if self._watcher is not None:
            self._watcher.resume()

    def stop_watching(self) -> None:
        """Stop following the folder (idempotent)."""
        self._stop_reconcile.set()  # a reconcile in progress ends at its next rest
        if self._watcher is not None:
            self._watcher.stop()
            self._watcher = None

    # -- stored near pairs ------------------------------------------------------------------
    def load_pairs(self, digest: str, k: int) -> UniquePairs | None:
        """The near pairs stored for this pipeline at ``k`` over the distinct fingerprints
        with ``digest`` (see :class:`UniquePairs`); None without a cache or a match.
        Callable from any thread."""
        cache = self._cache
        if cache is None or self._closed:
            return None
        return cache.load_pairs(self.pipeline.identity, k, digest)

    def store_pairs(self, pairs: UniquePairs) -> None:
        """Remember ``pairs`` for this pipeline at ``pairs.k`` (replacing the previous ones)
        so the next open of an unchanged corpus skips the join; a no-op without a cache.
        Blocking (a write of about 9 bytes per pair): call it from a worker thread."""
        cache = self._cache
        if cache is None or self._closed:
            return
        cache.store_pairs(self.pipeline.identity, pairs)

    # -- switching pipeline ---------------------------------------------------------------
    def forget_cached(self, ids: Iterable[str]) -> None:
        """Drop the cached fingerprints of these document ids (their files are read again
        at the next scan): for files found rewritten in place with the same size, mtime
        and inode, whose cached fingerprint is stale."""
        cache = self._cache
        if cache is not None:
            cache.forget(self.pipeline.identity, sorted(set(ids)))

    def with_options(self, options: ScanOptions) -> CorpusSession:
        """A new, unscanned session like this one but with other scan ``options`` (minimum
        size, empty files, symlinks, ...); see :meth:`with_pipeline`. Unchanged files are
        answered from the shared cache: fingerprints do not depend on the options."""
        return self.with_pipeline(self.pipeline, options=options)

    def with_pipeline(
        self, pipeline: Pipeline, *, options: ScanOptions | None = None
    ) -> CorpusSession:
        """A new, unscanned session on the same root, options, jobs and cache database,
        fingerprinting with ``pipeline`` (and scanning with ``options`` when given); call
        :meth:`scan` on it.

        The cache keeps fingerprints per pipeline identity side by side, so the sibling's
        scan answers every unchanged file that ``pipeline`` has fingerprinted before from
        the cache (switching back and forth reads nothing twice). The sibling opens its own
        connection to the same database file (SQLite in WAL mode with a busy timeout, so
        both sessions may use it at once) and is closed on its own: closing either session
        leaves the other working. Without a working cache here (``use_cache=False``, none
        available, or turned off after an error) the sibling has none either. This session
        is left as it is (still watching if it was). Raises RuntimeError once closed.
        """
        if self._closed:
            raise RuntimeError("the session is closed")
        cache = self._cache
        if cache is not None:
            cache.flush()  # what this session learnt is visible to the sibling
        path = cache.path if cache is not None and cache.enabled else None
        return CorpusSession(
            self.root,
            pipeline,
            options=self.options if options is None else options,
            cache=path,
            use_cache=path is not None,
            jobs=self.jobs,
            reconcile_every=self.reconcile_every,
        )

    def close(self) -> None:
        """Stop watching and close the cache (idempotent)."""
        if self._closed:
            return
        self._closed = True
        self.stop_watching()
        with self._update_lock:
            if self._cache is not None:
                self._cache.close()
            self._walker.close()

    def __enter__(self) -> CorpusSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Background(Generic[T]):
    """Run one call in a short-lived thread; ``result()`` joins it (and re-raises)."""

    def __init__(self, fn: Callable[..., T], *args: object) -> None:
        self._value: T | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(fn, args), daemon=True)
        self._thread.start()

    def _run(self, fn: Callable[..., T], args: tuple[object, ...]) -> None:
        try:
            self._value = fn(*args)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller
            self._error = exc

    def result(self) -> T:
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._value  # type: ignore[return-value]


def _minimal(paths: Iterable[str]) -> list[str]:
    """Sorted paths without those below another listed path."""
    out: list[str] = []
    for p in sorted(set(paths), key=lambda p: p.split("/")):
        if out and (p == out[-1] or p.startswith(out[-1] + "/")):
            continue
        out.append(p)
    return out
