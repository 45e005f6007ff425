"""Keep rules: which members of each family are kept, and which are marked duplicates of
which keeper.

Everything here is a pure function over per-document arrays (one entry per document), so a
rule over 100,000 documents is a handful of numpy sorts. A family is a label in
``families`` (``-1``: the document is in no family of two or more). Members are ranked by
the rules in order (each rule breaks the ties of the previous ones), then by path in
code-point order, so every choice is deterministic.

**A document is only ever marked a duplicate of a keeper within k of it** (:func:`keepers`).
A family is not one duplicate set: in chain grouping (single linkage) its members are
joined through others and its ends can be 30 bits apart; in star grouping members are within
k of the centre but up to 2k of each other. So the keepers are chosen greedily in rank
order: the family's first member is kept and takes every member within k of it; the first
member not yet taken is kept next and takes the rest within k of it; and so on. Each
keeper and the members it took form a *tight group*. A tight family is one group, as
before; a wide one splits.

Rules (``RULES``): ``newest``/``oldest`` (modification time), ``largest``/``smallest``
(size), ``shortest-path`` (fewest path components, then fewest characters), ``first-name``
(file name, then path) and ``preferred`` (documents in a reference folder first). Documents
in reference folders are *protected*: never marked for action, whatever the rule.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ditto_tui.core.families.clusters import describe_family
from ditto_tui.core.families.notes import chain_too_wide
from ditto_tui.core.fingerprint.simhash import popcount64

__all__ = [
    "RULES",
    "DocumentTable",
    "KeepPreview",
    "Keepers",
    "by_folder",
    "by_glob",
    "family_labels",
    "invert",
    "keepers",
    "preview",
    "too_wide",
    "unsafe_families",
]

RULES = ("newest", "oldest", "largest", "smallest", "shortest-path", "first-name", "preferred")


def _rank_of(order: list[int]) -> np.ndarray:
    """Ranks from a permutation: ``rank[order[r]] = r``."""
    ranks = np.empty(len(order), np.int64)
    ranks[np.asarray(order, dtype=np.int64)] = np.arange(len(order), dtype=np.int64)
    return ranks


def in_folders(ids: Sequence[str], folders: Sequence[str]) -> np.ndarray:
    """Mask of ids at or below any of ``folders`` (root-relative, ``/``-separated)."""
    cleaned = tuple(f.strip("/") for f in folders)
    if "" in cleaned or "." in cleaned:
        return np.ones(len(ids), bool)
    prefixes = tuple(f + "/" for f in cleaned)
    if not prefixes:
        return np.zeros(len(ids), bool)
    return np.fromiter((i.startswith(prefixes) for i in ids), bool, len(ids))


@dataclass(frozen=True)
class DocumentTable:
    """The per-document columns keep rules look at (all arrays of one length ``n``).

    Build one with :meth:`from_documents`; ``path_rank`` orders ids in code-point order,
    ``name_rank`` by (file name, path); ``depth`` counts ``/``; ``preferred`` marks
    documents inside a reference folder.
    """

    ids: tuple[str, ...]
    mtime_ns: np.ndarray
    size: np.ndarray
    depth: np.ndarray
    length: np.ndarray
    path_rank: np.ndarray
    name_rank: np.ndarray
    preferred: np.ndarray

    @classmethod
    def from_documents(
        cls,
        ids: Sequence[str],
        mtime_ns: Sequence[int] | np.ndarray,
        size: Sequence[int] | np.ndarray,
        *,
        reference_folders: Sequence[str] = (),
    ) -> DocumentTable:
        """Columns for ``ids`` with their modification times and sizes."""
        ids = tuple(ids)
        n = len(ids)
        mt = np.asarray(mtime_ns, dtype=np.int64).reshape(n)
        sz = np.asarray(size, dtype=np.int64).reshape(n)
        depth = np.fromiter((i.count("/") for i in ids), np.int64, n)
        length = np.fromiter((len(i) for i in ids), np.int64, n)
        by_path = sorted(range(n), key=ids.__getitem__)
        names = [i.rsplit("/", 1)[-1] for i in ids]
        by_name = sorted(by_path, key=names.__getitem__)  # stable: ties stay in path order
        path_rank = _rank_of(by_path)
        name_rank = _rank_of(by_name)
        return cls(ids, mt, sz, depth, length, path_rank, name_rank,
                   in_folders(ids, reference_folders))

    def __len__(self) -> int:
        return len(self.ids)

    def sort_keys(self, rules: Sequence[str]) -> list[np.ndarray]:
        """``np.lexsort`` keys (least significant first) for ``rules`` then the path."""
        keys: list[np.ndarray] = [self.path_rank]
        for rule in reversed(list(rules)):
            if rule == "newest":
                keys.append(-self.mtime_ns)
            elif rule == "oldest":
                keys.append(self.mtime_ns)
            elif rule == "largest":
                keys.append(-self.size)
            elif rule == "smallest":
                keys.append(self.size)
            elif rule == "shortest-path":
                keys.append(self.length)
                keys.append(self.depth)
            elif rule == "first-name":
                keys.append(self.name_rank)
            elif rule == "preferred":
                keys.append((~self.preferred).astype(np.int8))
            else:
                raise ValueError(f"unknown keep rule {rule!r} (expected one of {', '.join(RULES)})")
        return keys


def family_labels(groups: Sequence[Sequence[int]], n: int) -> np.ndarray:
    """Labels (int64, ``-1`` outside) from families given as lists of document indices;
    groups of fewer than two members get no label."""
    labels = np.full(n, -1, np.int64)
    f = 0
    for g in groups:
        if len(g) >= 2:
            labels[np.asarray(g, dtype=np.int64)] = f
            f += 1
    return labels


def by_folder(ids: Sequence[str], folder: str, families: np.ndarray | None = None) -> np.ndarray:
    """Mask of ids at or below ``folder`` (restricted to family members if ``families``)."""
    mask = in_folders(ids, [folder])
    return mask if families is None else mask & (np.asarray(families) >= 0)


def by_glob(ids: Sequence[str], pattern: str, families: np.ndarray | None = None) -> np.ndarray:
    """Mask of ids matching a shell glob (``fnmatch``, case-sensitive). A pattern without
    ``/`` matches the file name; one with ``/`` the whole root-relative path (``*`` may then
    cross folders)."""
    if "/" in pattern:
        mask = np.fromiter((fnmatch.fnmatchcase(i, pattern) for i in ids), bool, len(ids))
    else:
        mask = np.fromiter(
            (fnmatch.fnmatchcase(i.rsplit("/", 1)[-1], pattern) for i in ids), bool, len(ids)
        )
    return mask if families is None else mask & (np.asarray(families) >= 0)


def invert(mask: np.ndarray, families: np.ndarray) -> np.ndarray:
    """The other family members: unmarked members become marked and marked ones unmarked
    (documents in no family stay unmarked)."""
    return ~np.asarray(mask, bool) & (np.asarray(families) >= 0)


def unsafe_families(families: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Labels of families in which *every* member is marked (acting would leave no copy)."""
    families = np.asarray(families, dtype=np.int64)
    inside = families >= 0
    if not inside.any():
        return np.empty(0, np.int64)
    count = int(families.max()) + 1
    total = np.bincount(families[inside], minlength=count)
    marked = np.bincount(families[inside & np.asarray(mask, bool)], minlength=count)
    return np.flatnonzero((total > 0) & (marked == total))


