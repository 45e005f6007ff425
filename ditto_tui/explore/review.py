"""The review as the explorer sees it: :class:`ReviewState` and the pure helpers around it.

The explorer owns the :class:`~ditto_tui.corpus.review.ReviewStore` of a folder source and
publishes an immutable :class:`ReviewState` after every change (a decision, a family mark,
an ignored pair) and after every change of the corpus (records are matched again: renames
followed, edits stale). The view thread reads it to filter (unreviewed only, ignored
families hidden), to count progress and to re-form families without the ignored pairs
(:func:`split_ignored`); the UI reads it to show each member's decision.

Everything here is pure (no I/O) and O(what it is given): call it off the UI thread.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Generic, NamedTuple, TypeVar

import numpy as np

from ditto_tui.core.families.clusters import Family, Mode, describe_family, family_diameter
from ditto_tui.core.families.ignore_aware import family_groups, ignore_aware_labels
from ditto_tui.core.families.notes import chain_too_wide
from ditto_tui.core.fingerprint.simhash import popcount64
from ditto_tui.core.index.pairs import UniquePairs
from ditto_tui.core.review.decisions import Decision, Stat, family_key, identity_of
from ditto_tui.core.review.keep import (
    DocumentTable,
    by_folder,
    by_glob,
    invert,
    preview,
    too_wide,
    unsafe_families,
)
from ditto_tui.corpus.documents import Document

EMPTY: Mapping[str, str] = MappingProxyType({})
T = TypeVar("T")
BULK_MODES = ("rule", "folder", "glob", "invert")


@dataclass(frozen=True)
class ReviewState:
    """What the review store says about the corpus now (immutable; ``serial`` grows with
    every change). ``active`` is False when the source has no store (then nothing else is
    set). ``decisions``/``stale`` map document ids to ``keep``, ``duplicate`` or
    ``not-duplicate``; a stale decision was made on content that has changed since and is
    shown, never applied. ``reviewed``/``ignored`` hold family keys
    (:func:`~ditto_tui.core.review.decisions.family_key`); ``pairs`` the ignored document pairs."""

    serial: int = 0
    active: bool = False
    decisions: Mapping[str, str] = field(default_factory=lambda: EMPTY)
    stale: Mapping[str, str] = field(default_factory=lambda: EMPTY)
    reviewed: frozenset[str] = frozenset()
    ignored: frozenset[str] = frozenset()
    pairs: tuple[tuple[str, str], ...] = ()
    lapsed_pairs: int = 0
    _partners: dict[str, frozenset[str]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )  # built once per state (a replaced state starts without it)

    def decision(self, doc_id: str) -> tuple[str | None, bool]:
        """(decision, is_stale) of one document; (None, False) when it has none."""
        value = self.decisions.get(doc_id)
        if value is not None:
            return value, False
        value = self.stale.get(doc_id)
        return (value, True) if value is not None else (None, False)

    def partners(self) -> Mapping[str, frozenset[str]]:
        """Document -> the documents it is ignored with (built once)."""
        if self.pairs and not self._partners:
            out: dict[str, set[str]] = {}
            for a, b in self.pairs:
                out.setdefault(a, set()).add(b)
                out.setdefault(b, set()).add(a)
            self._partners.update({k: frozenset(v) for k, v in out.items()})
        return self._partners


def key_of(
    members: Iterable[str], documents: Mapping[str, Stat], fingerprints: Mapping[str, int]
) -> str:
    """The family key of ``members`` (members unknown to ``documents`` are left out)."""
    idents = []
    for m in members:
        doc = documents.get(m)
        fp = fingerprints.get(m)
        if doc is not None and fp is not None:
            idents.append(identity_of(doc, fp))
    return family_key(idents)


def split_ignored(
    listing: Sequence[Family],
    partners: Mapping[str, frozenset[str]],
    fingerprints: Mapping[str, int],
    k: int,
) -> Sequence[Family]:
    """``listing`` (chain families at ``k``, ditto's order) with every family that holds
    both sides of an ignored pair re-formed without that link. Removing links only splits
    components, so only those families are recomputed, all together in one pass (their
    near pairs, then :func:`~ditto_tui.core.families.ignore_aware.ignore_aware_labels`: no pair joins
    two different families, they were components already); the result is in ditto's order
    again. Returns ``listing`` itself when nothing is split."""
    if not partners:
        return listing
    out: list[Family] = []
    members: list[str] = []
    origin: dict[str, Family] = {}  # first member -> family of the listing
    for family in listing:
        hit = False
        if family.size > 1:
            mset: set[str] | None = None
            for m in family.members:
                p = partners.get(m)
                if p:
                    if mset is None:
                        mset = set(family.members)
                    if not p.isdisjoint(mset):
                        hit = True
                        break
        if hit:
            origin[family.members[0]] = family
            members.extend(family.members)  # sorted inside each family
        else:
            out.append(family)
    if not members:
        return listing
    fps = np.fromiter((int(fingerprints[m]) for m in members), np.uint64, len(members))
    u, inv = np.unique(fps, return_inverse=True)
    pairs = UniquePairs.compute(u, max(0, min(k, 64)))
    pos = {m: x for x, m in enumerate(members)}
    ia, ib = [], []
    for m in members:
        for other in partners.get(m, ()):
            if m < other and other in pos:
                ia.append(pos[m])
                ib.append(pos[other])
    labels = ignore_aware_labels(
        inv.reshape(-1), len(u), pairs.i, pairs.j, pairs.d, k,
        np.array(ia, np.int64), np.array(ib, np.int64),
    )
    for group in family_groups(labels, 1):
        # indices ascend inside a group and a group lies inside one family: names sorted
        names = [members[x] for x in group.tolist()]
        before = origin.get(names[0])
        if before is not None and before.size == len(names):
            out.append(before)  # not split after all (linked through other members)
            continue
        centre, diameter, exact = describe_family(names, fps[group])
        out.append(Family(tuple(names), centre, diameter, exact))
    out.sort(key=lambda f: (-f.size, f.members))
    return tuple(out)


def leave_stars(
    listing: Sequence[Family],
    pairs: Sequence[tuple[str, str]],
    fingerprints: Mapping[str, int],
) -> Sequence[Family]:
    """``listing`` (star families, ditto's order) without the members ignored with their
    centre, the rule of ``dedupe --mode star``: for each ignored pair in order, when both
    are in one star and one holds the centre's fingerprint, the other leaves (both hold
    it: the later id leaves); a document that left is a singleton and is skipped by later
    pairs. Two members ignored with each other both stay (they meet only through the
    centre). Returns ``listing`` itself when nobody leaves."""
    if not pairs:
        return listing
    star_of: dict[str, int] = {}
    wanted = {d for p in pairs for d in p}
    for row, family in enumerate(listing):
        if family.size > 1:
            for m in family.members:
                if m in wanted:
                    star_of[m] = row
    left: set[str] = set()
    for x, y in pairs:
        if x == y or x in left or y in left:
            continue
        star = star_of.get(x)
        if star is None or star_of.get(y) != star:
            continue
        centre_fp = fingerprints[listing[star].centre]
        cx, cy = fingerprints[x] == centre_fp, fingerprints[y] == centre_fp
        if cx and cy:
            left.add(max(x, y))
        elif cx or cy:
            left.add(y if cx else x)
    if not left:
        return listing
    out: list[Family] = []
    for family in listing:
        if family.size < 2 or left.isdisjoint(family.members):
            out.append(family)
            continue
        stay = tuple(m for m in family.members if m not in left)
        fps = np.fromiter((int(fingerprints[m]) for m in stay), np.uint64, len(stay))
        diameter, exact = family_diameter(fps, int(fingerprints[family.centre]))
        out.append(Family(stay, family.centre, diameter, exact))
        out.extend(Family((m,), m, 0) for m in family.members if m in left)
    out.sort(key=lambda f: (-f.size, f.members))
    return tuple(out)


# -- keep rules and bulk marking -----------------------------------------------------------
#: ``MarkPreview.rows``: (member id, mark, family number, keeper id or "", bits from it or -1)
MarkRow = tuple[str, str, int, str, int]


@dataclass(frozen=True)
class MarkPreview:
    """What a rule or bulk operation would record: ``marks`` (id -> ``keep``,
    ``duplicate`` or ``not-duplicate``) over ``families`` families; ``rows`` for the list,
    duplicates farthest from their keeper first. Every duplicate is within ``k`` of its
    keeper. Families left alone, by reason: ``skipped`` (every member would have been
    marked), ``unkept`` bulk-marked members with no kept member within ``k`` (left
    unmarked); ``split`` families that needed more than one keeper and ``too_wide`` those
    whose diameter exceeds 2k (a drift, not one duplicate set)."""

    marks: Mapping[str, Decision]
    families: int
    skipped: int
    rows: Sequence[MarkRow]
    split: int = 0
    too_wide: int = 0
    unkept: int = 0

    @property
    def duplicates(self) -> int:
        return sum(1 for v in self.marks.values() if v == "duplicate")

    @property
    def keeps(self) -> int:
        return sum(1 for v in self.marks.values() if v == "keep")


def nearest_kept(labels: np.ndarray, fps: np.ndarray, dup: np.ndarray,
                 k: int) -> tuple[np.ndarray, np.ndarray]:
    """For each member marked ``dup``, the nearest member of its family that is not (ties:
    the first index), and the bits to it; ``-1`` (and -1 bits) when none is within ``k``."""
    keeper = np.full(len(labels), -1, np.int64)
    bits = np.full(len(labels), -1, np.int64)
    for lab in np.unique(labels[dup]).tolist():
        members = np.flatnonzero(labels == lab)
        kept = members[~dup[members]]
        if len(kept) == 0:
            continue
        for x in members[dup[members]].tolist():
            d = popcount64(fps[kept] ^ fps[x]).astype(np.int64)
            best = int(np.argmin(d))
            if d[best] <= k:
                keeper[x], bits[x] = kept[best], d[best]
    return keeper, bits


def preview_marks(
    families: Sequence[Sequence[str]],
    documents: Mapping[str, Document],
    state: ReviewState,
    fingerprints: Mapping[str, int],
    k: int,
    *,
    mode: str = "rule",
    rules: Sequence[str] = ("newest",),
    folders: Sequence[str] = (),
    argument: str = "",
    grouping: str = "chain",
) -> MarkPreview:
    """The marks a keep rule or a bulk operation would record on ``families`` (each a list
    of member ids) grouped at distance ``k`` (``grouping``: chain or star).

    ``mode="rule"``: keepers by ``rules`` with ``folders`` as reference folders
    (:func:`~ditto_tui.core.review.keep.keepers`: each member is kept or marked a duplicate of a
    keeper within ``k`` of it; a wide family splits into tight groups). ``folder``/``glob``
    mark the members under the folder / matching the glob ``argument`` and keep the rest;
    ``invert`` swaps duplicate and undecided members in families that have duplicates; a
    bulk-marked member with no kept member within ``k`` is left unmarked (``unkept``).

    Members the user decided ``keep`` or ``not-duplicate`` are never marked duplicate, and
    a family where every member would be a duplicate is skipped (counted), so a copy always
    stays. Raises ValueError for an unknown rule or mode."""
    if mode not in BULK_MODES:
        raise ValueError(f"unknown mode {mode!r}")
    groups = [list(f) for f in families if len(f) >= 2]
    ids = [m for g in groups for m in g]
    n = len(ids)
    labels = np.repeat(np.arange(len(groups), dtype=np.int64), [len(g) for g in groups])
    fps = np.fromiter((int(fingerprints[m]) for m in ids), np.uint64, n)
    protected_by_user = np.fromiter(
        (state.decisions.get(m) in ("keep", "not-duplicate") for m in ids), bool, n
    )
    split = wide = unkept = 0
    if mode == "rule":
        table = DocumentTable.from_documents(
            ids,
            [documents[m].mtime_ns for m in ids],
            [documents[m].size for m in ids],
            reference_folders=list(folders),
        )
        result = preview(labels, table, list(rules), fps, k, protected_by_user)
        dup, keeper, bits = result.marked.copy(), result.keeper, result.distance
        split = len(result.split)
        if grouping == "chain":
            wide = len(too_wide(labels, fps, ids, result.split, k))
    else:
        if mode == "folder":
            dup = by_folder(ids, argument.strip("/"), labels)
        elif mode == "glob":
            dup = by_glob(ids, argument, labels)
        else:
            current = np.fromiter((state.decisions.get(m) == "duplicate" for m in ids), bool, n)
            dup = invert(current, labels) & np.isin(labels, labels[current])
        dup &= ~protected_by_user
    skipped = 0
    if n:
        unsafe = unsafe_families(labels, dup)
        if len(unsafe):
            skipped = int(len(unsafe))
            dup &= ~np.isin(labels, unsafe)
    if mode != "rule":
        keeper, bits = nearest_kept(labels, fps, dup, k)
        far = dup & (keeper < 0)
        unkept = int(far.sum())
        dup &= ~far
    marks: dict[str, Decision] = {}
    rows: list[MarkRow] = []
    touched = np.zeros(len(groups), bool)
    if n:
        touched[np.unique(labels[dup])] = True
    for x, m in enumerate(ids):
        lab = int(labels[x])
        if not touched[lab]:
            continue
        value: Decision = "duplicate" if dup[x] else "keep"
        if not dup[x] and state.decisions.get(m) == "not-duplicate":
            value = "not-duplicate"
        marks[m] = value
        if dup[x]:
            rows.append((m, value, lab + 1, ids[int(keeper[x])], int(bits[x])))
        else:
            rows.append((m, value, lab + 1, "", -1))
    rows.sort(key=lambda row: (-row[4], row[2], row[0]))  # farthest duplicates first
    return MarkPreview(MappingProxyType(marks), int(touched.sum()), skipped, rows, split,
                       wide, unkept)


# -- actions ---------------------------------------------------------------------------------
class ActionTargets(NamedTuple, Generic[T]):
    """What :func:`action_targets` finds: ``found`` (document, keeper id, bits from it; the
    explorer turns each into an action :class:`~ditto_tui.corpus.actions.plan.Target`);
    ``far`` the ids decided duplicate with no kept member within k (not targets);
    ``stale`` how many stale duplicate decisions were left out; ``too_wide`` how many of
    the families with targets are flagged wider than 2k (chain grouping)."""

    found: list[T]
    far: list[str]
    stale: int
    too_wide: int


def action_targets(
    families: Sequence[Family], documents: Mapping[str, Document], state: ReviewState,
    fingerprints: Mapping[str, int], k: int, grouping: Mode = "chain",
) -> ActionTargets[tuple[Document, str, int]]:
    """(document, keeper id, bits from it) for every member decided ``duplicate`` (current
    decisions only; stale ones are never acted on) in ``families``, grouped at distance
    ``k``: its keeper is the nearest member decided ``keep``, else the family's
    representative when that is not itself decided duplicate, **within k of it**. A
    duplicate with no such member within ``k`` is not a target (``far``: the dry run says
    why); see :class:`ActionTargets`."""
    out: list[tuple[Document, str, int]] = []
    far: list[str] = []
    stale = too_wide = 0
    for family in families:
        dups = [m for m in family.members if state.decisions.get(m) == "duplicate"]
        stale += sum(1 for m in family.members if state.stale.get(m) == "duplicate")
        if not dups:
            continue
        too_wide += bool(grouping == "chain" and family.diameter_exact
                         and chain_too_wide(family.diameter, k))
        kept = [m for m in family.members if state.decisions.get(m) == "keep"]
        if not kept and state.decisions.get(family.centre) != "duplicate":
            kept = [family.centre]
        kept_fps = np.fromiter((int(fingerprints[m]) for m in kept), np.uint64, len(kept))
        for m in dups:
            doc = documents.get(m)
            if doc is None:
                continue
            if not kept:
                far.append(m)
                continue
            d = popcount64(kept_fps ^ np.uint64(int(fingerprints[m]))).astype(np.int64)
            best = int(np.argmin(d))
            if d[best] <= k:
                out.append((doc, kept[best], int(d[best])))
            else:
                far.append(m)
    return ActionTargets(out, far, stale, too_wide)
