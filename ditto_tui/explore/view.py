"""The family list as shown, built off the UI thread: :class:`FamilyView`.

:func:`build_view` turns one listing (every family at a k, from a
:class:`~ditto_tui.explore.snapshot.Snapshot`) into what the family pane paints: the
families that pass the filter in display order, the row of every shown member, counts,
and what changed since the previous view (new, gone and changed families). A family keeps
its identity while it changes: ``identity[row]`` is carried over from the previous view's
family that shares the most members with it, so the selection can follow a family whose
representative was renamed or removed. Everything here is O(shown members): call it from a
worker, never from the UI thread.
"""

from __future__ import annotations

import itertools
from array import array
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol, overload

from ditto_tui.core.families.clusters import Family, FamilyLike, Mode
from ditto_tui.core.families.listing import FamilyListing
from ditto_tui.core.families.notes import (
    EMPTY,
    IDENTICAL,
    chain_too_wide,
    family_note,
    star_hint,
)
from ditto_tui.core.text.id_filter import GLOB_CHARS, id_matcher
from ditto_tui.corpus.documents import Document
from ditto_tui.explore.review import ReviewState, key_of

SortKey = Literal["size", "diameter", "name", "newest"]
#: how a shown family is marked in the review
FamilyState = Literal["reviewed", "ignored"]
SORT_KEYS: tuple[SortKey, ...] = ("size", "diameter", "name", "newest")

_identities = itertools.count(1)


class DocumentLike(Protocol):
    """What a family list needs of a document (``corpus.documents.Document`` meets it)."""

    @property
    def size(self) -> int: ...

    @property
    def mtime_ns(self) -> int: ...


def newest_change(family: FamilyLike, documents: Mapping[str, DocumentLike]) -> int:
    """Most recent ``mtime_ns`` among the members (0 when none is known)."""
    best = 0
    for member in family.members:
        doc = documents.get(member)
        if doc is not None and doc.mtime_ns > best:
            best = doc.mtime_ns
    return best


@dataclass(frozen=True, slots=True)
class ViewRequest:
    """What the user asked to see. ``serial`` orders requests (a newer one wins)."""

    k: int
    mode: Mode = "chain"
    pattern: str = ""
    sort: SortKey = "size"
    singletons: bool = False
    serial: int = 0
    #: the selected document and family identity: the view says where they are now
    keep: str | None = None
    keep_identity: int | None = None
    #: review filters: only families not marked reviewed; ignored ones shown again
    unreviewed_only: bool = False
    show_ignored: bool = False

    def same_listing(self, other: ViewRequest | None) -> bool:
        return other is not None and (self.k, self.mode, self.show_ignored) == (
            other.k, other.mode, other.show_ignored
        )


@dataclass(frozen=True, slots=True)
class ViewDelta:
    """What changed since the previous view: families of 2+ members ``new``, ``gone``,
    ``grew`` (members joined), ``shrank`` (members left) and ``changed`` (both); documents
    ``added``, ``modified``, ``removed`` and ``renamed`` on disk (``renames``: old id ->
    new id, a document that left under one name and came back with the same fingerprint
    under another)."""

    new: int = 0
    gone: int = 0
    changed: int = 0
    added: int = 0
    modified: int = 0
    removed: int = 0
    grew: int = 0
    shrank: int = 0
    renamed: int = 0
    renames: Mapping[str, str] = field(default_factory=dict)

    def describe(self) -> str:
        """One line for the "corpus changed" notice."""
        parts = []
        for count, what in (
            (self.modified, "changed"),
            (self.added, "new"),
            (self.removed, "removed"),
            (self.renamed, "renamed"),
        ):
            if count:
                parts.append(f"{count} {what}")
        for count, what in (
            (self.new, "new"),
            (self.grew, "grew"),
            (self.shrank, "shrank"),
            (self.changed, "changed"),
            (self.gone, "gone"),
        ):
            if count:
                noun = "family" if count == 1 else "families"
                parts.append(f"{count} {what} {noun}" if what == "new" else f"{count} {noun} {what}")
        return ", ".join(parts) or "no visible change"


