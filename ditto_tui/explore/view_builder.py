"""The view builder: a thread that turns the latest request and snapshot into a view.

It builds the :class:`~ditto_tui.explore.view.FamilyView` of the latest
:class:`~ditto_tui.explore.view.ViewRequest` (the newest request wins), again whenever a
newer snapshot or review state arrives (while a scan runs, at most every
:data:`VIEW_INTERVAL`). A listing the snapshot lacks is asked of the writer. Results for
a superseded request or an older source are dropped, never delivered.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from ditto_tui.core.families.clusters import Family, Mode
from ditto_tui.core.families.listing import FamilyListing
from ditto_tui.corpus.documents import ChangeBatch
from ditto_tui.explore.changes import PendingChanges, with_counts
from ditto_tui.explore.events import ExplorerEvent, ViewBuilt
from ditto_tui.explore.review import ReviewState, leave_stars, split_ignored
from ditto_tui.explore.snapshot import Snapshot
from ditto_tui.explore.view import FamilyView, ViewRequest, build_view

VIEW_INTERVAL = 0.25  # while scanning: at most this often a rebuilt view


class Index(Protocol):
    """What the view builder reads of the writer."""

    @property
    def snapshot(self) -> Snapshot: ...

    @property
    def epoch(self) -> int: ...

    def clamp(self, k: int) -> int: ...

    def want_warm(self) -> None: ...

    def listing(self, k: int, mode: Mode) -> None: ...


class ViewBuilder:
    """The view thread and what it shares with the writer, under one condition: the
    latest request, the changes on disk since the last view, the last view.

    ``review`` returns the latest review state (read at every build)."""

    def __init__(
        self,
        *,
        review: Callable[[], ReviewState],
        on_event: Callable[[ExplorerEvent], None],
    ) -> None:
        self._review = review
        self._on_event = on_event
        self._index: Index | None = None
        self._cond = threading.Condition()
        self._request: ViewRequest | None = None
        self._pending = PendingChanges()
        self._last_view: FamilyView | None = None
        self._listing_wanted: tuple[int, int, Mode] | None = None
        self._stopping = False
        self._split_cache: tuple[tuple[int, int, int, int, Mode], Sequence[Family]] | None = None
        self._key_cache: dict[int, tuple[Family, str]] = {}  # keys of one (epoch, generation)
        self._key_cache_for: tuple[int, int] = (-1, -1)
        self._thread = threading.Thread(target=self._run, name="ditto-tui views", daemon=True)

    # -- the UI's side ---------------------------------------------------------------------
    @property
    def request(self) -> ViewRequest | None:
        return self._request

    def request_view(self, request: ViewRequest) -> None:
        """Ask for the family view of ``request`` (the newest request wins)."""
        with self._cond:
            self._request = request
            if self._index is not None:
                self._index.want_warm()
            self._cond.notify_all()

    def set_keep(self, keep: str | None, identity: int | None) -> None:
        """The user's selection moved: later views (of the same request) locate ``keep``
        (else the family with ``identity``). Triggers no rebuild."""
        with self._cond:
            request = self._request
            if request is not None and (request.keep, request.keep_identity) != (keep, identity):
                self._request = dataclasses.replace(request, keep=keep, keep_identity=identity)

    # -- the writer's side ---------------------------------------------------------------
    def wake(self) -> None:
        with self._cond:
            self._cond.notify_all()

    def note_changes(self, batch: ChangeBatch, gone: Mapping[str, int]) -> None:
        with self._cond:
            self._pending.note(batch, gone)

    def forget(self) -> None:
        with self._cond:
            self._pending = PendingChanges()
            self._last_view = None

    # -- lifecycle -------------------------------------------------------------------------
    def start(self, index: Index) -> None:
        self._index = index
        self._thread.start()

    def stop(self) -> None:
        with self._cond:
            self._stopping = True
            self._cond.notify_all()

    def join(self) -> None:
        if self._thread.is_alive():
            self._thread.join(timeout=10)

    # -- the thread --------------------------------------------------------------------------
    def _next(self, built: tuple[int, int, int] | None, last_build: float
              ) -> tuple[ViewRequest, Snapshot, ReviewState] | None:
        """Wait until there is something to build (None: stop)."""
        index = self._index
        assert index is not None
        with self._cond:
            while True:
                if self._stopping:
                    return None
                request, snap, review = self._request, index.snapshot, self._review()
                if request is not None and built != (
                    request.serial, snap.generation, review.serial
                ):
                    fresh_request = built is None or built[0] != request.serial
                    wait = VIEW_INTERVAL - (time.monotonic() - last_build)
                    if fresh_request or not snap.scanning or wait <= 0:
                        return request, snap, review
                    self._cond.wait(wait)
                    continue
                self._cond.wait()

    def _run(self) -> None:
        index = self._index
        assert index is not None
        built: tuple[int, int, int] | None = None  # (serial, generation, review serial)
        last_build = 0.0
        while True:
            got = self._next(built, last_build)
            if got is None:
                return
            request, snap, review = got
            k = index.clamp(request.k)
            listing = snap.listing(k, request.mode)
            if listing is None:
                self._ask_listing(snap, k, request.mode)
                continue
            with self._cond:
                previous = self._last_view
                pending = self._pending
                renames = pending.renames()
            shown: Sequence[Family] = listing
            if review.pairs and not request.show_ignored:
                shown = self._split(listing, snap, review, k, request.mode)
            if self._key_cache_for != (snap.epoch, snap.generation):
                self._key_cache = {}
                self._key_cache_for = (snap.epoch, snap.generation)
            view = build_view(
                shown,
                request,
                snap.documents,
                generation=snap.generation,
                epoch=snap.epoch,
                total=len(snap),
                previous=previous,
                review=review if review.active else None,
                fingerprints=snap.fingerprints,
                key_cache=self._key_cache,
                renames=renames,
                complete=snap.complete,
            )
            with self._cond:
                latest = self._request
                if latest is None or latest.serial != request.serial or snap.epoch != index.epoch:
                    continue  # superseded while building: dropped
                if view.delta is not None and pending:
                    view = with_counts(view, pending, renames)
                    self._pending = PendingChanges()
                elif view.delta is not None:  # not a change on disk (e.g. scan progress)
                    view = dataclasses.replace(view, delta=None)
                self._last_view = view
                built = (request.serial, snap.generation, review.serial)
                last_build = time.monotonic()
            self._on_event(ViewBuilt(view))

    def _ask_listing(self, snap: Snapshot, k: int, mode: Mode) -> None:
        """Ask the writer for the listing once per generation; wait a little for it."""
        index = self._index
        assert index is not None
        with self._cond:
            wanted = (snap.generation, k, mode)
            if self._listing_wanted != wanted:
                self._listing_wanted = wanted
                index.listing(k, mode)
            if (
                snap.listing(k, mode) is None
                and snap is index.snapshot
                and not self._cond.wait(0.5)
                and snap is index.snapshot
            ):
                self._listing_wanted = None  # ask again (the writer was busy)

    def _split(
        self, listing: FamilyListing, snap: Snapshot, review: ReviewState, k: int, mode: Mode
    ) -> Sequence[Family]:
        """The listing without the ignored links (chain: families re-formed; star: members
        ignored with their centre leave), cached per generation, review, k and mode."""
        key = (snap.generation, snap.epoch, review.serial, k, mode)
        cached = self._split_cache
        if cached is not None and cached[0] == key:
            return cached[1]
        if mode == "star":
            out = leave_stars(listing, review.pairs, snap.fingerprints)
        else:
            out = split_ignored(listing, review.partners(), snap.fingerprints, k)
        self._split_cache = (key, out)
        return out
