"""The public near-duplicate index: ditto's ``Index`` over the live ``NearIndex`` engine."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence

import numpy as np

from ditto_tui._lib.indexfile import IndexFileError, StoredIndex, read_index, write_index
from ditto_tui._lib.pipelines import Document, Pipeline, PipelineMismatchError, ditto
from ditto_tui._lib.pipelines import pipeline as pipeline_from_identity
from ditto_tui.core.clusters import Family
from ditto_tui.core.index import Match, NearIndex
from ditto_tui.core.simhash import Fingerprint

__all__ = ["Index", "load_index"]

_MODES = ("chain", "star")


class Index:
    """Near-duplicate lookup over ``(id, fingerprint)`` entries of one pipeline.

    ``Index(k)`` answers :meth:`near` and :meth:`clusters` for any distance up to ``k``
    (its *build k*, 0..64) exactly: results equal a brute-force scan of every entry.
    Fingerprints are split into blocks so that any two within ``k`` bits share a block
    (pigeonhole); only entries sharing a block are compared.

    Contracts:

    * **Ids are unique.** :meth:`add` with an id already present *replaces* its
      fingerprint (Go ditto's ``Add`` keeps both as separate entries instead).
    * **Pipeline.** The index belongs to one pipeline (default ``ditto()``);
      :meth:`add_document` fingerprints with it, :meth:`save` stores its identity and
      :func:`load_index` refuses a file of another pipeline. :meth:`add` cannot check
      where a fingerprint came from: only add fingerprints of this pipeline.
    * **Complexity.** ``add``/``remove``: one neighbour query for a new distinct
      fingerprint, amortised O(1) otherwise; identical fingerprints are stored once with
      a count, so a corpus of identical documents costs one entry. ``near``: proportional
      to the entries sharing a block with the query, plus the size of the answer.
      ``clusters``: computed lazily from the pairs within ``k`` kept up to date, about
      O(n) once those exist. Degenerate case: a corpus of many *different but mutually
      near* fingerprints (a spam blast with small edits) puts them all in the same
      blocks, and costs tend to O(n²) for that group, as in every banded index; a corpus
      of *identical* documents does not (one distinct entry), but ``near`` still returns
      all n of them.
    * **Determinism and ordering.** ``near`` sorts by ``(distance, id)``;
      ``clusters`` sorts ids inside a family (code-point order) and families by size
      descending, then by their member lists. Equal content gives equal results and
      byte-identical saved files, whatever the order of insertion.
    * **Thread safety.** Not thread-safe, not even for concurrent reads (queries fill
      internal caches): use it from one thread, or guard every call with one lock.
    * **Raises.** ``ValueError`` for a fingerprint outside ``[0, 2**64)``, a ``k``
      outside 0..64 or an unknown cluster mode; ``TypeError`` for a non-``str`` id.
    """

    def __init__(self, k: int = 3, pipeline: Pipeline | None = None) -> None:
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= 64:
            raise ValueError(f"k must be an int in 0..64, got {k!r}")
        self._pipeline = pipeline if pipeline is not None else ditto()
        self._engine = NearIndex(k)

    # -- properties ------------------------------------------------------------------
    @property
    def k(self) -> int:
        """The build k: the largest distance :meth:`near` and :meth:`clusters` resolve."""
        return self._engine.max_k

    @property
    def pipeline(self) -> Pipeline:
        """The pipeline this index's fingerprints come from."""
        return self._pipeline

    def __len__(self) -> int:
        """Number of entries (ids)."""
        return len(self._engine)

    def __contains__(self, id: object) -> bool:
        return id in self._engine

    def __repr__(self) -> str:
        return f"Index(k={self.k}, pipeline={self._pipeline.identity!r}, len={len(self)})"

    def ids(self) -> list[str]:
        """Every id, sorted (code-point order). O(n log n)."""
        return self._engine.ids()

    def fingerprint(self, id: str) -> Fingerprint:
        """The fingerprint stored under ``id``; ``KeyError`` if absent."""
        return self._engine.fingerprint(id)

    # -- updates ---------------------------------------------------------------------
    def add(self, id: str, fp: int) -> None:
        """Insert ``id`` with fingerprint ``fp``, replacing any earlier one of ``id``."""
        self._engine.add(id, fp)

    def add_document(self, id: str, document: Document) -> Fingerprint:
        """Fingerprint ``document`` with this index's pipeline, add it under ``id`` and
        return the fingerprint."""
        fp = self._pipeline.fingerprint(document)
        self._engine.add(id, fp)
        return fp

    def add_many(self, ids: Sequence[str], fps: Sequence[int] | np.ndarray) -> None:
        """Add or replace many entries at once (a later duplicate id wins).

        Much faster than a loop of :meth:`add` for large batches: a batch of at least a
        quarter of the index is merged in one vectorised rebuild. ``len(ids) !=
        len(fps)`` raises ``ValueError``; on an invalid value the index is unchanged.
        """
        self._engine.add_many(ids, fps)

    def remove(self, id: str) -> bool:
        """Remove ``id``; returns whether it was present (absent: no change)."""
        return self._engine.remove(id)

    # -- queries ---------------------------------------------------------------------
    def near(self, fp: int, k: int | None = None) -> list[Match]:
        """Every entry within ``k`` bits of ``fp`` (default: the build k), as
        ``Match(id, fp, distance)`` sorted by ``(distance, id)``.

        The query's own entry and exact duplicates come first at distance 0. ``k`` above
        the build k is clamped to it; a negative ``k`` finds nothing.
        """
        return self._engine.near(fp, self.k if k is None else k)

    def clusters(
        self, k: int | None = None, min_size: int = 2, *, mode: str = "chain"
    ) -> list[Family]:
        """Near-duplicate families at distance ``k`` (default: the build k), keeping
        those with at least ``min_size`` members (``min_size <= 1`` includes singletons).

        ``mode="chain"`` is ditto's ``Clusters(k, min)``: connected components of
        "distance <= k" (single linkage, so a chain A-B-C is one family even when A and
        C are far apart); the :attr:`Family.centre` is the medoid. ``mode="star"`` picks
        centres greedily (most neighbours first, ties by smallest id) and gives each the
        unassigned entries within ``k`` of it, so every member is within ``k`` of its
        centre. Either way families partition the entries. ``k`` above the build k is
        clamped; negative ``k`` makes every entry its own family.
        """
        if mode not in _MODES:
            raise ValueError(f"mode must be 'chain' or 'star', got {mode!r}")
        return self._engine.families(self.k if k is None else k, mode=mode, min_size=min_size)

    # -- persistence -----------------------------------------------------------------
    def save(self, path: str | os.PathLike[str]) -> int:
        """Write the index (pipeline identity, k, ids and fingerprints) to ``path`` and
        return the file size in bytes.

        The write is atomic: ``path`` holds either the old file or the complete new one.
        The format is versioned and documented (``docs/library.md``, "The index file");
        about ``16 + len(id in UTF-8)`` bytes per entry. The pair tables are not stored:
        :func:`load_index` rebuilds them. O(n log n).
        """
        ids = self._engine.ids()
        fps = np.fromiter(map(self._engine.fingerprint, ids), np.uint64, len(ids))
        return write_index(path, StoredIndex(self._pipeline.identity, self.k, ids, fps))

    @classmethod
    def load(
        cls, path: str | os.PathLike[str], pipeline: Pipeline | None = None
    ) -> Index:
        """Same as :func:`load_index`."""
        return load_index(path, pipeline)

    @classmethod
    def from_documents(
        cls,
        documents: Iterable[tuple[str, Document]],
        k: int = 3,
        pipeline: Pipeline | None = None,
    ) -> Index:
        """An index of ``(id, document)`` pairs, fingerprinted with ``pipeline``."""
        index = cls(k, pipeline)
        pairs = list(documents)
        fps = index.pipeline.fingerprint_many(doc for _, doc in pairs)
        index.add_many([i for i, _ in pairs], fps)
        return index


def load_index(path: str | os.PathLike[str], pipeline: Pipeline | None = None) -> Index:
    """Load an index saved with :meth:`Index.save`.

    With ``pipeline`` given, the file must have been written by an index of that same
    pipeline: otherwise :class:`PipelineMismatchError` (fingerprints of different
    pipelines are never comparable, so this is refused rather than silently wrong).
    Without it the index takes the pipeline stored in the file. Raises
    :class:`IndexFileError` for a file that is not an index, of an unsupported format
    version, truncated or corrupted, and ``OSError`` when it cannot be read. Rebuilds the
    pair tables: about as long as adding the entries with :meth:`Index.add_many`.
    """
    stored = read_index(path)
    if pipeline is not None and stored.pipeline != pipeline.identity:
        raise PipelineMismatchError(
            f"{os.fspath(path)}: the index was built with pipeline {stored.pipeline!r}, "
            f"not {pipeline.identity!r}; fingerprints of different pipelines are not "
            "comparable (rebuild the index with this pipeline, or load it without one)",
            expected=pipeline.identity,
            found=stored.pipeline,
        )
    found = pipeline if pipeline is not None else pipeline_from_identity(stored.pipeline)
    if len(set(stored.ids)) != len(stored.ids):
        raise IndexFileError(f"{os.fspath(path)}: corrupted: an id appears twice")
    index = Index(stored.k, found)
    index.add_many(stored.ids, stored.fingerprints)
    return index