def pair_renames(removed: Mapping[str, int], added: Mapping[str, int]) -> dict[str, str]:
    """Old id -> new id for documents that left under one name and arrived under another
    with the same fingerprint (one to one, in name order)."""
    by_fp: dict[int, list[str]] = {}
    for doc_id in sorted(removed):
        by_fp.setdefault(int(removed[doc_id]), []).append(doc_id)
    renames: dict[str, str] = {}
    for doc_id in sorted(added):
        olds = by_fp.get(int(added[doc_id]))
        if olds:
            renames[olds.pop(0)] = doc_id
    return renames


@dataclass(frozen=True, eq=False)
class FamilyView:
    """One immutable family listing as displayed (see module docstring).

    ``keep_row`` is the row of the request's ``keep`` document (else of the family with
    ``keep_identity``), None when neither is shown. ``row_of`` (document -> row) is
    built on first use: O(shown members), so not on the UI thread."""

    request: ViewRequest
    generation: int
    epoch: int
    families: Sequence[Family]
    identity: Sequence[int]
    multi: int  # families of 2+ members at this k (whatever the filter)
    documents: int
    shown_multi: int = -1  # families of 2+ members shown (-1: not counted)
    #: centre -> what the family is when that is trivial (core.families.notes.family_note)
    notes: Mapping[str, str] = field(default_factory=dict)
    delta: ViewDelta | None = None  # None: not a live change (first view, new k, ...)
    newest: Mapping[str, int] = field(default_factory=dict)  # centre -> newest mtime_ns
    keep_row: int | None = None
    #: review progress over the families of 2+ at this k (None without a review store):
    #: families marked reviewed, and families counted (ignored ones left out)
    reviewed: int | None = None
    reviewable: int = 0
    #: family key of each shown row ("" for singletons; empty without a review store)
    keys: Sequence[str] = ()
    #: centre -> "reviewed" or "ignored" for the shown families marked so (ignored ones
    #: are shown only on request)
    states: Mapping[str, FamilyState] = field(default_factory=dict)
    review_serial: int = 0
    #: built from a snapshot of the whole corpus (its source's first scan had ended):
    #: until then an empty list or a count says "not known yet", never "none"
    complete: bool = False
    _row_of: dict[str, int] = field(default_factory=dict, repr=False)

    def __len__(self) -> int:
        return len(self.families)

    @property
    def row_of(self) -> Mapping[str, int]:
        """Row of every shown document (built once, on first use)."""
        if not self._row_of and self.families:
            self._row_of.update(_rows_of(self.families))
        return self._row_of

    def row_of_identity(self, identity: int) -> int | None:
        """Row of the family with ``identity`` (None if not shown)."""
        for row, ident in enumerate(self.identity):
            if ident == identity:
                return row
        return None


def _identities_by_centre(listing: Sequence[Family], previous: FamilyView) -> dict[str, int]:
    """centre -> identity of the families of ``listing`` shown so far (in ``previous``, a
    view of the same listing, and the views of it before): kept per listing, so that a
    filter key costs O(families shown), not O(families shown before)."""
    cached = _IDENTITY_OF.get(id(listing))
    if cached is not None and cached[0] is listing and cached[1] is previous:
        return cached[2]
    if cached is not None and cached[0] is listing:
        mapping = cached[2]
    else:
        mapping = {}
        if len(_IDENTITY_OF) >= 2:  # (the listing on screen and the one before)
            _IDENTITY_OF.pop(next(iter(_IDENTITY_OF)))
    mapping.update(zip((f.centre for f in previous.families), previous.identity, strict=True))
    _IDENTITY_OF[id(listing)] = (listing, previous, mapping)
    return mapping


def _remember_view(listing: Sequence[Family], view: FamilyView) -> None:
    """``view`` (of ``listing``) is the latest: its identities are in the listing's map."""
    cached = _IDENTITY_OF.get(id(listing))
    if cached is not None and cached[0] is listing:
        _IDENTITY_OF[id(listing)] = (listing, view, cached[2])