@dataclass(frozen=True)
class Keepers:
    """Tight groups: ``keeper[x]`` is the keeper document x belongs to (``x`` itself for a
    keeper, ``-1`` outside every family) and ``distance[x]`` its bits from that keeper
    (0 for keepers, -1 outside); ``split`` holds the labels of families that needed more
    than one keeper because a member was more than k from the first (pinned members, kept
    whatever their distance, split nothing)."""

    keeper: np.ndarray
    distance: np.ndarray
    split: np.ndarray

    @property
    def kept(self) -> np.ndarray:
        """Mask of the keepers."""
        mask: np.ndarray = self.keeper == np.arange(len(self.keeper))
        return mask

    @property
    def taken(self) -> np.ndarray:
        """Mask of the members taken by a keeper other than themselves."""
        mask: np.ndarray = (self.keeper >= 0) & ~self.kept
        return mask


def keepers(
    families: np.ndarray,
    fingerprints: np.ndarray,
    table: DocumentTable,
    rules: Sequence[str],
    k: int,
    pinned: np.ndarray | None = None,
) -> Keepers:
    """The tight groups of every family (see the module docstring): greedily, in rank order
    (``rules``, then the path), each member not yet taken is kept and takes every member of
    its family not yet taken within ``k`` bits of it. ``pinned`` members (reference folders,
    members the user decided to keep) are never taken: each is kept when its turn comes.

    So every taken member is within ``k`` of its keeper, and every member of a family is a
    keeper or taken. Families are grouped as the caller likes (chain or star): the result
    holds for any grouping. Cost: one vector pass over the members for the families whose
    first member takes them all, then one pass per extra keeper of the others.
    """
    families = np.asarray(families, dtype=np.int64)
    fps = np.asarray(fingerprints, dtype=np.uint64)
    n = len(families)
    if len(fps) != n or len(table) != n:
        raise ValueError(f"{len(families)} labels, {len(fps)} fingerprints, {len(table)} documents")
    pin = np.zeros(n, bool) if pinned is None else np.asarray(pinned, bool)
    keeper = np.full(n, -1, np.int64)
    distance = np.full(n, -1, np.int64)
    member = np.flatnonzero(families >= 0)
    if len(member) == 0:
        return Keepers(keeper, distance, np.empty(0, np.int64))
    keys = [key[member] for key in table.sort_keys(rules)]
    keys.append(families[member])
    order = member[np.lexsort(keys)]  # by family, then rank
    lab = families[order]
    starts = np.flatnonzero(np.r_[True, lab[1:] != lab[:-1]])
    ends = np.r_[starts[1:], len(order)]
    first = order[starts]
    # the first member of each family is kept and takes every member within k of it
    head = np.repeat(first, ends - starts)
    d = popcount64(fps[order] ^ fps[head]).astype(np.int64)
    take = (d <= k) & ~pin[order]
    keeper[order[take]] = head[take]
    distance[order[take]] = d[take]
    keeper[first] = first
    distance[first] = 0
    left = keeper[order] < 0
    # families with a member too far from the first keeper need more keepers; elsewhere
    # the members left are pinned ones, each its own keeper
    open_families = np.unique(lab[left & ~pin[order]])
    alone = order[left & ~np.isin(lab, open_families)]
    keeper[alone] = alone
    distance[alone] = 0
    for family in open_families.tolist():
        i = int(np.searchsorted(lab[starts], family))
        seq = order[starts[i] : ends[i]]  # the family in rank order
        free = keeper[seq] < 0
        free_pin = pin[seq]
        seq_fps = fps[seq]
        for j in np.flatnonzero(free).tolist():
            if not free[j]:
                continue  # taken by a keeper before it
            x = int(seq[j])
            keeper[x], distance[x] = x, 0
            free[j] = False
            cand = np.flatnonzero(free & ~free_pin)
            if len(cand) == 0:
                continue
            dc = popcount64(seq_fps[cand] ^ seq_fps[j]).astype(np.int64)
            near = dc <= k
            got = cand[near]
            keeper[seq[got]] = x
            distance[seq[got]] = dc[near]
            free[got] = False
    return Keepers(keeper, distance, open_families.astype(np.int64))


