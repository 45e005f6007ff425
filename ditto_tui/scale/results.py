"""A Spark results folder opened on one machine with pyarrow (no Spark, no Java).

:func:`load_results` reads the tables of :mod:`ditto_tui.scale.layout` into
:class:`Results` with ``pyarrow.dataset``, only the columns it needs, as arrays: ids
(Arrow), fingerprints (``np.uint64``), sizes, offsets; the Python list of ids, the kinds
and the families per k are built the first time they are asked for. :class:`ResultsSession`
presents the same data with the read-only part of
:class:`~ditto_tui.corpus.session.CorpusSession`'s interface (``root``, ``pipeline``,
``scan``, ``documents``, ``fingerprints``, ``skipped``, ``read_bytes``, ``read_text``,
``mail_info``, ``watch_state`` and no-op watching) -- ``documents`` and ``fingerprints`` are
mappings that build their values on access -- so the explorer
(``DittoApp(session, watch=False)``) browses Spark results unchanged. Opened for a largest
k the stored families cover, the session hands the explorer those families
(:meth:`ResultsSession.stored_index`) and its scan delivers nothing: no index is built
and no object is made per document. Documents are read,
through :mod:`ditto_tui.corpus.reading`, only when the root is a local folder (or
``root=`` points at a local copy); otherwise reads raise OSError with a reason. The skips
include the files Spark could not name (``\\xNN`` escapes in the id).
"""

from __future__ import annotations

import bisect
import json
import os
from collections.abc import Callable, ItemsView, Iterator, Mapping, ValuesView
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import numpy as np

from ditto_tui.core.fingerprint.simhash import Fingerprint
from ditto_tui.core.index.stored import StoredIndex, distinct_nodes
from ditto_tui.corpus.documents import (
    ChangeBatch,
    Document,
    FixedDocuments,
    MailInfo,
    ScanOptions,
    ScanProgress,
    Skipped,
)
from ditto_tui.corpus.watch import WatchState
from ditto_tui.scale.layout import DOCS_RANK, FAMILIES, FINGERPRINTS, PAIRS_FP, SKIPPED, meta_name

if TYPE_CHECKING:
    from ditto_tui.core.fingerprint.pipeline import Pipeline

__all__ = ["Results", "ResultsSession", "load_results", "local_root"]

BATCH_DOCS = 50_000


def local_root(root_uri: str) -> str | None:
    """The local folder of a ``file:`` root URI (or a plain path), None for other schemes."""
    parts = urlsplit(root_uri)
    if parts.scheme in ("", "file"):
        return parts.path or None
    return None


class ArrowIds:
    """An Arrow string array of ids as a :class:`~ditto_tui.core.index.stored.IdColumn`;
    the positions of ids named with ``remember`` are kept for :meth:`position` (a dict
    of the family members, not of every id)."""

    def __init__(self, array: Any) -> None:
        self.array = array
        self._known: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self.array)

    def __getitem__(self, position: int) -> str:
        return str(self.array[position].as_py())

    def take(self, positions: np.ndarray, *, remember: bool = False) -> list[str]:
        names: list[str] = self.array.take(positions).to_pylist()
        if remember:
            self._known.update(zip(names, positions.tolist(), strict=True))
        return names

    def position(self, doc_id: str) -> int:
        """Index of ``doc_id`` (a binary search over the array unless remembered);
        KeyError when absent."""
        known = self._known.get(doc_id)
        if known is not None:
            return known
        i = bisect.bisect_left(self, doc_id)  # (a sequence for bisect: len and [i])
        if i >= len(self.array) or self[i] != doc_id:
            raise KeyError(doc_id)
        return i