#: id(listing) -> (listing, latest view of it, centre -> identity)
_IDENTITY_OF: dict[int, tuple[Sequence[Family], FamilyView, dict[str, int]]] = {}


def _rows_of(families: Sequence[Family]) -> dict[str, int]:
    """Row of every member of ``families`` (disjoint), built at C speed."""
    sizes = [len(f.members) for f in families]
    rows = itertools.chain.from_iterable(
        itertools.repeat(row, size) for row, size in enumerate(sizes)
    )
    return dict(zip(itertools.chain.from_iterable(f.members for f in families), rows, strict=True))


def _multi_count(listing: Sequence[Family]) -> int:
    """Families of 2+ members: a prefix of ditto's order (size descending)."""
    if isinstance(listing, FamilyListing):
        return listing.multi_count
    lo, hi = 0, len(listing)
    while lo < hi:
        mid = (lo + hi) // 2
        if listing[mid].size >= 2:
            lo = mid + 1
        else:
            hi = mid
    return lo


def build_view(
    listing: Sequence[Family],
    request: ViewRequest,
    documents: Mapping[str, Document],
    *,
    generation: int,
    epoch: int,
    total: int,
    previous: FamilyView | None = None,
    review: ReviewState | None = None,
    fingerprints: Mapping[str, int] | None = None,
    key_cache: dict[int, tuple[Family, str]] | None = None,
    renames: Mapping[str, str] | None = None,
    complete: bool = False,
) -> FamilyView:
    """The view of ``listing`` for ``request`` (see the module docstring).

    ``previous`` (the view on screen) gives identities and, when it shows the same k and
    mode of an older generation of the same epoch, the change counts. With ``review``
    (and the ``fingerprints`` of the snapshot) families marked ignored are left out unless
    the request shows them, the unreviewed filter applies, and progress is counted.
    ``key_cache`` (family object id -> (family, key)) keeps the family keys between builds
    of the same generation (the caller clears it when the generation changes).
    ``renames`` (old id -> new id since ``previous``) lets a renamed member carry its
    family and the selection: a family whose only change is a rename is not counted
    as changed. ``complete`` says the listing is of the whole corpus (see
    :attr:`FamilyView.complete`)."""
    renames = renames or {}
    renamed_from = {new: old for old, new in renames.items()}
    multi = _multi_count(listing)
    pool = listing if request.singletons else listing[:multi]
    pool_multi: int | None = multi  # families of 2+ in ``pool`` (None: not counted)
    keys_of: dict[int, str] = {}
    states: dict[str, FamilyState] = {}
    reviewed: int | None = None
    reviewable = 0
    # no family marked reviewed or ignored: none is left out or counted as reviewed, so
    # no family key is needed now (computed per row when asked for; O(families) else)
    unmarked = review is not None and not review.ignored and not review.reviewed
    if unmarked:
        reviewed, reviewable = 0, multi
    elif review is not None:
        fps = fingerprints or {}
        reviewed = 0
        kept = []
        for family in pool:
            if family.size < 2:
                kept.append(family)
                continue
            cached = key_cache.get(id(family)) if key_cache is not None else None
            if cached is not None and cached[0] is family:
                key = cached[1]
            else:
                key = key_of(family.members, documents, fps)
                if key_cache is not None:
                    key_cache[id(family)] = (family, key)
            keys_of[id(family)] = key
            ignored = key in review.ignored
            done = key in review.reviewed
            if not ignored:
                reviewable += 1
                reviewed += done
            if ignored and not request.show_ignored:
                continue
            if done and request.unreviewed_only:
                continue
            if ignored or done:
                states[family.centre] = "ignored" if ignored else "reviewed"
            kept.append(family)
        pool = kept
        pool_multi = None
    families: Sequence[Family]
    if request.pattern.strip() and (review is None or unmarked):
        families = _filtered(listing, request.pattern, singletons=request.singletons)
    elif request.pattern.strip():  # the review left some families out: test what is left
        match = id_matcher(request.pattern)
        families = [f for f in pool if any(match(m) for m in f.members)]
    elif request.sort == "size":
        families = pool  # immutable, in ditto's order already: shared, not copied
    else:
        families = list(pool)
        if pool_multi is not None:
            pool = families  # the same families, sorted below: the count holds
    newest: dict[str, int] = {}
    if request.sort == "size":
        pass  # ditto's order is size descending already
    elif request.sort == "diameter":
        assert isinstance(families, list)
        families.sort(key=lambda f: (-f.diameter, -f.size))
    elif request.sort == "name":
        assert isinstance(families, list)
        families.sort(key=lambda f: f.centre)
    else:
        assert isinstance(families, list)
        for f in families:
            newest[f.centre] = newest_change(f, documents)
        families.sort(key=lambda f: -newest[f.centre])
    identity: Sequence[int]
    delta: ViewDelta | None = None
    row_of: dict[str, int] = {}
    same = (
        previous is not None
        and previous.epoch == epoch
        and request.same_listing(previous.request)
    )
    if same and previous is not None and previous.generation == generation:
        # the same listing (another filter or sort): families are the listing's own, so
        # each keeps the identity it had under its centre
        if families is previous.families:
            identity = previous.identity
        else:
            old_identity = _identities_by_centre(listing, previous)
            identity = [old_identity.get(f.centre) or 0 for f in families]
            for row, ident in enumerate(identity):
                if not ident:
                    identity[row] = old_identity[families[row].centre] = next(_identities)
    elif same and previous is not None and not previous.families:
        # nothing was shown (e.g. the first view of a scan): every family is new
        identity = _fresh_identities(len(families))
        if previous.generation != generation:
            delta = ViewDelta(new=sum(1 for f in families if f.size > 1))
    elif same and previous is not None:
        old_rows = previous.row_of
        # a family the index did not recompute is the same object: no vote needed
        old_object = {id(f): row for row, f in enumerate(previous.families) if f.size > 1}
        claimed: set[int] = set()
        new = changed = grew = shrank = 0
        carried: list[int] = []
        identity = carried
        row_of = _rows_of(families)
        for family in families:
            same_row = old_object.get(id(family))
            if same_row is not None and same_row not in claimed:
                claimed.add(same_row)
                carried.append(previous.identity[same_row])
                continue
            votes: dict[int, int] = {}
            for member in family.members:
                old_row = old_rows.get(member)
                if old_row is None and member in renamed_from:
                    old_row = old_rows.get(renamed_from[member])
                if old_row is not None:
                    votes[old_row] = votes.get(old_row, 0) + 1
            best = max(votes, key=lambda r: (votes[r], -r)) if votes else None
            if best is not None and best not in claimed:
                claimed.add(best)
                carried.append(previous.identity[best])
                old_members = previous.families[best].members
                if family.size > 1 and old_members != family.members:
                    before = {renames.get(m, m) for m in old_members}
                    after = set(family.members)
                    if after < before:
                        shrank += 1
                    elif after > before:
                        grew += 1
                    elif after != before:
                        changed += 1
            else:
                carried.append(next(_identities))
                if family.size > 1:
                    new += 1
        if previous.generation != generation:
            gone = sum(
                1
                for row, f in enumerate(previous.families)
                if f.size > 1 and row not in claimed
                and not any(m in row_of for m in f.members)
            )
            delta = ViewDelta(new=new, gone=gone, changed=changed, grew=grew, shrank=shrank)
    else:
        identity = _fresh_identities(len(families))
    if not request.singletons:
        shown_multi = len(families)  # (families of 2+ only)
    elif families is pool and pool_multi is not None:  # the listing's own families
        shown_multi = pool_multi
    else:
        shown_multi = sum(1 for f in families if f.size > 1)
    keep_row = _row_of_keep(families, identity, row_of, request, renames)
    keys: Sequence[str] = ()
    if unmarked:
        keys = _FamilyKeys(families, documents, fingerprints or {})
    elif review is not None:
        keys = [keys_of.get(id(f), "") for f in families]
    view = FamilyView(
        reviewed=reviewed,
        reviewable=reviewable,
        keys=keys,
        states=states,
        review_serial=review.serial if review is not None else 0,
        request=request,
        generation=generation,
        epoch=epoch,
        families=families,
        identity=identity,
        multi=multi,
        documents=total,
        shown_multi=shown_multi,
        notes=(
            listing_notes(listing, request.k, request.mode, documents)
            if isinstance(listing, FamilyListing)
            else family_notes(families, request, documents)
        ),
        delta=delta,
        newest=newest,
        keep_row=keep_row,
        complete=complete,
        _row_of=row_of,
    )
    if same and previous is not None and previous.generation == generation:
        _remember_view(listing, view)
    return view


