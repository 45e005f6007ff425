"""MemorySource: a corpus held in memory, for tests and benchmarks.

It meets :class:`~ditto_tui.explore.source.CorpusSource` the way a folder session does:
``disk`` is the corpus "on disk" (id -> fingerprint); :meth:`scan` brings the source's
own state up to date with it in batches; :meth:`write` and :meth:`delete` change the disk
and, while watching, deliver the change at once through the watch callback. Every
delivery is made under the source's lock in the order its state changed, like
``CorpusSession``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from types import MappingProxyType

from ditto_tui.core.fingerprint.pipeline import Pipeline, make_pipeline
from ditto_tui.core.fingerprint.simhash import Fingerprint
from ditto_tui.corpus.documents import ChangeBatch, Document, MailInfo, ScanProgress, Skipped
from ditto_tui.corpus.watch import WatchState


def _never() -> bool:
    return False


class MemorySource:
    """An in-memory corpus (see module docstring). ``texts`` gives document texts (a
    default line otherwise); ``batch`` documents per scan batch, ``delay`` seconds of
    sleep per batch (to imitate reading). ``pipeline`` is only named (the fingerprints
    are given, not computed); ditto's default when not given."""

    def __init__(
        self,
        fingerprints: Mapping[str, int],
        *,
        texts: Mapping[str, str] | None = None,
        batch: int = 2000,
        delay: float = 0.0,
        root: str = "memory",
        pipeline: Pipeline | None = None,
        skipped: Iterable[Skipped] = (),
    ) -> None:
        self.root = Path(root)
        self.pipeline = pipeline if pipeline is not None else make_pipeline()
        self.notices: list[str] = []
        self.texts = dict(texts or {})
        self.batch = batch
        self.delay = delay
        self.disk: dict[str, int] = dict(fingerprints)
        self._mtime: dict[str, int] = {doc_id: i * 10**9 for i, doc_id in enumerate(self.disk)}
        self._lock = threading.RLock()
        self._fps: dict[str, Fingerprint] = {}
        self._docs: dict[str, Document] = {}
        self._skipped = list(skipped)
        self._on_change: Callable[[ChangeBatch], None] | None = None
        self._state: WatchState = "off"
        self._held: set[str] = set()
        self._clock = len(self.disk)

    # -- snapshots ------------------------------------------------------------------------
    @property
    def documents(self) -> Mapping[str, Document]:
        return MappingProxyType(self._docs)

    @property
    def fingerprints(self) -> Mapping[str, Fingerprint]:
        return MappingProxyType(self._fps)

    @property
    def skipped(self) -> list[Skipped]:
        return list(self._skipped)

    @property
    def watch_state(self) -> WatchState:
        return self._state

    # -- scanning -------------------------------------------------------------------------
    def scan(
        self,
        *,
        on_progress: Callable[[ScanProgress], None] | None = None,
        on_batch: Callable[[ChangeBatch], None] | None = None,
        cancelled: Callable[[], bool] = _never,
    ) -> ChangeBatch:
        """Bring the state up to date with ``disk`` in batches (blocking). Like
        ``CorpusSession.scan``: the change is returned, or with ``on_batch`` only
        delivered in pieces (an empty batch is returned)."""
        start = time.perf_counter()
        with self._lock:
            ids = list(self.disk)
            everything = ChangeBatch()
            fps, docs = dict(self._fps), dict(self._docs)  # published when the scan ends
            for offset in range(0, len(ids), self.batch):
                if cancelled():
                    break
                piece = self._sync(ids[offset : offset + self.batch], fps, docs)
                if self.delay:
                    time.sleep(self.delay)
                if on_batch is None:
                    everything.extend(piece)
                elif piece:
                    on_batch(piece)
                if on_progress is not None:
                    done = min(offset + self.batch, len(ids))
                    on_progress(ScanProgress(done, len(ids), done * 1000, time.perf_counter() - start))
            if not cancelled():
                gone = self._sync([i for i in fps if i not in self.disk], fps, docs)
                if on_batch is None:
                    everything.extend(gone)
                elif gone:
                    on_batch(gone)
            self._fps, self._docs = fps, docs
            return everything

    def _sync(
        self, ids: Iterable[str], fps: dict[str, Fingerprint], docs: dict[str, Document]
    ) -> ChangeBatch:
        """Make the state of ``ids`` in ``fps``/``docs`` equal the disk; the change."""
        records: dict[str, Document] = {}
        piece = ChangeBatch(documents=records)
        for doc_id in ids:
            fp = self.disk.get(doc_id)
            old = fps.get(doc_id)
            if fp is None:
                if old is not None:
                    del fps[doc_id]
                    docs.pop(doc_id, None)
                    piece.removed.append(doc_id)
                continue
            if old == fp:
                continue
            value = fps[doc_id] = Fingerprint(fp)  # one object, shared with the batch
            docs[doc_id] = records[doc_id] = Document(
                doc_id, "/" + doc_id, "text", 1000, self._mtime.get(doc_id, 0), 0
            )
            if old is None:
                piece.added[doc_id] = value
            else:
                piece.changed[doc_id] = value
        return piece

    # -- changing the "disk" --------------------------------------------------------------
    def write(self, changes: Mapping[str, int]) -> None:
        """Create or overwrite documents on the disk (delivered at once while watching)."""
        with self._lock:
            for doc_id, fp in changes.items():
                self.disk[doc_id] = fp
                self._clock += 1
                self._mtime[doc_id] = self._clock * 10**9
            self._event(changes)

    def delete(self, ids: Iterable[str]) -> None:
        """Remove documents from the disk (delivered at once while watching)."""
        ids = list(ids)
        with self._lock:
            for doc_id in ids:
                self.disk.pop(doc_id, None)
            self._event(ids)

    def rename(self, old: str, new: str) -> None:
        """Move a document to a new id (one event, as a watcher reports a move)."""
        with self._lock:
            self.disk[new] = self.disk.pop(old)
            self._clock += 1
            self._mtime[new] = self._mtime.pop(old, self._clock * 10**9)
            self._event([old, new])

    def _event(self, ids: Iterable[str]) -> None:
        if self._state == "off":
            return
        if self._state == "paused":
            self._held.update(ids)
            return
        fps, docs = dict(self._fps), dict(self._docs)  # copy-on-write: readers keep theirs
        piece = self._sync(ids, fps, docs)
        self._fps, self._docs = fps, docs
        if piece and self._on_change is not None:
            self._on_change(piece)

    # -- reading --------------------------------------------------------------------------
    def read_text(self, id: str, *, limit: int | None = None) -> str:
        if id not in self._docs:
            raise KeyError(id)
        text = self.texts.get(id, f"document {id}\nsome words about tides and harbours\n")
        return text if limit is None else text[:limit]

    def mail_info(self, id: str) -> MailInfo | None:
        return None

    # -- watching -------------------------------------------------------------------------
    def start_watching(
        self,
        on_change: Callable[[ChangeBatch], None],
        *,
        poll: bool = False,
        on_state: Callable[[WatchState], None] | None = None,
    ) -> None:
        with self._lock:
            self._on_change = on_change
            self._state = "watching"

    def pause_watching(self) -> None:
        with self._lock:
            if self._state == "watching":
                self._state = "paused"

    def resume_watching(self) -> None:
        with self._lock:
            if self._state == "paused":
                self._state = "watching"
                held, self._held = self._held, set()
                self._event(held)

    def stop_watching(self) -> None:
        with self._lock:
            self._state = "off"
            self._on_change = None

    def close(self) -> None:
        self.stop_watching()
