"""Keep rules: which member of each family is its reference, and which members to mark.

Everything here is a pure function over per-document arrays (one entry per document), so a
rule over 100,000 documents is a handful of numpy sorts. A family is a label in
``families`` (``-1``: the document is in no family of two or more). The reference of a
family is its first member under the rules in order (each rule breaks the ties of the
previous ones), then by path in code-point order, so the choice is always deterministic.

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

__all__ = [
    "RULES",
    "DocumentTable",
    "KeepPreview",
    "by_folder",
    "by_glob",
    "family_labels",
    "invert",
    "mark_all_but_reference",
    "preview",
    "references",
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


def references(families: np.ndarray, table: DocumentTable, rules: Sequence[str]) -> np.ndarray:
    """The reference (a document index) of each family ``0..max(families)``: the first
    member under ``rules`` then the path. A label with no member gets ``-1``."""
    families = np.asarray(families, dtype=np.int64)
    if len(families) != len(table):
        raise ValueError(f"{len(families)} labels for {len(table)} documents")
    count = int(families.max()) + 1 if len(families) else 0
    refs = np.full(count, -1, np.int64)
    member = np.flatnonzero(families >= 0)
    if len(member) == 0:
        return refs
    keys = [k[member] for k in table.sort_keys(rules)]
    keys.append(families[member])
    order = member[np.lexsort(keys)]
    lab = families[order]
    first = np.ones(len(order), bool)
    first[1:] = lab[1:] != lab[:-1]
    refs[lab[first]] = order[first]
    return refs


def mark_all_but_reference(
    families: np.ndarray, refs: np.ndarray, protected: np.ndarray | None = None
) -> np.ndarray:
    """Mask of family members other than their family's reference and not ``protected``."""
    families = np.asarray(families, dtype=np.int64)
    mask = families >= 0
    if len(refs):
        mask[refs[refs >= 0]] = False
    if protected is not None:
        mask &= ~np.asarray(protected, bool)
    return mask


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
class KeepPreview:
    """What a rule would do: ``refs[f]`` is family f's reference, ``marked`` the documents
    it marks for action, ``protected`` the members it leaves alone (reference folders)."""

    refs: np.ndarray
    marked: np.ndarray
    protected: np.ndarray

    @property
    def marked_count(self) -> int:
        return int(self.marked.sum())


def preview(families: np.ndarray, table: DocumentTable, rules: Sequence[str]) -> KeepPreview:
    """Apply ``rules`` without recording anything: references, marks and protected members.

    When a reference folder is configured and ``preferred`` is not among ``rules``, it is
    put first: a family with a member in a reference folder keeps that member.
    """
    rules = list(rules)
    if table.preferred.any() and "preferred" not in rules:
        rules.insert(0, "preferred")
    refs = references(families, table, rules)
    protected = table.preferred & (np.asarray(families) >= 0)
    return KeepPreview(refs, mark_all_but_reference(families, refs, protected), protected)
