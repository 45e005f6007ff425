"""A Spark results folder opened on one machine with pyarrow (no Spark, no Java).

:func:`load_results` reads the tables of :mod:`ditto_tui.scale.layout` into
:class:`Results`: ids, fingerprints (``np.uint64``), sizes, the skipped files, the stored
families per k, and the corpus root. :class:`ResultsSession` presents the same data
with the read-only part of :class:`~ditto_tui.corpus.session.CorpusSession`'s interface
(``root``, ``pipeline``, ``scan``, ``documents``, ``fingerprints``, ``skipped``,
``read_bytes``, ``read_text``, ``mail_info``, ``watch_state`` and no-op watching), so the
explorer (``DittoApp(session, watch=False)``) browses Spark results unchanged. Documents
are read, through :mod:`ditto_tui.corpus.reading`, only when the root is a local folder
(or ``root=`` points at a local copy); otherwise reads raise OSError with a reason.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import numpy as np

from ditto_tui.core.simhash import Fingerprint
from ditto_tui.corpus.documents import (
    ChangeBatch,
    Document,
    MailInfo,
    ScanOptions,
    ScanProgress,
    Skipped,
)
from ditto_tui.scale.layout import FAMILIES, FINGERPRINTS, SKIPPED, meta_name

if TYPE_CHECKING:
    from ditto_tui.core.pipeline import Pipeline

__all__ = ["Results", "ResultsSession", "load_results", "local_root"]

BATCH_DOCS = 50_000
MAIL_HEAD_BYTES = 256 * 1024


def local_root(root_uri: str) -> str | None:
    """The local folder of a ``file:`` root URI (or a plain path), None for other schemes."""
    parts = urlsplit(root_uri)
    if parts.scheme in ("", "file"):
        return parts.path or None
    return None


@dataclass
class Results:
    """The contents of a results folder, ids sorted in code-point order.

    ``fps[i]``, ``sizes[i]``, ``offsets[i]`` and ``kinds[i]`` belong to ``ids[i]``;
    ``families[k][i]`` is the position of the family label (smallest member id) of
    ``ids[i]`` at distance k, for every stored k (empty without a families stage).
    """

    path: Path
    root_uri: str
    identity: str
    pipeline: dict[str, Any]
    options: dict[str, Any]
    ids: list[str]
    fps: np.ndarray
    sizes: np.ndarray
    offsets: np.ndarray
    kinds: list[str]
    skipped: list[tuple[str, str]]
    families: dict[int, np.ndarray] = field(default_factory=dict)
    pairs_k: int | None = None

    @property
    def levels(self) -> list[int]:
        """The k values with stored families, ascending."""
        return sorted(self.families)

    def position(self, doc_id: str) -> int:
        """Index of ``doc_id`` in ``ids``; KeyError when absent."""
        i = int(np.searchsorted(self._id_array, doc_id))
        if i >= len(self.ids) or self.ids[i] != doc_id:
            raise KeyError(doc_id)
        return i

    @property
    def _id_array(self) -> np.ndarray:
        cached = getattr(self, "_ids_np", None)
        if cached is None:
            cached = np.array(self.ids, dtype=object)
            self._ids_np = cached
        return cached

    def family_of(self, doc_id: str, k: int) -> str:
        """The label (smallest member id) of ``doc_id``'s stored family at ``k``; KeyError
        when ``k`` is not stored or the id is unknown."""
        return self.ids[int(self.families[k][self.position(doc_id)])]

    def families_at(self, k: int, min_size: int = 1) -> list[list[str]]:
        """Stored families at ``k`` in ditto's order (size descending, then sorted member
        lists), members sorted; only families of at least ``min_size``. KeyError when ``k``
        is not stored."""
        labels = self.families[k]
        order = np.argsort(labels, kind="stable")
        cuts = np.flatnonzero(np.diff(labels[order])) + 1
        groups = [
            [self.ids[i] for i in chunk.tolist()]
            for chunk in np.split(order, cuts)
            if len(chunk) >= max(min_size, 1)
        ]
        groups.sort(key=lambda g: (-len(g), g))
        return groups


def _read_table(path: Path) -> Any:
    import pyarrow.parquet as pq

    return pq.read_table(str(path))


def _meta(path: Path, stage: str) -> dict[str, Any] | None:
    folder = path / meta_name(stage)
    if not folder.exists():
        return None
    rows = _read_table(folder).column("json").to_pylist()
    return json.loads(rows[0]) if rows else None


def load_results(path: str | os.PathLike[str]) -> Results:
    """Read a local results folder; needs at least the fingerprint stage.

    Raises FileNotFoundError when ``path`` holds no ``fingerprints`` table, and ValueError
    when the folder mixes pipelines or its families name unknown ids.
    """
    folder = Path(path)
    fp_meta = _meta(folder, "fingerprint")
    if not (folder / FINGERPRINTS).exists() or fp_meta is None:
        raise FileNotFoundError(f"{folder}: not a ditto-tui Spark results folder (no {FINGERPRINTS})")
    table = _read_table(folder / FINGERPRINTS).sort_by([("id", "ascending")])
    ids = table.column("id").to_pylist()
    identities = set(table.column("pipeline").unique().to_pylist())
    identity = str(fp_meta["pipeline"]["identity"])
    if identities - {identity}:
        raise ValueError(f"{folder}: fingerprints of several pipelines: {sorted(identities)}")
    fps = table.column("fp").to_numpy().astype(np.int64, copy=False).view(np.uint64)
    skipped: list[tuple[str, str]] = []
    if (folder / SKIPPED).exists():
        sk = _read_table(folder / SKIPPED).sort_by([("id", "ascending")])
        skipped = list(zip(sk.column("id").to_pylist(), sk.column("reason").to_pylist(), strict=True))
    results = Results(
        path=folder,
        root_uri=str(fp_meta["root"]),
        identity=identity,
        pipeline=dict(fp_meta["pipeline"]),
        options=dict(fp_meta.get("options", {})),
        ids=ids,
        fps=np.ascontiguousarray(fps),
        sizes=table.column("size").to_numpy(),
        offsets=table.column("offset").to_numpy(),
        kinds=table.column("kind").to_pylist(),
        skipped=skipped,
    )
    pairs_meta = _meta(folder, "pairs")
    if pairs_meta is not None:
        results.pairs_k = int(pairs_meta["k"])
    if (folder / FAMILIES).exists() and _meta(folder, "families") is not None:
        results.families = _load_families(results, _read_table(folder / FAMILIES))
    return results


def _load_families(results: Results, table: Any) -> dict[int, np.ndarray]:
    ids = results._id_array
    ks = table.column("k").to_numpy()
    member = np.array(table.column("id").to_pylist(), dtype=object)
    label = np.array(table.column("family").to_pylist(), dtype=object)
    out: dict[int, np.ndarray] = {}
    for k in np.unique(ks).tolist():
        sel = ks == k
        pos = np.searchsorted(ids, member[sel])
        lab = np.searchsorted(ids, label[sel])
        if len(pos) != len(ids) or np.any(pos >= len(ids)) or np.any(lab >= len(ids)):
            raise ValueError(f"{results.path}: families at k={k} do not match the fingerprints")
        if np.any(ids[pos] != member[sel]) or np.any(ids[lab] != label[sel]):
            raise ValueError(f"{results.path}: families at k={k} name unknown documents")
        labels = np.empty(len(ids), np.int64)
        labels[pos] = lab
        out[int(k)] = labels
    return out


class ResultsSession:
    """A read-only, CorpusSession-like view of :class:`Results` for the explorer.

    ``root`` overrides where documents are read from (a local copy of the corpus);
    by default the results' root when it is a local folder. Never watches: ``watch_state``
    is ``"off"`` and the watching methods do nothing.
    """

    def __init__(self, results: Results, *, root: str | os.PathLike[str] | None = None) -> None:
        self.results = results
        local = str(root) if root is not None else local_root(results.root_uri)
        self.readable = local is not None and os.path.isdir(local)
        self.root = Path(local if local is not None else results.path)
        self.options = ScanOptions(
            max_size=int(results.options.get("max_size", ScanOptions().max_size)),
            include_binary=bool(results.options.get("include_binary", False)),
        )
        self.notices: list[str] = []
        if not self.readable:
            self.notices.append(
                f"documents live at {results.root_uri}, not readable from this machine: "
                "previews and diffs are off"
            )
        base = str(self.root)
        docs: dict[str, Document] = {}
        fps: dict[str, Fingerprint] = {}
        for i, doc_id in enumerate(results.ids):
            file_id = doc_id.rsplit("#", 1)[0] if results.kinds[i] == "mbox" else doc_id
            path = os.path.join(base, *file_id.split("/"))
            docs[doc_id] = Document(
                doc_id, path, results.kinds[i], int(results.sizes[i]), 0, 0,
                int(results.offsets[i]),
            )
            fps[doc_id] = Fingerprint(int(results.fps[i]))
        self._docs = docs
        self._fps = fps
        self._skipped = [
            Skipped(s_id, os.path.join(base, *s_id.split("/")), reason)
            for s_id, reason in results.skipped
        ]
        self.pipeline = _pipeline(results.pipeline)

    @property
    def documents(self) -> Mapping[str, Document]:
        return MappingProxyType(self._docs)

    @property
    def fingerprints(self) -> Mapping[str, Fingerprint]:
        return MappingProxyType(self._fps)

    @property
    def skipped(self) -> list[Skipped]:
        return list(self._skipped)

    watch_state = "off"

    def scan(
        self,
        *,
        on_progress: Callable[[ScanProgress], None] | None = None,
        on_batch: Callable[[ChangeBatch], None] | None = None,
        cancelled: Callable[[], bool] = lambda: False,
    ) -> ChangeBatch:
        """Deliver the stored fingerprints as if scanned (in batches of ``BATCH_DOCS``)."""
        total = ChangeBatch(added=dict(self._fps), skipped=list(self._skipped))
        items = list(self._fps.items())
        done = 0
        for start in range(0, len(items), BATCH_DOCS):
            if cancelled():
                break
            chunk = dict(items[start : start + BATCH_DOCS])
            done += len(chunk)
            if on_batch is not None:
                on_batch(ChangeBatch(added=chunk))
            if on_progress is not None:
                on_progress(ScanProgress(done, len(items), 0, 0.0))
        return total

    def read_bytes(self, id: str) -> bytes:
        """The document's bytes from the local root; KeyError for an unknown id, OSError
        when the corpus is not readable here or the file cannot be read."""
        from ditto_tui.corpus.reading import SkipFile, read_document_bytes, read_range
        from ditto_tui.corpus.rootdir import RootDir

        doc = self._docs[id]
        if not self.readable:
            raise OSError(f"{id}: stored at {self.results.root_uri}, not readable from this machine")
        root = RootDir(self.root)  # every open stays inside the root (see corpus.rootdir)
        try:
            if doc.kind == "mbox":
                return read_range(root, id.rsplit("#", 1)[0], doc.offset, doc.size)
            return read_document_bytes(root, id, max_size=self.options.max_size)[0]
        except SkipFile as exc:
            raise OSError(f"{id}: {exc.reason}") from exc
        finally:
            root.close()

    def read_text(self, id: str, *, limit: int | None = None) -> str:
        """The document decoded like Go (one U+FFFD per bad byte), at most ``limit`` bytes."""
        from ditto_tui.core.normalize import decode_go

        data = self.read_bytes(id)
        return decode_go(data if limit is None else data[:limit])

    def mail_info(self, id: str) -> MailInfo | None:
        """Headers of an mbox message; None for other kinds or when unreadable."""
        from ditto_tui.corpus.mail import mail_info

        doc = self._docs.get(id)
        if doc is None or doc.kind != "mbox":
            return None
        try:
            return mail_info(self.read_bytes(id)[:MAIL_HEAD_BYTES])
        except OSError:
            return None

    def start_watching(self, *args: Any, **kwargs: Any) -> None:
        """Results do not change: nothing to watch."""

    def pause_watching(self) -> None:
        """Nothing to pause."""

    def resume_watching(self) -> None:
        """Nothing to resume."""

    def stop_watching(self) -> None:
        """Nothing to stop."""

    def close(self) -> None:
        """Nothing to release."""


def _pipeline(spec: Mapping[str, Any]) -> Pipeline:
    from ditto_tui.core.pipeline import make_pipeline

    return make_pipeline(
        str(spec.get("name", "ditto")),
        char_n=int(spec.get("char_n", 4)),
        word_n=int(spec.get("word_n", 0)),
        shingle=int(spec.get("shingle", 3)),
    )
