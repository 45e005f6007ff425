"""The review service: decisions, family marks and ignored pairs, kept in step with the index.

Every change is queued to the index writer, so it sees the corpus exactly as the index
holds it (document records and fingerprints of one moment), is stored at once in the
:class:`~ditto_tui.corpus.review.ReviewStore`, and is published as a new immutable
:class:`~ditto_tui.explore.review.ReviewState` (a :class:`ReviewChanged` event; the view
builder is woken). After every change of the corpus the stored review is matched to it
again (:meth:`ReviewService.resolve`, on the writer thread).

Other processes may write the same store (a second explorer on the folder, the other tabs
of ``ditto-tui serve``): :meth:`ReviewService.refresh` (called every second or so) reads
the store again when one did, so what another session recorded shows here too. Of two
sessions deciding the same document the later write wins; when a refresh finds that
another session changed a decision this one showed, a notice says which.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Literal, Protocol

from ditto_tui.core.review.decisions import Decision, Identity, identity_of
from ditto_tui.core.text.display import escape_controls
from ditto_tui.corpus.actions.undo import damaged, recover
from ditto_tui.corpus.documents import Document
from ditto_tui.corpus.review import ReviewStore
from ditto_tui.corpus.session import CorpusSession
from ditto_tui.explore.events import ExplorerEvent, Notice, ReviewChanged
from ditto_tui.explore.review import ReviewState, key_of
from ditto_tui.explore.source import CorpusSource

#: The two marks a family can carry.
FamilyMark = Literal["reviewed", "ignored"]


class Corpus(Protocol):
    """What the review reads of the index writer."""

    def submit(self, fn: Callable[[], None]) -> None: ...

    def fingerprints(self) -> Mapping[str, int]: ...

    def records(self) -> Mapping[str, Document]: ...


def open_review(
    source: CorpusSource,
    *,
    cache_dir: str | os.PathLike[str] | None = None,
    fresh: bool = False,
    notices: list[str] | None = None,
) -> ReviewStore | None:
    """The :class:`~ditto_tui.corpus.review.ReviewStore` of a folder source (a
    ``CorpusSession``), or None for other sources (in memory, Spark results) and when the
    store cannot be placed (its folder inside the root: said in ``notices``). ``fresh``
    sets the previous review aside (journals are kept, so undo still works)."""
    if not isinstance(source, CorpusSession):
        return None
    try:
        return ReviewStore.for_root(source.root, cache_dir=cache_dir, fresh=fresh, notices=notices)
    except (ValueError, OSError) as exc:
        if notices is not None:
            notices.append(f"No review store (decisions will not be kept): {exc}")
        return None


class ReviewService:
    """The review of one corpus (see module docstring). ``store`` None: no review (in
    memory and Spark sources); the service is then inactive and says so when used.

    ``wake`` is called after every new state (the view builder rebuilds)."""

    def __init__(
        self,
        store: ReviewStore | None,
        corpus: Corpus,
        *,
        on_event: Callable[[ExplorerEvent], None],
        wake: Callable[[], None],
    ) -> None:
        self.store = store
        self._corpus = corpus
        self._on_event = on_event
        self._wake = wake
        self._state = ReviewState(active=store is not None)

    @property
    def state(self) -> ReviewState:
        """The latest review state (immutable; inactive without a store)."""
        return self._state

    @property
    def journal_dir(self) -> Path | None:
        """Where the action journals of this root live (None without a store)."""
        return None if self.store is None else self.store.journal_dir

    # -- changes (any thread; applied on the writer thread in queue order) --------------
    def set_marks(self, marks: Mapping[str, Decision | None]) -> None:
        """Record decisions (id -> decision, None clears) in one transaction."""
        marks = dict(marks)
        self._queue(lambda store: self._set_marks(store, marks))

    def mark_family(self, members: Sequence[str], kind: FamilyMark, on: bool = True) -> None:
        """Mark the family of ``members`` ``reviewed`` or ``ignored`` ("fine"), or unmark."""
        members = tuple(members)
        self._queue(lambda store: self._mark_family(store, members, kind, on))

    def ignore_pair(self, a: str, b: str, on: bool = True) -> None:
        """Record (or forget) "``a`` and ``b`` are not duplicates"."""
        self._queue(lambda store: self._ignore_pair(store, a, b, on))

    def _queue(self, change: Callable[[ReviewStore], None]) -> None:
        store = self.store
        if store is None:
            self._on_event(Notice("No review store for this corpus: decisions are not kept."))
            return
        self._corpus.submit(lambda: self._guard(lambda: change(store)))

    # -- on the writer thread ------------------------------------------------------------
    def resolve(self) -> None:
        """Match the stored review to the corpus as it is now (writer thread; O(corpus))."""
        store = self.store
        if store is None:
            return

        def run() -> None:
            # looked up per stored record (an identity per document only when a record's
            # document was renamed): a store with few records costs next to nothing
            idents = _Identities(self._corpus.records(), self._corpus.fingerprints())
            resolution = store.decisions(idents)
            pairs, lapsed = store.ignored_pairs(idents)
            self._publish(dataclasses.replace(
                self._state,
                decisions=MappingProxyType(dict(resolution.current)),
                stale=MappingProxyType(dict(resolution.stale)),
                reviewed=frozenset(store.family_marks("reviewed")),
                ignored=frozenset(store.family_marks("ignored")),
                pairs=tuple(sorted((min(a, b), max(a, b)) for a, b in pairs)),
                lapsed_pairs=lapsed,
            ))

        self._guard(run)

    def refresh(self) -> None:
        """Read the store again if another process wrote it since (writer thread; one
        pragma when nothing changed). Decisions another session changed, that this one
        showed with another value, are named in a notice."""
        store = self.store
        if store is None:
            return
        try:
            if not store.changed_elsewhere():
                return
        except Exception as exc:
            self._on_event(Notice(f"Could not read the review store again: {exc}", "error"))
            return
        before = self._state.decisions
        self.resolve()
        after = self._state.decisions
        changed = sorted(i for i, v in before.items() if after.get(i) != v)
        if changed:
            first = changed[0]
            was, now = before[first], after.get(first) or "no decision"
            more = f" and {len(changed) - 1:,} more" if len(changed) > 1 else ""
            self._on_event(Notice(
                f"Another session changed the decision on {escape_controls(first)} "
                f"({was} -> {now}){more}; "
                "the later decision is kept.", "warning", "Changed elsewhere"))

    def recover(self) -> None:
        """Roll back the actions an interrupted run left unfinished (writer thread)."""
        if self.store is None:
            return
        journal_dir = self.store.journal_dir
        try:
            reports = recover(journal_dir)
            broken = damaged(journal_dir)
        except Exception as exc:  # reported; the explorer stays usable
            self._on_event(Notice(f"Could not check unfinished actions: {exc}", "error"))
            return
        for journal in broken:
            self._on_event(Notice(journal.damage_note(), "error", "Damaged journal"))
        for report in reports:
            problems = len(report.failures)
            text = (f"An interrupted {report.action} was rolled back: "
                    f"{report.count('undone')} file(s) put back")
            text += f", {problems} problem(s) (see the notices log)." if problems else "."
            self._on_event(Notice(text, "warning", "Recovered"))
            for o in report.failures[:50]:
                self._on_event(Notice(f"{o.id}: {o.reason}", "error", "Not put back"))

    def _idents(self, ids: Sequence[str]) -> dict[str, Identity]:
        docs, fps = self._corpus.records(), self._corpus.fingerprints()
        return {i: identity_of(docs[i], fps[i]) for i in ids if i in fps}

    def _guard(self, fn: Callable[[], None]) -> None:
        try:
            fn()
        except Exception as exc:  # the store failed (disk full, ...): say so, keep going
            self._on_event(Notice(f"Could not record the review: {exc}", "error"))

    def _set_marks(self, store: ReviewStore, marks: Mapping[str, Decision | None]) -> None:
        idents = self._idents(list(marks))
        store.set_decisions((i, idents[i], v) for i, v in marks.items() if i in idents)
        current = dict(self._state.decisions)
        stale = dict(self._state.stale)
        for i in idents:
            stale.pop(i, None)
            value = marks[i]
            if value is None:
                current.pop(i, None)
            else:
                current[i] = value
        self._publish(dataclasses.replace(
            self._state, decisions=MappingProxyType(current), stale=MappingProxyType(stale)
        ))

    def _mark_family(
        self, store: ReviewStore, members: Sequence[str], kind: FamilyMark, on: bool
    ) -> None:
        key = key_of(members, self._corpus.records(), self._corpus.fingerprints())
        store.mark_family(kind, key, len(members), on)
        keys = set(self._state.reviewed if kind == "reviewed" else self._state.ignored)
        if on:
            keys.add(key)
        else:
            keys.discard(key)
        if kind == "reviewed":
            self._publish(dataclasses.replace(self._state, reviewed=frozenset(keys)))
        else:
            self._publish(dataclasses.replace(self._state, ignored=frozenset(keys)))

    def _ignore_pair(self, store: ReviewStore, a: str, b: str, on: bool) -> None:
        idents = self._idents([a, b])
        if len(idents) != 2 or a == b:
            return
        store.ignore_pair((a, idents[a]), (b, idents[b]), on)
        pairs = {(min(x, y), max(x, y)) for x, y in self._state.pairs}
        if on:
            pairs.add((min(a, b), max(a, b)))
        else:
            pairs.discard((min(a, b), max(a, b)))
        self._publish(dataclasses.replace(self._state, pairs=tuple(sorted(pairs))))

    def _publish(self, state: ReviewState) -> None:
        state = dataclasses.replace(state, serial=self._state.serial + 1)
        self._state = state
        self._wake()
        self._on_event(ReviewChanged(state))


class _Identities(Mapping[str, Identity]):
    """id -> identity of every document with a fingerprint, computed on access (the
    stored review is matched to the corpus by looking up its records, rarely by walking
    every document)."""

    def __init__(self, documents: Mapping[str, Document], fingerprints: Mapping[str, int]) -> None:
        self._docs = documents
        self._fps = fingerprints

    def __getitem__(self, doc_id: str) -> Identity:
        fp = self._fps.get(doc_id)
        if fp is None:
            raise KeyError(doc_id)
        return identity_of(self._docs[doc_id], fp)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._fps

    def __iter__(self) -> Iterator[str]:
        return iter(self._fps)

    def __len__(self) -> int:
        return len(self._fps)