class _FamilyKeys(Sequence[str]):
    """The family key of each of ``families`` ("" for singletons), computed on access."""

    def __init__(
        self,
        families: Sequence[Family],
        documents: Mapping[str, Document],
        fingerprints: Mapping[str, int],
    ) -> None:
        self._families, self._documents, self._fps = families, documents, fingerprints

    def __len__(self) -> int:
        return len(self._families)

    @overload
    def __getitem__(self, row: int) -> str: ...

    @overload
    def __getitem__(self, row: slice) -> list[str]: ...

    def __getitem__(self, row: int | slice) -> str | list[str]:
        if isinstance(row, slice):
            return [self[i] for i in range(*row.indices(len(self)))]
        family = self._families[row]
        return key_of(family.members, self._documents, self._fps) if family.size > 1 else ""


def filter_families(
    listing: Sequence[Family], pattern: str, *, singletons: bool
) -> list[Family]:
    """The families of ``listing`` (of 2+ members unless ``singletons``) with a member
    that ``pattern`` keeps (:func:`~ditto_tui.core.text.id_filter.id_matcher`), in order.

    A substring pattern over a :class:`FamilyListing` is answered from its search text
    (built once per listing): C-speed string search instead of a test per member."""
    return list(_filtered(listing, pattern, singletons=singletons))