def too_wide(families: np.ndarray, fingerprints: np.ndarray, ids: Sequence[str],
             labels: np.ndarray, k: int) -> dict[int, int]:
    """Of the families ``labels`` (chain families, typically the split ones), those whose
    exact diameter is far above ``k`` (:func:`~ditto_tui.core.families.notes.chain_too_wide`):
    label -> diameter. ``ids`` (sorted within a family) name the members for the medoid
    tie-break. One grouping pass over the documents, then one exact diameter a family."""
    wanted = np.asarray(labels, dtype=np.int64)
    if len(wanted) == 0:
        return {}
    families = np.asarray(families, dtype=np.int64)
    chosen = np.flatnonzero(np.isin(families, wanted))
    chosen = chosen[np.argsort(families[chosen], kind="stable")]
    cuts = np.flatnonzero(np.diff(families[chosen])) + 1
    out: dict[int, int] = {}
    for members in np.split(chosen, cuts):
        _centre, diameter, exact = describe_family([ids[m] for m in members.tolist()],
                                                   fingerprints[members])
        if exact and chain_too_wide(diameter, k):
            out[int(families[members[0]])] = diameter
    return out


@dataclass(frozen=True)
class KeepPreview:
    """What a rule would do, recording nothing: ``keeper``, ``distance`` and ``split`` as in
    :class:`Keepers`; ``marked`` the members to act on (each within k of its keeper),
    ``protected`` the members in reference folders (never marked)."""

    keeper: np.ndarray
    distance: np.ndarray
    marked: np.ndarray
    protected: np.ndarray
    split: np.ndarray

    @property
    def marked_count(self) -> int:
        return int(self.marked.sum())


def preview(
    families: np.ndarray,
    table: DocumentTable,
    rules: Sequence[str],
    fingerprints: np.ndarray,
    k: int,
    pinned: np.ndarray | None = None,
) -> KeepPreview:
    """Apply ``rules`` at distance ``k`` (:func:`keepers`) without recording anything.

    When a reference folder is configured and ``preferred`` is not among ``rules``, it is
    put first: a family with a member in a reference folder keeps that member. Members in
    reference folders and ``pinned`` ones are never marked.
    """
    rules = list(rules)
    if table.preferred.any() and "preferred" not in rules:
        rules.insert(0, "preferred")
    protected = table.preferred & (np.asarray(families) >= 0)
    pin = protected if pinned is None else protected | np.asarray(pinned, bool)
    groups = keepers(families, fingerprints, table, rules, k, pin)
    return KeepPreview(groups.keeper, groups.distance, groups.taken, protected, groups.split)