class _Families(Mapping[int, np.ndarray]):
    """``families[k]``: per document position, the position of its family label (the
    smallest member), computed on access from the compact ``families`` table (the last
    few are kept)."""

    def __init__(self, results: Results, levels: list[int], changes: Any) -> None:
        self._results = results
        self._levels = levels
        self._changes = changes
        self._cache: dict[int, np.ndarray] = {}

    def __getitem__(self, k: int) -> np.ndarray:
        if k not in self._levels:
            raise KeyError(k)
        hit = self._cache.pop(k, None)
        if hit is None:
            hit = self._results._labels_at(k, self._changes)
        if len(self._cache) >= 3:
            self._cache.pop(next(iter(self._cache)))
        self._cache[k] = hit  # (the latest last)
        return hit

    def __iter__(self) -> Iterator[int]:
        return iter(self._levels)

    def __len__(self) -> int:
        return len(self._levels)


class Results:
    """The contents of a results folder, documents in id (code-point) order.

    ``fps[i]``, ``sizes[i]``, ``offsets[i]`` and ``kinds[i]`` belong to ``ids[i]``, whose
    ``doc`` number is ``i``; ``families[k][i]`` is the position of the family label
    (smallest member id) of ``ids[i]`` at distance k, for every stored k (empty without a
    families stage). ``id_array`` is the Arrow array of ids; ``ids`` and ``kinds`` are
    Python lists made on first use.
    """

    def __init__(
        self,
        path: Path,
        root_uri: str,
        identity: str,
        pipeline: dict[str, Any],
        options: dict[str, Any],
        id_array: Any,
        fps: np.ndarray,
        sizes: np.ndarray,
        offsets: np.ndarray,
        kind_array: Any,
        skipped: list[tuple[str, str]],
        pairs_k: int | None = None,
    ) -> None:
        self.path = path
        self.root_uri = root_uri
        self.identity = identity
        self.pipeline = pipeline
        self.options = options
        self.id_array = id_array
        self.id_column = ArrowIds(id_array)
        self.fps = fps
        self.sizes = sizes
        self.offsets = offsets
        self.kind_array = kind_array
        self.skipped = skipped
        self.pairs_k = pairs_k
        self.families: Mapping[int, np.ndarray] = {}

    def __len__(self) -> int:
        return len(self.fps)

    @cached_property
    def ids(self) -> list[str]:
        """Every document id, in order (a list made on first use)."""
        return list(self.id_array.to_pylist())

    @cached_property
    def kinds(self) -> list[str]:
        """Every document's kind (``text``, ``html``, ``mbox``), in order."""
        return list(self.kind_array.to_pylist())

    @property
    def levels(self) -> list[int]:
        """The k values with stored families, ascending."""
        return sorted(self.families)

    def position(self, doc_id: str) -> int:
        """Index of ``doc_id`` in ``ids`` (a binary search on the Arrow array, no list is
        made); KeyError when absent."""
        return self.id_column.position(doc_id)

    def covers(self, max_k: int) -> bool:
        """Whether stored families hold every k from 0 to ``max_k``."""
        return all(k in self.families for k in range(max_k + 1))

    def stored_pairs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """The stored fingerprint pairs ``(fp_a, fp_b, distance)`` (None without a
        ``pairs-fp`` table)."""
        folder = self.path / PAIRS_FP
        if self.pairs_k is None or not folder.exists():
            return None
        table = _dataset_table(folder, ["fp_a", "fp_b", "distance"])
        return (
            table.column("fp_a").to_numpy().astype(np.int64, copy=False).view(np.uint64),
            table.column("fp_b").to_numpy().astype(np.int64, copy=False).view(np.uint64),
            table.column("distance").to_numpy().astype(np.int64),
        )

    def id_at(self, i: int) -> str:
        """The id of document ``i``."""
        return self.id_column[i]

    def kind_at(self, i: int) -> str:
        """The kind of document ``i``."""
        return str(self.kind_array[i].as_py())

    @cached_property
    def nodes(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Distinct fingerprints, each one's first position, and each position's node
        (:func:`~ditto_tui.core.index.stored.distinct_nodes`)."""
        return distinct_nodes(self.fps)

    def _labels_at(self, k: int, changes: Any) -> np.ndarray:
        u, first, inv = self.nodes
        labels = first.astype(np.int32 if len(self.fps) < 2**31 else np.int64)
        if changes is not None and changes.num_rows:
            ks = changes.column("k").to_numpy()
            sel = np.flatnonzero(ks <= k)
            sel = sel[np.argsort(ks[sel], kind="stable")]  # later levels win
            fp = changes.column("fp").to_numpy().astype(np.int64, copy=False)
            fam = changes.column("family").to_numpy().astype(np.int64, copy=False)
            nodes = np.searchsorted(u, fp[sel].view(np.uint64))
            bad = (nodes >= len(u)) | (fam[sel] < 0) | (fam[sel] >= len(self.fps))
            if np.any(bad) or np.any(u[np.minimum(nodes, len(u) - 1)] != fp[sel].view(np.uint64)):
                raise ValueError(f"{self.path}: families at k={k} do not match the fingerprints")
            labels[nodes] = fam[sel]
        return labels[inv]

    def family_of(self, doc_id: str, k: int) -> str:
        """The label (smallest member id) of ``doc_id``'s stored family at ``k``; KeyError
        when ``k`` is not stored or the id is unknown."""
        return self.id_column[int(self.families[k][self.position(doc_id)])]

    def families_at(self, k: int, min_size: int = 1) -> list[list[str]]:
        """Stored families at ``k`` in ditto's order (size descending, then sorted member
        lists), members sorted; only families of at least ``min_size``. KeyError when ``k``
        is not stored."""
        labels = self.families[k]
        order = np.argsort(labels, kind="stable")
        ordered = labels[order]
        starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]]) if len(order) else order
        lens = np.diff(np.r_[starts, len(order)])
        keep = np.flatnonzero(lens >= max(min_size, 1))
        take = self.id_array.take
        groups = [
            take(order[s : s + n]).to_pylist()
            for s, n in zip(starts[keep].tolist(), lens[keep].tolist(), strict=True)
        ]
        groups.sort(key=lambda g: (-len(g), g))
        return groups


def _dataset_table(path: Path, columns: list[str] | None = None) -> Any:
    """The Parquet files of a Spark table folder (``_``/``.`` files skipped), as a table."""
    import pyarrow.dataset as ds

    return ds.dataset(str(path), format="parquet").to_table(columns=columns)


def _meta(path: Path, stage: str) -> dict[str, Any] | None:
    folder = path / meta_name(stage)
    if not folder.exists():
        return None
    rows = _dataset_table(folder).column("json").to_pylist()
    return json.loads(rows[0]) if rows else None


def load_results(path: str | os.PathLike[str]) -> Results:
    """Read a local results folder; needs at least the fingerprint stage.

    Raises FileNotFoundError when ``path`` holds no ``fingerprints`` table, and ValueError
    when the folder mixes pipelines, its document numbers are not ``0..n-1`` or its
    families name unknown fingerprints.
    """
    import pyarrow.compute as pc

    folder = Path(path)
    fp_meta = _meta(folder, "fingerprint")
    if not (folder / FINGERPRINTS).exists() or fp_meta is None:
        raise FileNotFoundError(f"{folder}: not a ditto-tui Spark results folder (no {FINGERPRINTS})")
    table = _dataset_table(
        folder / FINGERPRINTS, [DOCS_RANK, "id", "fp", "size", "offset", "kind", "pipeline"]
    )
    docs = table.column(DOCS_RANK).to_numpy()
    if len(docs) and not np.array_equal(docs, np.arange(len(docs))):
        order = np.argsort(docs, kind="stable")
        table = table.take(order)
        docs = docs[order]
        if not np.array_equal(docs, np.arange(len(docs))):
            raise ValueError(f"{folder}: document numbers are not 0..{len(docs) - 1}")
    identity = str(fp_meta["pipeline"]["identity"])
    identities = set(pc.unique(table.column("pipeline")).to_pylist())
    if identities - {identity}:
        raise ValueError(f"{folder}: fingerprints of several pipelines: {sorted(identities)}")
    fps = table.column("fp").to_numpy().astype(np.int64, copy=False).view(np.uint64)
    skipped: list[tuple[str, str]] = []
    if (folder / SKIPPED).exists():
        sk = _dataset_table(folder / SKIPPED).sort_by([("id", "ascending")])
        skipped = list(zip(sk.column("id").to_pylist(), sk.column("reason").to_pylist(), strict=True))
    results = Results(
        path=folder,
        root_uri=str(fp_meta["root"]),
        identity=identity,
        pipeline=dict(fp_meta["pipeline"]),
        options=dict(fp_meta.get("options", {})),
        id_array=table.column("id").combine_chunks(),
        fps=np.ascontiguousarray(fps),
        sizes=table.column("size").to_numpy(),
        offsets=table.column("offset").to_numpy(),
        kind_array=table.column("kind").combine_chunks(),
        skipped=skipped,
    )
    pairs_meta = _meta(folder, "pairs")
    if pairs_meta is not None:
        results.pairs_k = int(pairs_meta["k"])
    fam_meta = _meta(folder, "families")
    if (folder / FAMILIES).exists() and fam_meta is not None:
        levels = sorted({0, *(int(k) for k in fam_meta.get("levels", []))})
        changes = _dataset_table(folder / FAMILIES, ["fp", "k", "family"])
        results.families = _Families(results, levels, changes)
    return results


class _Lazy(Mapping[str, Any]):
    """A read-only id -> value mapping over :class:`Results`, values made on access."""

    def __init__(self, results: Results, make: Callable[[int], Any]) -> None:
        self._results = results
        self._make = make

    def __getitem__(self, doc_id: str) -> Any:
        return self._make(self._results.position(doc_id))

    def __contains__(self, doc_id: object) -> bool:
        if not isinstance(doc_id, str):
            return False
        try:
            self._results.position(doc_id)
        except KeyError:
            return False
        return True

    def __iter__(self) -> Iterator[str]:
        return iter(self._results.ids)

    def __len__(self) -> int:
        return len(self._results)


class _Documents(_Lazy, FixedDocuments):
    """Every document of :class:`Results` by id, made on access; never changes."""


class _Fingerprints(_Lazy):
    """Every fingerprint of :class:`Results` by id, made on access; its values and items
    are read in document order (no look-up by id)."""

    def values(self) -> ValuesView[Any]:
        return _InOrderValues(self, self._results)

    def items(self) -> ItemsView[str, Any]:
        return _InOrderItems(self, self._results)


class _InOrderValues(ValuesView[Any]):
    def __init__(self, mapping: Mapping[str, Any], results: Results) -> None:
        super().__init__(mapping)
        self._in_order = results

    def __iter__(self) -> Iterator[Any]:
        return map(Fingerprint, self._in_order.fps.tolist())


class _InOrderItems(ItemsView[str, Any]):
    def __init__(self, mapping: Mapping[str, Any], results: Results) -> None:
        super().__init__(mapping)
        self._in_order = results

    def __iter__(self) -> Iterator[tuple[str, Any]]:
        results = self._in_order
        return zip(results.ids, map(Fingerprint, results.fps.tolist()), strict=True)


class ResultsSession:
    """A read-only, CorpusSession-like view of :class:`Results` for the explorer.

    ``root`` overrides where documents are read from (a local copy of the corpus);
    by default the results' root when it is a local folder. Never watches: ``watch_state``
    is ``"off"`` and the watching methods do nothing. With ``max_k`` (the largest k the
    explorer offers) covered by the stored families, :meth:`stored_index` gives them and
    :meth:`scan` delivers no batch (see ``explore.source.StoredFamilies``).
    """

    def __init__(
        self,
        results: Results,
        *,
        root: str | os.PathLike[str] | None = None,
        max_k: int | None = None,
    ) -> None:
        self.results = results
        self._stored: StoredIndex | None = None
        if max_k is not None and results.covers(max_k):
            self._stored = StoredIndex(
                results.id_column, results.fps, results.families.__getitem__, max_k,
                pairs=results.stored_pairs, nodes=lambda: results.nodes,
            )
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
        self._base = base
        self._docs = _Documents(results, self._document)
        self._fps = _Fingerprints(results, lambda i: Fingerprint(int(results.fps[i])))
        self._skipped = [
            Skipped(s_id, os.path.join(base, *s_id.split("/")), reason)
            for s_id, reason in results.skipped
        ]
        self.pipeline = _pipeline(results.pipeline)

    def _document(self, i: int) -> Document:
        results = self.results
        doc_id = results.id_at(i)
        kind = results.kind_at(i)
        file_id = doc_id.rsplit("#", 1)[0] if kind == "mbox" else doc_id
        path = file_id if file_id.startswith("/") else os.path.join(self._base, *file_id.split("/"))
        return Document(doc_id, path, kind, int(results.sizes[i]), 0, 0, int(results.offsets[i]))

    @property
    def documents(self) -> Mapping[str, Document]:
        """Every document by id (a read-only mapping; values made on access)."""
        return self._docs

    @property
    def fingerprints(self) -> Mapping[str, Fingerprint]:
        """Every fingerprint by id (a read-only mapping; values made on access)."""
        return self._fps

    def stored_index(self) -> StoredIndex | None:
        """The stored families, when they cover the ``max_k`` the session was opened for."""
        return self._stored

    @property
    def skipped(self) -> list[Skipped]:
        return list(self._skipped)

    watch_state: WatchState = "off"

    def scan(
        self,
        *,
        on_progress: Callable[[ScanProgress], None] | None = None,
        on_batch: Callable[[ChangeBatch], None] | None = None,
        cancelled: Callable[[], bool] = lambda: False,
    ) -> ChangeBatch:
        """Deliver the stored fingerprints as if scanned (in batches of ``BATCH_DOCS``);
        nothing when the explorer shows the stored families (:meth:`stored_index`). Like
        ``CorpusSession.scan``: with ``on_batch`` the fingerprints are only delivered in
        pieces (the returned batch has none)."""
        if self._stored is not None:
            n = len(self.results)
            if on_progress is not None:
                on_progress(ScanProgress(n, n, 0, 0.0))
            return ChangeBatch(skipped=list(self._skipped), documents=self._docs)
        ids = self.results.ids
        fps = self.results.fps
        n = len(ids)
        added: dict[str, Fingerprint] = {}
        for start in range(0, n, BATCH_DOCS):
            if cancelled():
                break
            chunk = dict(
                zip(ids[start : start + BATCH_DOCS],
                    map(Fingerprint, fps[start : start + BATCH_DOCS].tolist()), strict=True)
            )
            if on_batch is None:
                added.update(chunk)
            else:
                on_batch(ChangeBatch(added=chunk, documents=self._docs))
            if on_progress is not None:
                done = min(start + BATCH_DOCS, n)
                on_progress(ScanProgress(done, n, 0, 0.0))
        return ChangeBatch(added=added, skipped=list(self._skipped), documents=self._docs)

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
        from ditto_tui.core.fingerprint.normalize import decode_go

        data = self.read_bytes(id)
        return decode_go(data if limit is None else data[:limit])

    def mail_info(self, id: str) -> MailInfo | None:
        """Headers of an mbox message; None for other kinds or when unreadable."""
        from ditto_tui.corpus.mail import MAIL_HEAD_BYTES, mail_info

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
    from ditto_tui.core.fingerprint.pipeline import make_pipeline

    return make_pipeline(
        str(spec.get("name", "ditto")),
        char_n=int(spec.get("char_n", 4)),
        word_n=int(spec.get("word_n", 0)),
        shingle=int(spec.get("shingle", 3)),
    )
