"""MainScreen: k slider, family list, member list and preview of the selected document.

The screen holds the view state (k, grouping, sort, singletons, filter) as reactives;
changing any of them sends a :class:`~ditto_tui.explore.view.ViewRequest` to the explorer,
whose view thread builds the listing; :meth:`show_view` swaps the result in. The panes
(:class:`FamiliesPane`, :class:`DetailPane`) paint; nothing here is O(corpus) on the UI
thread and no file is read here (the detail pane reads through workers).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.reactive import Reactive, reactive
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input
from textual.worker import get_current_worker

from ditto_tui.core.display import excerpt, html_text
from ditto_tui.corpus.documents import options_summary
from ditto_tui.corpus.review import SessionState
from ditto_tui.explore.explorer import Explorer
from ditto_tui.explore.review import ReviewState, key_of
from ditto_tui.explore.snapshot import Snapshot
from ditto_tui.explore.view import SORT_KEYS, FamilyView, SortKey, ViewRequest
from ditto_tui.ui import internals
from ditto_tui.ui.fit import Part
from ditto_tui.ui.listing import FamilyLike, shown
from ditto_tui.ui.screens.compare import CompareScreen
from ditto_tui.ui.screens.neighbours import NeighboursScreen
from ditto_tui.ui.screens.picker import DocumentPicker
from ditto_tui.ui.widgets.detail_pane import DetailPane
from ditto_tui.ui.widgets.families_pane import FamiliesPane
from ditto_tui.ui.widgets.family_table import FamilyTable
from ditto_tui.ui.widgets.filter_input import FilterInput
from ditto_tui.ui.widgets.footer import Footer
from ditto_tui.ui.widgets.k_chart import KChart
from ditto_tui.ui.widgets.k_slider import KSlider
from ditto_tui.ui.widgets.member_table import MemberTable
from ditto_tui.ui.widgets.scan_progress import ScanProgress
from ditto_tui.ui.widgets.status_bar import StatusBar
from ditto_tui.ui.widgets.title_line import TitleLine

EXCERPT_LIMIT = 4096
EXCERPT_ROWS = 200  # representatives read ahead of the visible rows
NEIGHBOUR_EXCERPT_ROWS = 60  # and of the first rows at k - 1 and k + 1
#: After a key that asks for a new view, frames wait (at most this long) for that view, so
#: that the k slider, status line, family list, members and preview change in one frame
#: instead of one frame for the key and another for its answer.
HOLD_FRAMES_S = 0.05
NO_FAMILIES = "No families (press 1 to show singletons, ] to raise k)"
LOADING = "Loading…"


def no_documents_message(skipped: Sequence[Any], *, pipeline: Any, can_switch: bool) -> str:
    """What the family list says when the scan found no document, for the situation: an
    empty folder; files that only the other pipeline reads (p switches); files all skipped
    for other reasons (! lists them with the reason)."""
    identity = str(getattr(pipeline, "identity", "") or "") or "this pipeline"
    if not skipped:
        return f"No documents for {identity}: the folder holds no file."
    count = len(skipped)
    files = f"{count:,} file{'' if count == 1 else 's'}"
    refused = sum(1 for s in skipped if str(s.reason).startswith("not accepted by"))
    lines = [f"No documents for {identity}: {files} skipped."]
    if refused == count:
        name = getattr(pipeline, "name", "") or "this"
        lines.append(f"The {name} pipeline does not read {'it' if count == 1 else 'them'}.")
        if can_switch:
            lines.append("Press p to switch to the other pipeline.")
        lines.append("Press ! to see the files and why.")
    else:
        lines.append("Press ! to see why each was skipped.")
        if refused and can_switch:
            lines.append(f"{refused:,} only another pipeline reads: p switches.")
    return "\n".join(lines)


class MainScreen(Screen):
    """Families at the current k; the members and preview of the selection.

    ``explorer`` is the corpus and its index; ``k``/``mode`` the initial view;
    ``root_label`` what the status line calls the corpus.
    """

    #: a focus change restyles and repaints the widgets it changes; Textual's screen also
    #: repaints all of itself (every line of every widget drawn again: most of a Tab press)
    focused: Reactive[Widget | None] = Reactive(None, repaint=False)

    BINDINGS = [
        Binding(
            "left_square_bracket,minus",
            "k_down",
            "k−",
            tooltip="lower the distance threshold k (families re-cluster)",
            key_display="[",
        ),
        Binding(
            "right_square_bracket,plus,equals_sign",
            "k_up",
            "k+",
            tooltip="raise the distance threshold k",
            key_display="]",
        ),
        Binding(
            "slash,ctrl+f",
            "filter",
            "Filter",
            tooltip="filter families by a member path (substring or glob); enter/esc returns",
            key_display="/",
        ),
        Binding(
            "s",
            "cycle_sort",
            "Sort",
            tooltip="sort families by size, diameter, name, newest change (cycles)",
        ),
        Binding(
            "g",
            "toggle_mode",
            "Chain/star",
            tooltip="group as chains (ditto's clusters) or stars around a centre",
        ),
        Binding(
            "t",
            "toggle_tree",
            "Tree",
            tooltip="open or close the family tree beside the members: the family at k and its "
            "sub-families at each lower k where it splits; enter on a node shows only its "
            "members (esc: all)",
        ),
        Binding(
            "1",
            "toggle_singletons",
            "Singletons",
            tooltip="show or hide documents that have no near duplicate",
        ),
        Binding(
            "space",
            "mark",
            "Mark",
            tooltip="mark/unmark the highlighted member for comparison (two at most)",
            show=False,
        ),
        Binding(
            "c",
            "compare",
            "Compare",
            tooltip="compare the two marked documents (unmarked: the representative and the highlighted member)",
        ),
        Binding(
            "a",
            "compare_any",
            "Compare with…",
            tooltip="compare the highlighted document with any document (fuzzy picker)",
        ),
        Binding(
            "n",
            "neighbours",
            "Neighbours",
            tooltip="every document within k bits of the highlighted one",
        ),
        Binding(
            "h",
            "toggle_source",
            "HTML text/source",
            tooltip="show HTML as readable text or as source",
            show=False,
        ),
        Binding(
            "l",
            "chain_path",
            "Links",
            tooltip="how the member is linked to the representative",
            show=False,
        ),
        Binding("e", "edit", "Edit", tooltip="open the document in $EDITOR", show=False),
        Binding("v", "page", "Pager", tooltip="open the document in $PAGER", show=False),
        Binding(
            "y",
            "copy_path",
            "Copy path",
            tooltip="copy the document's path to the clipboard",
            show=False,
        ),
        Binding(
            "x,ctrl+s",
            "export",
            "Export",
            tooltip="write the families as shown to CSV or JSON lines",
        ),
        Binding(
            "w,f6",
            "app.toggle_watch",
            "Watch on/off",
            tooltip="pause or resume following changes on disk",
            key_display="w",
        ),
        Binding("f5", "app.rescan", "Rescan", tooltip="scan the folder again", show=False),
        Binding(
            "exclamation_mark,f2",
            "app.show_skipped",
            "Skipped files",
            tooltip="list the files that are not documents, with the reason",
            show=False,
            key_display="!",
        ),
        Binding(
            "p",
            "app.switch_pipeline",
            "Switch pipeline",
            tooltip="re-index with the other pipeline: ditto <-> html",
            show=False,
        ),
        Binding(
            "o",
            "app.scan_options",
            "Scan options",
            tooltip="minimum size, empty files, symbolic links, HTML by content or every file (rescans)",
            show=False,
        ),
        Binding(
            "L,f3",
            "app.show_log",
            "Notices",
            tooltip="the notices of this session (cache, watching, scan problems)",
            show=False,
            key_display="L",
        ),
        Binding(
            "escape", "leave_filter", "Back to list", tooltip="leave the filter box", show=False
        ),
        # -- review ----------------------------------------------------------------------
        Binding("k", "decide('keep')", "Keep", tooltip="decide: keep the highlighted document (again: clear)"),
        Binding(
            "d",
            "decide('duplicate')",
            "Duplicate",
            tooltip="decide: the highlighted document is a duplicate to act on (again: clear)",
        ),
        Binding(
            "N",
            "decide('not-duplicate')",
            "Not a duplicate",
            tooltip="decide: the highlighted document is not a duplicate (again: clear)",
            show=False,
        ),
        Binding("r", "family_reviewed", "Reviewed", tooltip="mark the selected family reviewed (again: unmark)"),
        Binding(
            "i",
            "ignore_family",
            "Ignore family",
            tooltip="this family is fine: hide it from the list and the progress (again: unignore)",
            show=False,
        ),
        Binding(
            "I",
            "ignore_pair",
            "Not duplicates",
            tooltip="these two are not duplicates: the two marked documents, else the highlighted "
            "one and the representative; families re-form without that link (again: unignore)",
            show=False,
        ),
        Binding("R", "keep_rules", "Keep rules", tooltip="keep rules and bulk marking, with a preview"),
        Binding(
            "A",
            "actions",
            "Act",
            tooltip="act on the documents decided duplicate: trash, quarantine, hard link, "
            "removal list (dry run first)",
        ),
        Binding("u", "undo", "Undo", tooltip="undo the last action (asks first)", show=False),
        Binding(
            "U",
            "toggle_unreviewed",
            "Unreviewed only",
            tooltip="show only the families not marked reviewed (toggle)",
            show=False,
        ),
        Binding(
            "f4",
            "toggle_ignored",
            "Show ignored",
            tooltip="show ignored families and pairs again (toggle)",
            show=False,
        ),
    ]

    # (repaint=False: their watchers update the widgets that show them; a repaint of the
    # whole screen per key costs more than everything else a k step does)
    k: reactive[int] = reactive(3, init=False, repaint=False)
    mode: reactive[str] = reactive("chain", init=False, repaint=False)
    sort_key: reactive[SortKey] = reactive("size", init=False, repaint=False)
    singletons: reactive[bool] = reactive(False, init=False, repaint=False)
    pattern: reactive[str] = reactive("", init=False, repaint=False)
    unreviewed_only: reactive[bool] = reactive(False, init=False, repaint=False)
    show_ignored: reactive[bool] = reactive(False, init=False, repaint=False)

    class OpenExternal(Message):
        """Open ``doc_id`` in the program named by the environment ``variable``."""

        def __init__(self, doc_id: str, variable: str) -> None:
            super().__init__()
            self.doc_id = doc_id
            self.variable = variable

    def __init__(
        self,
        explorer: Explorer,
        *,
        k: int = 3,
        mode: str = "chain",
        root_label: str = "",
    ) -> None:
        super().__init__()
        self.explorer = explorer
        self.root_label = root_label
        self.set_reactive(MainScreen.k, max(0, min(k, explorer.max_k)))
        self.set_reactive(MainScreen.mode, mode)
        self.snapshot: Snapshot = explorer.snapshot
        self.view: FamilyView | None = None
        self.excerpts: dict[str, str] = {}
        self._serial = 0
        self._notice: list[str] = []
        self.review: ReviewState = explorer.review
        self._last_selected: str | None = None
        self._family_moves = 0
        self._held: Any = None  # the app's batch update while frames wait for a view
        self._hold_timer: Any = None
        self._awaiting_excerpts = False  # frames held until the rows on screen have theirs
        self._urgent = False  # a key waits for its frame (see ditto_tui.ui.internals)
        self._urgent_timer: Any = None
        self._read_ahead_later = False  # excerpts to read once the key's frame is painted
        self._paint_now = False  # the frames held for a key were released: draw at once

    # -- layout ---------------------------------------------------------------------------
    #: from this many columns on the screen is ``-wide``, below it ``-narrow`` (the view
    #: options are hidden, which leaves the k chart room for its bars and figures)
    WIDE_FROM = 110

    def compose(self) -> ComposeResult:
        self._set_width_class(self.app.size.width)
        yield StatusBar(id="status")
        with Horizontal(id="controls"):
            yield KSlider(self.k, self.explorer.max_k, id="k-slider")
            yield KChart(k=self.k, id="k-chart")
            yield FilterInput(
                value=self.pattern,
                placeholder="filter: path substring or glob  (/)",
                id="filter",
                compact=True,
                on_edit=self._hold_frames,
            )
            yield TitleLine(Text(""), id="view-options")
        yield ScanProgress(id="scan")
        with Horizontal(id="body"):
            yield FamiliesPane(id="families-pane")
            yield DetailPane(lambda: self.explorer.source, id="detail-pane")
        yield Footer()

    def on_resize(self, event: events.Resize) -> None:
        self._set_width_class(event.size.width)

    def _set_width_class(self, width: int) -> None:
        """``-narrow`` or ``-wide`` by ``width``, restyling the screen only when that changes.

        (Textual 7's breakpoints removed the class and added it again on every resize: two
        style passes over the whole screen even when the width stayed on the same side.
        Textual 8's restyle only when a class changes, as this does.)"""
        new, old = ("-wide", "-narrow") if width >= self.WIDE_FROM else ("-narrow", "-wide")
        if self.has_class(new) and not self.has_class(old):
            return
        self.add_class(new, update=False)
        self.remove_class(old, update=False)
        self.update_node_styles()

    def on_mount(self) -> None:
        self.member_table.set_review(self.review)
        self.update_status()
        self.table.focus()
        self.request_view()

    # -- parts ----------------------------------------------------------------------------
    @property
    def families_pane(self) -> FamiliesPane:
        return self.query_one(FamiliesPane)

    @property
    def detail(self) -> DetailPane:
        return self.query_one(DetailPane)

    @property
    def table(self) -> FamilyTable:
        return self.query_one(FamilyTable)

    @property
    def member_table(self) -> MemberTable:
        return self.query_one(MemberTable)

    @property
    def marked(self) -> list[str]:
        return self.detail.marked

    @property
    def previewed(self) -> str | None:
        return self.detail.previewed

    def selected_member(self) -> str | None:
        return self.detail.selected_member()

    # -- view state -----------------------------------------------------------------------
    def watch_k(self) -> None:
        self.request_view()

    def watch_mode(self) -> None:
        self.request_view()

    def watch_sort_key(self) -> None:
        self.request_view()

    def watch_singletons(self) -> None:
        self.request_view()

    def watch_pattern(self) -> None:
        self.request_view()

    def watch_unreviewed_only(self) -> None:
        self.request_view()

    def watch_show_ignored(self) -> None:
        self.request_view()

    def request_view(self) -> None:
        """Ask the explorer for the view of the current state (built off this thread)."""
        self._serial += 1
        if self.is_mounted:  # (first: no collection from here until the view is drawn)
            self._hold_frames()
        self.explorer.request_view(
            ViewRequest(
                k=self.k,
                mode=self.mode,
                pattern=self.pattern,
                sort=self.sort_key,
                singletons=self.singletons,
                serial=self._serial,
                unreviewed_only=self.unreviewed_only,
                show_ignored=self.show_ignored,
                keep=self.selected_member() if self.chosen else None,
                keep_identity=self.families_pane.selected_identity() if self.chosen else None,
            )
        )
        if self.is_mounted:
            if self._held is None:  # (not the screen on top: no frame waits for the view)
                self.families_pane.show_waiting()
            self.update_status()

    def _hold_frames(self) -> None:
        """Paint nothing until the view asked for is shown, for at most HOLD_FRAMES_S (then
        the pending state shows: the new k, "clustering…")."""
        if self._held is not None or not self.is_current:
            return
        held = self.app.batch_update()
        held.__enter__()
        self._held = held
        self._hold_timer = self.set_timer(HOLD_FRAMES_S, self._view_is_late)
        if not self._urgent:
            internals.pause_collections()
            self._urgent = True
            self._urgent_timer = self.set_timer(
                internals.COLLECTION_PAUSE_MAX_S, self._urgency_expired
            )

    def _view_is_late(self) -> None:
        """The frames held for a view wait no longer: "clustering…" is drawn (only now: a
        view shown in time would erase it in the same frame, and the pane with its
        table would be drawn for nothing)."""
        if not self.view_current():
            self.families_pane.show_waiting()
        self._release_frames()

    def _release_frames(self) -> None:
        self._awaiting_excerpts = False
        held, self._held = self._held, None
        timer, self._hold_timer = self._hold_timer, None
        if timer is not None:
            timer.stop()
        if held is not None:
            self._paint_now = True
            held.__exit__(None, None, None)
        if self._urgent:  # (after the frame drawn now: see _after_key_frame)
            self.call_after_refresh(self._after_key_frame)

    def _after_key_frame(self) -> None:
        """The frame answering a key is painted: garbage collections resume, and the
        excerpts put off during the key are read now (a reader started earlier would have
        taken turns with the frame for the GIL)."""
        if self._held is not None:  # (another key waits already: its frame ends this)
            return
        self._paint_now = False
        self._end_urgent()
        self._read_put_off_excerpts()

    def _urgency_expired(self) -> None:
        """Keys have kept frames waiting for COLLECTION_PAUSE_MAX_S: collections resume even while
        keys keep coming (the next key begins anew)."""
        self._urgent_timer = None
        self._end_urgent()
        if self._held is None:
            self._read_put_off_excerpts()

    def _read_put_off_excerpts(self) -> None:
        """Read the excerpts put off while a key waited for its frame (if any)."""
        if self._read_ahead_later:
            self._read_ahead_later = False
            if self.is_mounted and self.query(FamilyTable):
                self._read_ahead()

    def _end_urgent(self) -> None:
        timer, self._urgent_timer = self._urgent_timer, None
        if timer is not None:
            timer.stop()
        if self._urgent:
            self._urgent = False
            internals.resume_collections()

    async def _on_idle(self, event: events.Idle) -> None:
        """The frame that answers a key is drawn as soon as the widgets have asked for
        their repaint, not at the screen's next refresh tick. Textual paces frames at
        60 per second, and after a frame that took longer than a tick its next tick comes
        one to two ticks later: a key answered just then waited up to 30 ms more for its
        frame. (This frame is the one a tick would have drawn: the same method, at once.)"""
        if (
            self._paint_now
            and self.is_current
            and internals.frame_waiting(self)
        ):
            self._paint_now = False
            event.prevent_default()
            internals.draw_frame(self)

    def on_unmount(self) -> None:
        self._end_urgent()
        self._release_frames()

    def on_screen_suspend(self) -> None:
        self._end_urgent()
        self._release_frames()

    def view_current(self) -> bool:
        """Whether the view on screen answers the latest request for the latest state."""
        view = self.view
        return (
            view is not None
            and view.request.serial == self._serial
            and (view.epoch, view.generation)
            >= (self.explorer.snapshot.epoch, self.explorer.snapshot.generation)
        )

    @property
    def all_families(self) -> list:
        """Every family at the current k of the latest snapshot (singletons included)."""
        listing = self.snapshot.listing(self.k, self.mode)
        return list(listing) if listing is not None else []

    # -- data from the explorer (set by the app) -------------------------------------------
    def show_view(self, view: FamilyView) -> None:
        """Swap in a view built by the explorer; a view of an older request is dropped."""
        if view.request.serial != self._serial:
            return
        if self.view is not None and (view.epoch, view.generation) < (
            self.view.epoch,
            self.view.generation,
        ) and view.request == self.view.request:
            return
        self.view = view
        snapshot = self.explorer.snapshot
        if snapshot.generation >= view.generation:
            self.snapshot = snapshot
        keep = self.selected_member() if self.chosen else None
        # a renamed document keeps its selection under its new name
        self.detail.renames = dict(view.delta.renames) if view.delta is not None else {}
        self.families_pane.show_view(
            view,
            self.snapshot.documents,
            self.excerpts,
            keep=keep,
            placeholder=self.empty_message(),
        )
        if view.delta is None:
            # asked for by a key (k, filter, sort...): the selected family's members and
            # preview now, in the same frame as the list (the table's Highlighted message
            # follows and finds them shown); after a live change that message does it
            self._show_selected_family(self.table.selected)
        self.update_status()
        missing = self.excerpts_wanted()
        shown_first = self._visible_in(missing)
        if missing and self._urgent:
            # a key waits for this frame: the rows on screen are read now, the rest (read
            # ahead for rows below and for k±1) once the frame is painted
            if shown_first:
                self.load_excerpts(missing[:shown_first], shown_first)
            self._read_ahead_later = len(missing) > shown_first
        elif missing:
            self.load_excerpts(missing, shown_first)
        chart = self.query_one(KChart)
        chart.k = self.k
        chart.mode = view.request.mode
        chart.poll()
        if view.delta is not None:
            self.notify(view.delta.describe(), title="Corpus changed", markup=False, timeout=4)
        if shown_first and self._held is not None:
            # rows on screen without their excerpt: frames resume when those are read
            # (usually a few milliseconds), or at the hold's time limit, whichever is first
            self._awaiting_excerpts = True
            return
        # frames resume once the widgets changed above have asked for their repaint (their
        # message loops run first): all of them in the next frame, none in a later one
        asyncio.get_running_loop().call_soon(self._release_frames)

    def _visible_in(self, missing: list[str]) -> int:
        """How many of ``missing`` (in order) to read to have every row on screen."""
        view = self.view
        if not missing or view is None:
            return 0
        top = int(self.table.scroll_offset.y)
        shown = {f.centre for f in view.families[top : top + max(1, self.table.size.height - 1)]}
        return max((i + 1 for i, centre in enumerate(missing) if centre in shown), default=0)

    def show_snapshot(self, snapshot: Snapshot, touched: frozenset[str]) -> None:
        """A new state of the index (the matching view follows from the explorer)."""
        if snapshot.epoch != self.snapshot.epoch:
            self.excerpts.clear()
            self.detail.reset()
        self.snapshot = snapshot
        for doc_id in touched:
            self.excerpts.pop(doc_id, None)
        if touched or self.detail.preview_failed:
            self.detail.forget(touched)
        self.update_status()

    def scan_progressed(self, done: int, total: int | None, elapsed: float) -> None:
        bar = self.query_one(ScanProgress)
        bar.display = True
        bar.update_progress(done, total, elapsed)

    def scan_ended(self, error: str | None) -> None:
        self.query_one(ScanProgress).display = False
        self.update_status()
        if self.detail.preview_failed:
            self.detail.forget(frozenset())
        if error:
            self.notify(error, title="Scan failed", severity="error", markup=False)

    # -- state shown -----------------------------------------------------------------------
    def update_status(self) -> None:
        explorer = self.explorer
        snapshot = self.snapshot
        view = self.view
        source = explorer.source
        pipeline = getattr(source, "pipeline", None)
        scan_options = getattr(source, "options", None)
        shown_multi = singles = None
        if view is not None:
            shown_multi = view.shown_multi if view.shown_multi >= 0 else len(view)
            if self.singletons:
                singles = len(view) - shown_multi
        self.query_one(StatusBar).set(
            root=self.root_label,
            documents=len(snapshot),
            skipped=len(snapshot.skipped),
            families=view.multi if view is not None else 0,
            shown_families=shown_multi if view is not None and self.pattern else None,
            singles=singles,
            k=self.k,
            mode=self.mode,
            watch=explorer.watch_state,
            pipeline=str(getattr(pipeline, "identity", "") or ""),
            review=self.review_progress(),
            options=options_summary(scan_options) if scan_options is not None else "",
        )
        # fitted to its cells: the states that filter or mark stay, "sort:" and the
        # singletons' word go first
        options = [
            Part(f"sort: {self.sort_key}", 2, short=self.sort_key),
            Part("singletons " + ("on" if self.singletons else "off"), 3,
                 short="1: " + ("on" if self.singletons else "off"), sep=" · "),
        ]
        if self.unreviewed_only:
            options.append(Part("unreviewed only", 0, short="unreviewed", sep=" · "))
        if self.show_ignored:
            options.append(Part("ignored shown", 0, short="+ignored", sep=" · "))
        if self.marked:
            options.append(Part(f"marked {len(self.marked)}", 1, sep=" · "))
        self.query_one("#view-options", TitleLine).update(options)

    def review_progress(self) -> str:
        """"312 of 601 reviewed" for the status line ("" without a review store)."""
        view = self.view
        if not self.review.active or view is None or view.reviewed is None:
            return ""
        return f"{view.reviewed:,} of {view.reviewable:,} reviewed"

    def show_review(self, review: ReviewState) -> None:
        """A new review state from the explorer (the matching view follows)."""
        self.review = review
        self.member_table.set_review(review)
        self.update_status()

    def empty_message(self) -> str:
        """What the family list says when it is empty."""
        snapshot = self.snapshot
        scanning = self.explorer.scanning
        if self.pattern.strip() and len(snapshot):
            # short lines: the pane is about 38 columns wide at 80
            lines = [f"No family matches {self.pattern.strip()!r}."]
            if scanning:
                lines.append("Still scanning: more may match.")
            if not self.singletons:
                lines.append("Singletons hidden: 1 shows them.")
            lines.append("Clear the filter: / then ctrl+u.")
            return "\n".join(lines)
        if scanning:  # families may still appear: nothing is known to be empty yet
            return LOADING
        if len(snapshot):
            return NO_FAMILIES
        return no_documents_message(
            snapshot.skipped,
            pipeline=getattr(self.explorer.source, "pipeline", None),
            can_switch=self.explorer.can_switch(),
        )

    # -- excerpts ----------------------------------------------------------------------------
    def excerpts_wanted(self) -> list[str]:
        """Representatives without an excerpt yet: those near the visible rows, then those
        of the first rows at the neighbouring k (size order, no filter), so that a k
        step finds its excerpts read and the list is drawn once, complete. O(rows read
        ahead); empty when everything is read (then no worker is started)."""
        view = self.view
        if view is None:
            return []
        top = int(self.table.scroll_offset.y)
        excerpts = self.excerpts
        wanted = dict.fromkeys(
            f.centre
            for f in view.families[max(0, top - 20) : top + EXCERPT_ROWS]
            if f.centre not in excerpts
        )
        request = view.request
        if request.sort == "size" and not request.pattern.strip():
            for k in (request.k + 1, request.k - 1):
                if not 0 <= k <= self.explorer.max_k:
                    continue
                listing = self.snapshot.listing(k, request.mode)
                if listing is None:
                    continue
                for family in listing[:NEIGHBOUR_EXCERPT_ROWS]:
                    if family.centre not in excerpts:
                        wanted.setdefault(family.centre)
        return list(wanted)

    def listing_warmed(self, k: int, mode: str) -> None:
        """The listing at ``k`` was computed ahead: when it is the next one up or down,
        read the excerpts of its first rows now (the view shown asked for them before the
        listing existed), so that a k step there is drawn once, complete."""
        view = self.view
        if view is None or mode != view.request.mode or abs(k - view.request.k) != 1:
            return
        if not self.query(FamilyTable):  # (the app is closing: its widgets are going)
            return
        if self._urgent:  # a key waits for its frame: read once it is painted
            self._read_ahead_later = True
            return
        self._read_ahead()

    def _read_ahead(self) -> None:
        missing = self.excerpts_wanted()
        if missing:  # (rows on screen still missing theirs come first, as in show_view)
            self.load_excerpts(missing, self._visible_in(missing))

    @work(thread=True, exclusive=True, group="excerpts")
    def load_excerpts(self, missing: list[str], first: int = 0) -> None:
        """Read the first bytes of the representatives ``missing`` (in order); the first
        ``first`` (those on screen) are handed over as soon as they are read."""
        worker = get_current_worker()
        source = self.explorer.source
        documents = self.snapshot.documents
        describe = getattr(source, "excerpt", None)
        pending: list[tuple[str, str]] = []
        for index, centre in enumerate(missing):
            if worker.is_cancelled:
                break
            doc = documents.get(centre)
            try:
                if describe is not None:  # mail: subject — sender; empty: "empty file"
                    line = describe(centre, 80)
                else:
                    text = source.read_text(centre, limit=EXCERPT_LIMIT)
                    if doc is not None and doc.kind == "html":
                        text = html_text(text)
                    line = excerpt(text, 80)
            except Exception:  # not readable (yet): leave it blank, retry on the next refresh
                continue
            pending.append((centre, line))
            if len(pending) >= 64 or index + 1 in (first, len(missing)):
                self.app.call_from_thread(self._set_excerpts, pending)
                pending = []
        if pending and not worker.is_cancelled:
            self.app.call_from_thread(self._set_excerpts, pending)

    def _set_excerpts(self, pairs: list[tuple[str, str]]) -> None:
        if not self.query(FamilyTable):  # (the app closed while they were read)
            return
        for centre, text in pairs:
            self.excerpts[centre] = text
            self.table.set_excerpt(centre, text)
        if self._awaiting_excerpts:  # (the rows on screen have theirs: draw them)
            self._awaiting_excerpts = False
            asyncio.get_running_loop().call_soon(self._release_frames)

    # -- events -------------------------------------------------------------------------------
    @on(KSlider.Changed)
    def k_changed(self, event: KSlider.Changed) -> None:
        self.k = event.value

    @on(FamilyTable.Highlighted)
    def family_highlighted(self, event: FamilyTable.Highlighted) -> None:
        self._show_selected_family(event.family)

    def _show_selected_family(self, family: FamilyLike | None) -> None:
        """Members and preview of ``family`` (the one under the cursor); nothing is rebuilt
        when the detail pane shows that family already (the same members)."""
        view = self.view
        pattern = view.request.pattern if view is not None else self.pattern
        if self.table.moves != self._family_moves:  # the user went to another family:
            self._family_moves = self.table.moves  # no member is picked in it yet
            self.member_table.chosen = False
        note = None
        if family is not None and view is not None:
            note = view.notes.get(family.centre)
        self._set_tree_context()
        self.detail.show_family(family, self.snapshot, pattern=pattern, note=note)
        self._selection_moved()

    @on(DetailPane.MemberHighlighted)
    def member_highlighted(self) -> None:
        self._selection_moved()

    @property
    def chosen(self) -> bool:
        """Whether the user has picked a family or member. Until then the cursor stays on
        the first row while the list fills in (a scan), instead of following whichever
        family happened to be first; afterwards the selection follows its family."""
        return self.is_mounted and (self.table.chosen or self.member_table.chosen)

    def _selection_moved(self) -> None:
        self._last_selected = self.selected_member()
        if self.chosen:
            self.explorer.set_keep(self.selected_member(), self.families_pane.selected_identity())
        else:
            self.explorer.set_keep(None, None)

    @on(FamilyTable.SortRequested)
    def header_selected(self, event: FamilyTable.SortRequested) -> None:
        for key in SORT_KEYS:
            if key == event.key:
                self.sort_key = key

    @on(FamilyTable.Selected)
    def family_selected(self) -> None:
        self.member_table.focus()

    @on(Input.Changed, "#filter")
    def filter_changed(self, event: Input.Changed) -> None:
        self.pattern = event.value

    @on(Input.Submitted, "#filter")
    def filter_submitted(self) -> None:
        self.table.focus()

    # -- actions --------------------------------------------------------------------------------
    def action_k_down(self) -> None:
        slider = self.query_one(KSlider)
        if slider.value <= 0:
            self.app.bell()
            self.notify("k is already 0: only identical fingerprints are grouped.", markup=False)
            return
        slider.value -= 1

    def action_k_up(self) -> None:
        slider = self.query_one(KSlider)
        if slider.value >= slider.maximum:
            self.app.bell()
            self.notify(
                f"k is already at its maximum, {slider.maximum} (the index was built for "
                f"k up to {slider.maximum}; --max-k raises it).",
                markup=False,
            )
            return
        slider.value += 1

    def action_filter(self) -> None:
        self.query_one("#filter", Input).focus()
        self.prepare_search(self.snapshot.listing(self.k, self.mode))

    @work(thread=True, exclusive=True, group="search")
    def prepare_search(self, listing: Any) -> None:
        """Build the listing's search text while the user starts typing (at 100,000
        documents about 0.1 s, else paid by the first key)."""
        prepare = getattr(listing, "prepare_search", None)
        if prepare is not None:
            prepare()

    def action_leave_filter(self) -> None:
        detail = self.detail
        if detail.clear_member_filter():
            return
        if self.focused is self.query_one("#filter", Input):
            self.table.focus()
            return
        if detail.clear_tree_node():  # the members of a tree node: all of them again
            return
        if detail.tree_open and detail.family_tree.has_focus:
            detail.close_tree()

    def action_toggle_tree(self) -> None:
        """Open the family tree of the selected family beside its members, or close it."""
        detail = self.detail
        if detail.tree_open:
            detail.close_tree()
            return
        if self.mode != "chain":
            self.notify("The family tree shows chain families: press g to group as chains.",
                        markup=False)
            return
        if self.table.selected is None:
            self.notify("Select a family first.", markup=False)
            return
        self._set_tree_context()
        detail.open_tree()

    def _set_tree_context(self) -> None:
        view = self.view
        request = view.request if view is not None else None
        k = request.k if request is not None else self.k
        mode = request.mode if request is not None else self.mode
        show_ignored = request.show_ignored if request is not None else self.show_ignored
        review = self.review
        cut = bool(review.pairs) and not show_ignored  # the view cuts families at ignored pairs
        self.detail.set_tree_context(
            k=k, mode=mode, partners=review.partners() if cut else {},
            serial=review.serial if cut else 0,
        )

    @on(DetailPane.TreeShown)
    def tree_shown(self, event: DetailPane.TreeShown) -> None:
        self.set_class(event.shown, "-tree")

    def action_cycle_sort(self) -> None:
        index = SORT_KEYS.index(self.sort_key)
        self.sort_key = SORT_KEYS[(index + 1) % len(SORT_KEYS)]

    def action_toggle_mode(self) -> None:
        self.mode = "star" if self.mode == "chain" else "chain"

    def action_toggle_singletons(self) -> None:
        self.singletons = not self.singletons

    def action_mark(self) -> None:
        doc_id = self.selected_member()
        if doc_id is None:
            return
        marked = self.marked
        if doc_id in marked:
            marked.remove(doc_id)
        else:
            marked.append(doc_id)
            if len(marked) > 2:
                # Two marks are a pair to compare; a third means the user moved on: the
                # oldest goes (the pair may span families), and the notice says which.
                dropped = marked.pop(0)
                self.notify(
                    f"Unmarked {shown(dropped)} (two marks at most); "
                    f"c compares {shown(marked[0])} with {shown(marked[1])}.",
                    title="Mark replaced",
                    markup=False,
                )
        self.detail.set_marked(marked)
        self.update_status()

    def compare_pair(self) -> tuple[str, str] | None:
        """The two documents `c` compares: the two marked ones, or the marked one and the
        highlighted one, or the two members of a two-member family, or the family's
        representative and the highlighted member."""
        current = self.selected_member()
        marked = self.marked
        if len(marked) == 2:
            return marked[0], marked[1]
        if len(marked) == 1 and current and current != marked[0]:
            return marked[0], current
        family = self.table.selected
        if marked or family is None:
            return None
        if family.size == 2:
            return family.members[0], family.members[1]
        if current and current != family.centre:
            return family.centre, current
        if family.size > 1:
            return family.centre, self._nearest_other(family)
        return None

    def _nearest_other(self, family: FamilyLike) -> str:
        """The member closest to the representative (ties by id), itself excluded."""
        fps = self.snapshot.fingerprints
        centre_fp = fps.get(family.centre, 0)
        others = [m for m in family.members if m != family.centre]
        return min(others, key=lambda m: ((fps.get(m, 0) ^ centre_fp).bit_count(), m))

    def open_compare(self, left: str, right: str) -> None:
        self.app.push_screen(
            CompareScreen(left, right, snapshot=self.snapshot, reader=self.explorer.source)
        )

    def action_compare(self) -> None:
        pair = self.compare_pair()
        if pair is None:
            self.notify(
                "Mark two documents with space, or press a to compare with any document.",
                markup=False,
            )
            return
        self.open_compare(*pair)

    def action_compare_any(self) -> None:
        origin = self.marked[0] if len(self.marked) == 1 else self.selected_member()
        if origin is None:
            return

        def picked(other: str | None) -> None:
            if other is not None:
                self.open_compare(origin, other)

        self.app.push_screen(DocumentPicker(list(self.snapshot.fingerprints), origin=origin), picked)

    def action_neighbours(self) -> None:
        doc_id = self.selected_member()
        if doc_id is not None:
            self.app.push_screen(NeighboursScreen(doc_id, self.k, explorer=self.explorer))

    def action_chain_path(self) -> None:
        """The links joining the member to its representative (or to the one marked)."""
        from ditto_tui.ui.screens.chain_path import ChainPathScreen

        doc_id = self.selected_member()
        if doc_id is not None:
            marked = self.marked
            other = marked[0] if len(marked) == 1 and marked[0] != doc_id else None
            self.app.push_screen(ChainPathScreen(doc_id, other, self.k))

    def action_toggle_source(self) -> None:
        detail = self.detail
        detail.html_source = not detail.html_source
        detail.show_preview(self.selected_member(), force=True)

    def action_edit(self) -> None:
        doc_id = self.selected_member()
        if doc_id is not None:
            self.post_message(self.OpenExternal(doc_id, "EDITOR"))

    def action_page(self) -> None:
        doc_id = self.selected_member()
        if doc_id is not None:
            self.post_message(self.OpenExternal(doc_id, "PAGER"))

    def action_copy_path(self) -> None:
        doc_id = self.selected_member()
        if doc_id is None:
            return
        doc = self.snapshot.documents.get(doc_id)
        path = doc.path if doc is not None else doc_id
        self.app.copy_to_clipboard(path)
        self.notify(f"Copied {path}", markup=False)

    def action_export(self) -> None:
        view = self.view
        if view is None or not len(view):
            self.notify("No families to export.", markup=False)
            return
        from ditto_tui.explore.report import write_snapshot_report
        from ditto_tui.ui.screens.export import ExportDialog

        families = list(view.families)
        request, snapshot, source = view.request, self.snapshot, self.explorer.source

        def report(path: Path, overwrite: bool) -> int:
            return write_snapshot_report(
                source, snapshot, path, families=families, k=request.k, mode=request.mode,
                pattern=request.pattern, overwrite=overwrite,
            )

        self.app.push_screen(
            ExportDialog(
                families,
                k=request.k,
                mode=request.mode,
                fingerprints=snapshot.fingerprints,
                root=str(getattr(source, "root", "") or ""),
                report=report,
            )
        )

    # -- sessions --------------------------------------------------------------------------
    def session_state(self) -> SessionState:
        """The view as it is now, to be restored on reopen."""
        return SessionState(
            k=self.k,
            mode=self.mode,
            sort=self.sort_key,
            filters={
                "pattern": self.pattern,
                "singletons": self.singletons,
                "unreviewed_only": self.unreviewed_only,
            },
            show_ignored=self.show_ignored,
            selected=self._last_selected,
        )

    def restore_session(self, state: SessionState) -> None:
        """Take the saved view (before mounting; unknown values are ignored)."""
        for key in SORT_KEYS:
            if state.sort == key:
                self.set_reactive(MainScreen.sort_key, key)
        filters = state.filters
        if isinstance(filters.get("pattern"), str):
            self.set_reactive(MainScreen.pattern, filters["pattern"])
        if isinstance(filters.get("singletons"), bool):
            self.set_reactive(MainScreen.singletons, filters["singletons"])
        if isinstance(filters.get("unreviewed_only"), bool):
            self.set_reactive(MainScreen.unreviewed_only, filters["unreviewed_only"])
        self.set_reactive(MainScreen.show_ignored, bool(state.show_ignored))

    # -- review ----------------------------------------------------------------------------
    def _review_ready(self) -> bool:
        if not self.review.active:
            self.notify("Decisions need a folder corpus (this one has no review store).",
                        markup=False)
            return False
        return True

    def action_decide(self, value: str) -> None:
        """Record ``value`` for the highlighted member; the same key again clears it."""
        doc_id = self.selected_member()
        if doc_id is None or not self._review_ready():
            return
        current, stale = self.review.decision(doc_id)
        self.explorer.decide([doc_id], None if current == value and not stale else value)
        # on to the next member, as in a mail reader: a family is decided key after key
        table = self.member_table
        if table.cursor_row < len(table.rows) - 1:
            table.move_cursor(row=table.cursor_row + 1)

    def _selected_family(self) -> FamilyLike | None:
        family = self.table.selected
        return family if family is not None and family.size > 1 else None

    def action_family_reviewed(self) -> None:
        family = self._selected_family()
        if family is None or not self._review_ready():
            return
        key = key_of(family.members, self.snapshot.documents, self.snapshot.fingerprints)
        self.explorer.mark_family(family.members, "reviewed", key not in self.review.reviewed)

    def action_ignore_family(self) -> None:
        family = self._selected_family()
        if family is None or not self._review_ready():
            return
        key = key_of(family.members, self.snapshot.documents, self.snapshot.fingerprints)
        on = key not in self.review.ignored
        self.explorer.mark_family(family.members, "ignored", on)
        self.notify(
            "Family ignored (f4 shows ignored ones)." if on else "Family no longer ignored.",
            markup=False,
        )

    def action_ignore_pair(self) -> None:
        if not self._review_ready():
            return
        marked = self.marked
        if len(marked) == 2:
            a, b = marked
        else:
            family = self._selected_family()
            current = self.selected_member()
            if family is None or current is None or current == family.centre:
                self.notify("Mark two documents (space), or highlight a member other than "
                            "the representative.", markup=False)
                return
            a, b = current, family.centre
        pair = (min(a, b), max(a, b))
        on = pair not in self.review.pairs
        self.explorer.ignore_pair(a, b, on)
        self.notify(
            f"Not duplicates: {shown(a)} and {shown(b)}." if on else "Pair no longer ignored.",
            markup=False,
        )

    def action_toggle_unreviewed(self) -> None:
        self.unreviewed_only = not self.unreviewed_only

    def action_toggle_ignored(self) -> None:
        self.show_ignored = not self.show_ignored

    def action_keep_rules(self) -> None:
        from ditto_tui.ui.screens.keep_rules import KeepRulesScreen

        view = self.view
        if view is None or not self._review_ready():
            return
        family = self._selected_family()
        selected = family.members if family is not None else None
        scope_label = None
        node = self.detail.tree_node if family is not None else None
        if node is not None:  # a node chosen in the tree: the rule's scope is its members
            selected = node.members
            scope_label = f"The chosen tree node (k={node.k}, {node.size:,} documents)"

        def applied(marks: dict[str, str] | None) -> None:
            if marks:
                self.explorer.set_marks(marks)
                self.notify(f"Recorded {len(marks):,} decisions.", markup=False)

        self.app.push_screen(
            KeepRulesScreen(
                selected=selected,
                families=[f.members for f in view.families if f.size > 1],
                documents=self.snapshot.documents,
                review=self.review,
                fingerprints=self.snapshot.fingerprints,
                k=self.k,
                grouping=self.mode,
                scope_label=scope_label,
            ),
            applied,
        )

    def action_actions(self) -> None:
        from ditto_tui.ui.screens.actions import ActionsScreen

        view = self.view
        if view is None or not self._review_ready():
            return
        if not self.review.decisions:
            self.notify("Nothing is decided duplicate yet (d, or R for keep rules).", markup=False)
            return
        self.app.push_screen(ActionsScreen(self.explorer, self.k, self.mode))

    def action_undo(self) -> None:
        from ditto_tui.ui.screens.actions import UndoScreen

        if not self._review_ready():
            return
        self.app.push_screen(UndoScreen(self.explorer))
