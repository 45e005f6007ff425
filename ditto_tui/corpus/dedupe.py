"""What to act on in a corpus: families without ignored pairs, keepers by rule, marks.

:func:`select` is the whole review pipeline minus the acting, used by ``ditto-tui dedupe``:
families at distance ``k`` over the current documents with the review store's ignored pairs
cut and its "fine" families left out (:mod:`ditto_tui.core.families.ignore_aware`), keepers by keep rules
(:func:`ditto_tui.core.review.keep.keepers`: every marked document is within ``k`` of its own
keeper, so a wide chain family splits into tight groups), reference folders protected,
documents the user decided to keep (or not a duplicate) never marked, and optional
glob/folder restrictions. Nothing is written.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ditto_tui.core.families.ignore_aware import ignore_aware_labels
from ditto_tui.core.families.star import star_centres
from ditto_tui.core.index.pairs import UniquePairs
from ditto_tui.core.review.decisions import Identity, Resolution, family_key, identity_of
from ditto_tui.core.review.keep import DocumentTable, by_folder, by_glob, preview, too_wide
from ditto_tui.corpus.actions.plan import Target
from ditto_tui.corpus.documents import Document
from ditto_tui.corpus.review import ReviewStore

__all__ = ["Selection", "select"]


#: Why a family had nothing to act on (``Selection.left_alone``'s keys).
KEPT = "every member is kept (decided keep or not a duplicate, or in a reference folder)"
OUTSIDE = "no member matches --only-glob/--only-folder"
FINE = "marked fine in the review"


@dataclass
class Selection:
    """The outcome of :func:`select`, over documents ``ids`` (code-point order).

    ``labels[x]`` is document x's family (``-1``: none; families numbered ``0..f-1`` by
    first document); ``keeper[x]`` the keeper x is a duplicate of (x itself for a keeper,
    ``-1`` outside every family) and ``distance[x]`` its bits from it; ``marked`` the
    documents to act on (each within k of its keeper), ``protected`` members in reference
    folders; ``split`` the families that needed more than one keeper and ``too_wide`` those
    whose diameter exceeds 2k (chain grouping only: :func:`~ditto_tui.core.families.notes.
    chain_too_wide`); ``left_alone`` how many families had nothing to act on, by reason;
    ``decisions`` the store's decisions matched to the corpus; ``lapsed_pairs`` ignored
    pairs that no longer apply.
    """

    ids: list[str]
    labels: np.ndarray
    keeper: np.ndarray
    distance: np.ndarray
    marked: np.ndarray
    protected: np.ndarray
    decisions: Resolution
    lapsed_pairs: int = 0
    split: tuple[int, ...] = ()
    too_wide: dict[int, int] = field(default_factory=dict)
    left_alone: dict[str, int] = field(default_factory=dict)

    @property
    def family_count(self) -> int:
        return int(self.labels.max()) + 1 if len(self.labels) and self.labels.max() >= 0 else 0

    def reference_of(self, x: int) -> str | None:
        """The id of the keeper document x is a duplicate of (None outside families)."""
        keep = int(self.keeper[x])
        return None if keep < 0 else self.ids[keep]

    def targets(self, documents: Mapping[str, Document]) -> list[Target]:
        """Action targets for the marked documents, each with its keeper and distance."""
        return [Target.from_document(documents[self.ids[x]], self.reference_of(x),
                                     int(self.distance[x]))
                for x in np.flatnonzero(self.marked).tolist()]

    def by_keeper(self) -> list[tuple[int, int, list[int]]]:
        """(family, keeper index, marked indices farthest first) of every tight group with
        marks, by family, then keeper."""
        groups: dict[int, list[int]] = {}
        for x in np.flatnonzero(self.marked).tolist():
            groups.setdefault(int(self.keeper[x]), []).append(x)
        out = [(int(self.labels[keep]), keep,
                sorted(members, key=lambda x: (-int(self.distance[x]), self.ids[x])))
               for keep, members in groups.items()]
        out.sort(key=lambda group: (group[0], group[1]))
        return out


def select(
    documents: Mapping[str, Document],
    fingerprints: Mapping[str, int],
    k: int,
    rules: Sequence[str],
    *,
    store: ReviewStore | None = None,
    reference_folders: Sequence[str] = (),
    only_globs: Sequence[str] = (),
    only_folders: Sequence[str] = (),
    pairs: UniquePairs | None = None,
    mode: str = "chain",
) -> Selection:
    """Families, references and marks for the corpus (see the module docstring).

    ``pairs`` may give the near pairs of the sorted distinct fingerprints for some
    ``k' >= k`` (computed when absent). Folders are root-relative. ``mode`` groups as
    ``chain`` (connected components, ditto's clusters) or ``star`` (the explorer's star
    families: greedy centres by degree, every member within ``k`` of its centre); in star
    mode a document ignored with its centre leaves the family (two members ignored with
    each other stay: they are linked only through the centre).
    """
    if mode not in ("chain", "star"):
        raise ValueError(f"mode must be chain or star, got {mode!r}")
    ids = sorted(documents)
    n = len(ids)
    fps = np.fromiter((int(fingerprints[i]) for i in ids), np.uint64, n)
    idents: dict[str, Identity] = {i: identity_of(documents[i], int(fingerprints[i])) for i in ids}
    pos = {d: x for x, d in enumerate(ids)}
    ignored: list[tuple[str, str]] = []
    lapsed = 0
    if store is not None:
        ignored, lapsed = store.ignored_pairs(idents)
    u, inv = np.unique(fps, return_inverse=True)
    inv = inv.reshape(-1)
    if pairs is None or pairs.k < k:
        pairs = UniquePairs.compute(u, min(max(k, 0), 64))
    if mode == "star":
        labels = _star_labels(ids, inv, len(u), pairs, k, [(pos[a], pos[b]) for a, b in ignored])
    else:
        labels = ignore_aware_labels(
            inv, len(u), pairs.i, pairs.j, pairs.d, k,
            np.array([pos[a] for a, _ in ignored], np.int64),
            np.array([pos[b] for _, b in ignored], np.int64),
        )
    if n:
        sizes = np.bincount(labels)
        labels = np.where(sizes[labels] >= 2, labels, -1)
    fine_count = 0
    if store is not None:
        fine = store.family_marks("ignored")
        if fine:
            for lab in np.unique(labels[labels >= 0]).tolist():
                members = np.flatnonzero(labels == lab)
                if family_key(idents[ids[m]] for m in members.tolist()) in fine:
                    labels[members] = -1
                    fine_count += 1
    inside = labels >= 0
    labels[inside] = np.unique(labels[inside], return_inverse=True)[1].reshape(-1)
    table = DocumentTable.from_documents(
        ids, [documents[i].mtime_ns for i in ids], [documents[i].size for i in ids],
        reference_folders=reference_folders,
    )
    decisions = store.decisions(idents) if store is not None else Resolution()
    pinned = np.zeros(n, bool)
    for doc_id, value in decisions.current.items():
        if value in ("keep", "not-duplicate") and doc_id in pos:
            pinned[pos[doc_id]] = True
    result = preview(labels, table, rules, fps, k, pinned)
    marked = result.marked.copy()
    if only_globs:
        marked &= np.logical_or.reduce([by_glob(ids, g) for g in only_globs])
    if only_folders:
        marked &= np.logical_or.reduce([by_folder(ids, f) for f in only_folders])
    families = int(labels.max()) + 1 if n and labels.max() >= 0 else 0
    would = np.bincount(labels[result.marked], minlength=families) if families else np.zeros(0)
    acts = np.bincount(labels[marked], minlength=families) if families else np.zeros(0)
    left_alone = {FINE: fine_count} if fine_count else {}
    for reason, count in ((KEPT, int((would == 0).sum())),
                          (OUTSIDE, int(((would > 0) & (acts == 0)).sum()))):
        if count:
            left_alone[reason] = count
    wide = too_wide(labels, fps, ids, result.split, k) if mode == "chain" else {}
    return Selection(ids, labels, result.keeper, result.distance, marked, result.protected,
                     decisions, lapsed, tuple(int(f) for f in result.split.tolist()), wide,
                     left_alone)


def _star_labels(
    ids: Sequence[str],
    inv: np.ndarray,
    n_u: int,
    pairs: UniquePairs,
    k: int,
    ignored: Sequence[tuple[int, int]],
) -> np.ndarray:
    """Star family label of every document (the slot of its centre, renumbered), the same
    grouping as ``NearIndex.families(k, mode="star")``; documents ignored with their
    centre get a label of their own."""
    n = len(ids)
    if n == 0:
        return np.empty(0, np.int64)
    if k < 0:
        return np.arange(n, dtype=np.int64)
    near = pairs.d <= k
    a = pairs.i[near].astype(np.int64)
    b = pairs.j[near].astype(np.int64)
    count = np.bincount(inv, minlength=n_u)
    first = np.full(n_u, n, np.int64)
    np.minimum.at(first, inv, np.arange(n, dtype=np.int64))  # ids are sorted: smallest id
    centres = star_centres(n_u, count, a, b, lambda s: ids[int(first[s])])
    labels = centres[inv].astype(np.int64)
    fresh = n_u
    for x, y in ignored:
        if x == y or labels[x] != labels[y]:
            continue
        cx, cy = inv[x] == labels[x], inv[y] == labels[y]
        if cx and cy:  # both hold the centre fingerprint: the later id leaves
            leaver = max(x, y)
        elif cx or cy:
            leaver = y if cx else x
        else:
            continue
        labels[leaver] = fresh
        fresh += 1
    return np.unique(labels, return_inverse=True)[1].reshape(-1).astype(np.int64)