def _filtered(listing: Sequence[Family], pattern: str, *, singletons: bool) -> Sequence[Family]:
    """:func:`filter_families`, as the listing's own tuple when every family of 2+
    matches (no copy); recent substring searches of a listing are remembered."""
    if isinstance(listing, FamilyListing) and not (GLOB_CHARS & set(pattern.strip())):
        needle = pattern.strip().casefold()
        key = (id(listing), needle, singletons)
        cached = _MATCHING.get(key)
        rows: Sequence[int]
        if cached is not None and cached[0] is listing:
            rows = cached[1]
        else:
            if any(other is not listing for other, _rows in _MATCHING.values()):
                _MATCHING.clear()  # another listing (k, grouping, change): forget the old
            rows = array("i", listing.rows_matching(needle, singletons=singletons))
            if len(_MATCHING) >= 32:  # (typing and erasing a pattern revisits its prefixes)
                _MATCHING.pop(next(iter(_MATCHING)))
            _MATCHING[key] = (listing, rows)
        multi = listing.multi
        if len(rows) == len(multi) and not singletons:
            return multi  # every family matches: the listing's own tuple, not a copy
        if rows and rows[-1] < len(multi):  # families of 2+ only: index the tuple directly
            return [multi[i] for i in rows]
        return [listing[i] for i in rows]
    match = id_matcher(pattern)
    pool = listing if singletons else listing[: _multi_count(listing)]
    return [f for f in pool if any(match(m) for m in f.members)]


