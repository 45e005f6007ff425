"""The public near-duplicate index: ditto's ``Index`` over the live ``NearIndex`` engine."""

from __future__ import annotations

import operator
import os
from collections.abc import Iterable, Sequence

import numpy as np

from ditto_tui._lib.indexfile import IndexFileError, StoredIndex, read_index, write_index
from ditto_tui._lib.pipelines import (
    Document,
    FingerprintLike,
    Pipeline,
    PipelineMismatchError,
    ditto,
)
from ditto_tui._lib.pipelines import pipeline as pipeline_from_identity
from ditto_tui.core.families.clusters import MODES, Family, Mode
from ditto_tui.core.fingerprint.simhash import Fingerprint, as_fingerprint, as_fingerprint_array
from ditto_tui.core.index.near_index import Match, NearIndex

__all__ = ["Index", "check_k", "load_index"]


def check_k(k: object, what: str = "k", *, low: int | None = None, high: int | None = None) -> int:
    """``k`` as an int (numpy integers too), ``TypeError`` for anything else (``bool``,
    ``float``, ``str``...), ``ValueError`` outside ``low..high`` when those are given."""
    if isinstance(k, bool):
        raise TypeError(f"{what} must be an int, not bool")
    try:
        value = operator.index(k)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(f"{what} must be an int, not {type(k).__name__}: {k!r}") from None
    if (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(f"{what} must be an int in {low}..{high}, got {value}")
    return value


class Index:
    """Near-duplicate lookup over ``(id, fingerprint)`` entries of one pipeline.

    ``Index(k)`` answers :meth:`near` and :meth:`clusters` for any distance up to ``k``
    (its *build k*, 0..64) exactly: results equal a brute-force scan of every entry.
    Fingerprints are split into blocks so that any two within ``k`` bits share a block
    (pigeonhole); only entries sharing a block are compared.

    **Above the build k.** :meth:`near` still answers exactly, by a scan of every
    distinct fingerprint (vectorised, O(n) per query). :meth:`clusters` raises
    ``ValueError``: families at a larger k need every pair within that k, which only an
    index built for it holds (build ``Index(k)``). Never a silently partial answer.

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
    * **Fingerprints** are checked the same way everywhere (as :func:`distance`): an
      int in ``[0, 2**64)`` (a :class:`Fingerprint`, a numpy integer) or 16 hex digits
      as printed; ``ValueError`` for anything out of range, never wrapped.
    * **Raises.** ``ValueError`` for a bad fingerprint, a build ``k`` outside 0..64, a
      ``clusters`` k above the build k or an unknown cluster mode; ``TypeError`` for a
      non-``str`` id, a non-integer ``k`` and a fingerprint of another type.
    """

    def __init__(self, k: int = 3, pipeline: Pipeline | None = None) -> None:
        k = check_k(k, low=0, high=64)
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
    def add(self, id: str, fp: FingerprintLike) -> None:
        """Insert ``id`` with fingerprint ``fp``, replacing any earlier one of ``id``."""
        self._engine.add(id, as_fingerprint(fp, "fp"))

    def add_document(self, id: str, document: Document) -> Fingerprint:
        """Fingerprint ``document`` with this index's pipeline, add it under ``id`` and
        return the fingerprint."""
        fp = self._pipeline.fingerprint(document)
        self._engine.add(id, fp)
        return fp

    def add_many(
        self, ids: Sequence[str], fps: Sequence[FingerprintLike] | np.ndarray
    ) -> None:
        """Add or replace many entries at once (a later duplicate id wins).

        Much faster than a loop of :meth:`add` for large batches: a batch of at least a
        quarter of the index is merged in one vectorised rebuild. ``len(ids) !=
        len(fps)`` raises ``ValueError``, a single ``str`` as ``ids`` ``TypeError``;
        every value is checked before anything is added, so on an invalid one the
        index is unchanged.
        """
        if isinstance(ids, str | bytes):
            raise TypeError(f"ids must be a list of str, not one {type(ids).__name__}")
        values = as_fingerprint_array(fps, "fps")
        if values.ndim != 1:
            raise ValueError(f"fps must be 1-D, got shape {values.shape}")
        self._engine.add_many(ids, values)

    def remove(self, id: str) -> bool:
        """Remove ``id``; returns whether it was present (absent: no change)."""
        return self._engine.remove(id)

    # -- queries ---------------------------------------------------------------------
    def near(self, fp: FingerprintLike, k: int | None = None) -> list[Match]:
        """Every entry within ``k`` bits of ``fp`` (default: the build k), as
        ``Match(id, fp, distance)`` sorted by ``(distance, id)``.

        The query's own entry and exact duplicates come first at distance 0. Exact for
        every ``k``: up to the build k the banded tables answer (cost: the entries
        sharing a block with ``fp``, plus the answer); above it, a vectorised scan of
        every distinct fingerprint (O(n) per query: a few milliseconds for a million
        entries, plus the answer, which may then be most of the index). A negative ``k``
        finds nothing; ``TypeError`` for a non-integer ``k``.
        """
        value = as_fingerprint(fp, "fp")
        k = self.k if k is None else min(check_k(k), 64)  # (no distance is above 64)
        return self._engine.near(value, k, scan_above=True)

    def clusters(
        self, k: int | None = None, min_size: int = 2, *, mode: Mode = "chain"
    ) -> list[Family]:
        """Near-duplicate families at distance ``k`` (default: the build k), keeping
        those with at least ``min_size`` members (``min_size <= 1`` includes singletons).

        ``mode="chain"`` is ditto's ``Clusters(k, min)``: connected components of
        "distance <= k" (single linkage, so a chain A-B-C is one family even when A and
        C are far apart); the :attr:`Family.centre` is the medoid. ``mode="star"`` picks
        centres greedily (most neighbours first, ties by smallest id) and gives each the
        unassigned entries within ``k`` of it, so every member is within ``k`` of its
        centre. Either way families partition the entries. A negative ``k`` makes every
        entry its own family.

        ``k`` above the build k raises ``ValueError`` rather than answering from the
        pairs the index holds (that would silently miss families): families at k need
        every pair within k, so build an ``Index(k)`` for them (what it costs grows with
        k, see the class). ``TypeError`` for a non-integer ``k`` or ``min_size``.
        """
        if mode not in MODES:
            raise ValueError(f"mode must be 'chain' or 'star', got {mode!r}")
        k = self.k if k is None else check_k(k)
        min_size = check_k(min_size, "min_size")
        if k > self.k and self.k < 64:
            raise ValueError(
                f"clusters at k={k} need every pair within {k} bits, but this index was "
                f"built for k={self.k}: build an Index({min(k, 64)}) for them (near() "
                "answers above the build k, clusters() cannot)"
            )
        return self._engine.families(k, mode=mode, min_size=min_size)

    # -- persistence -----------------------------------------------------------------
    def save(self, path: str | os.PathLike[str]) -> int:
        """Write the index (pipeline identity, k, ids and fingerprints) to ``path`` and
        return the file size in bytes.

        The write is atomic: ``path`` holds either the old file or the complete new one.
        The format is versioned and documented (``docs/library.md``, "The index file");
        about ``16 + len(id in UTF-8)`` bytes per entry. The pair tables are not stored:
        :func:`load_index` rebuilds them. Written in one vectorised pass (a million
        entries in well under a second); O(n log n) the first time (ids are sorted).
        An ``OSError`` (a missing folder, no permission, a full disk, ``path`` a folder)
        names ``path``.
        """
        ids, fps = self._engine.entries()
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
    Without it the index takes the pipeline stored in the file.

    Raises :class:`IndexFileError` for anything that is not an index file: not a
    regular file (a folder, a FIFO, a device such as ``/dev/zero``, a symlink loop:
    refused without reading), a wrong magic, an unsupported format version, a damaged
    header, a size other than the header announces (checked before the data is read, so
    a huge foreign file is never read whole), a checksum mismatch or inconsistent
    contents. ``FileNotFoundError`` or ``PermissionError`` when it cannot be opened.
    Reads the file once, exactly its size; rebuilds the pair tables, about as long as
    adding the entries with :meth:`Index.add_many`.
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
    index = Index(stored.k, found)
    if stored.ids:
        # add_many's first-load path without its checks, which a file read has made
        # (str ids, uint64 values): a third of the time for a million entries
        index._engine._rebuild(stored.ids, stored.fingerprints)
        if len(index) != len(stored.ids):  # the rebuild keeps one entry per id
            raise IndexFileError(f"{os.fspath(path)}: corrupted: an id appears twice")
    return index