def family_notes(
    families: Sequence[Family], request: ViewRequest, documents: Mapping[str, Document]
) -> dict[str, str]:
    """centre -> note for the families that have one (empty files, identical
    fingerprints, the star hint). O(shown families); a member's size is read only for
    the families of identical fingerprints (the only ones that can be all empty), once
    per family object."""
    notes: dict[str, str] = {}
    if isinstance(families, FamilyListing):  # singletons (a suffix) have no note
        families = families[: families.multi_count]
    if len(_EMPTY) > 500_000:
        _EMPTY.clear()
    k, mode = request.k, request.mode
    for family in families:
        if family.size < 2 or not family.diameter_exact:
            continue
        if family.diameter == 0:
            # all empty files have the same fingerprint: only such a family can be empty
            cached = _EMPTY.get(id(family))
            if cached is None or cached[0] is not family:
                sizes = [documents[m].size for m in family.members]
                note = family_note(family, k=k, mode=mode, sizes=sizes)
                cached = _EMPTY[id(family)] = (family, note == EMPTY)
            notes[family.centre] = EMPTY if cached[1] else IDENTICAL
        elif mode == "chain" and chain_too_wide(family.diameter, k):
            notes[family.centre] = star_hint(family.diameter, k)
    return notes


def listing_notes(
    listing: FamilyListing,
    k: int,
    mode: str,
    documents: Mapping[str, DocumentLike],
    previous: FamilyListing | None = None,
) -> Mapping[str, str]:
    """centre -> note for every family of ``listing`` (grouped at ``k`` in ``mode``) that
    has one (:func:`~ditto_tui.core.families.notes.family_note`), computed once per listing
    and kept on it: a view of any filter or sort of the listing shares it (a superset of
    the families shown). One pass over the families of 2+ members; a member's size is
    looked up only while every member before it is empty (the first, almost always).
    ``previous``: an older listing of the same ``(k, mode)`` (e.g. before a live change)
    whose families that ``listing`` kept (the same objects) keep their notes."""
    key = (k, mode)
    cached = listing._notes
    if cached is not None and cached[0] == key:
        return cached[1]
    notes: dict[str, str] = {}
    chain = mode == "chain"
    get = documents.__getitem__
    old_notes: Mapping[str, str] = {}
    kept: set[int] = set()
    if previous is not None and previous._notes is not None and previous._notes[0] == key:
        old_notes = previous._notes[1]
        kept = {id(f) for f in previous.multi}
    for family in listing.multi:
        if kept and id(family) in kept:
            note = old_notes.get(family.centre)
            if note is not None:
                notes[family.centre] = note
            continue
        if get(family.members[0]).size == 0 and all(
            get(m).size == 0 for m in family.members
        ):
            notes[family.centre] = EMPTY
        elif not family.diameter_exact:
            continue
        elif family.diameter == 0:
            notes[family.centre] = IDENTICAL
        elif chain and chain_too_wide(family.diameter, k):
            notes[family.centre] = star_hint(family.diameter, k)
    listing._notes = (key, notes)
    return notes


#: (id(listing), needle, singletons) -> (listing, rows) of the recent substring filters of
#: one listing (rows as 4-byte ints: at most 32 results of one listing are held)
_MATCHING: dict[tuple[int, str, bool], tuple[FamilyListing, Sequence[int]]] = {}
#: id(family) -> (family, all members empty): families of identical fingerprints seen
_EMPTY: dict[int, tuple[Family, bool]] = {}


_next_base = [1 << 40]


def _fresh_identities(n: int) -> range:
    """``n`` identities never used before (a range: O(1) whatever ``n``)."""
    base = _next_base[0]
    _next_base[0] += n + 1
    return range(base, base + n)


def _row_of_keep(
    families: Sequence[Family],
    identity: Sequence[int],
    row_of: Mapping[str, int],
    request: ViewRequest,
    renames: Mapping[str, str],
) -> int | None:
    keep = request.keep
    if keep is not None:
        keep = renames.get(keep, keep)
        if row_of:
            row = row_of.get(keep)
            if row is not None:
                return row
        else:
            for row, family in enumerate(families):
                if keep in family.members:
                    return row
    if request.keep_identity is not None and not isinstance(identity, range):
        for row, ident in enumerate(identity):
            if ident == request.keep_identity:
                return row
    return None
