"""MainScreen: k slider, family list, member list and preview of the selected document.

The screen holds the view state (k, grouping, sort, singletons, filter) as reactives;
changing any of them sends a :class:`~ditto_tui.explore.view.ViewRequest` to the explorer,
whose view thread builds the listing; :meth:`MainScreen.show_view` swaps the result in.
The panes (:class:`FamiliesPane`, :class:`DetailPane`) paint; nothing here is O(corpus) on
the UI thread and no file is read here. The screen holds the layout, the reactives, the
handlers of its widgets' messages and one-line actions; its parts, one module each:

- ``keys``: the key map; ``view_settings``: the view state as one value, and the
  request it makes; ``latest_view``: only the newest request's view is shown;
- ``frame_pacing``: a key is answered in one frame; ``excerpts``: the family list's
  excerpts, read ahead in a worker;
- ``selection``: the family and member picked, kept across views, and the family tree's
  context; ``status``: what the status line, the view options and the empty list say;
  ``session``: the view saved on exit and restored;
- ``document_commands`` (mark, compare, neighbours, links, open, copy; the pair from
  ``compare_pair``) and ``review_commands`` (decisions, reviewed and ignored families,
  ignored pairs, keep rules, actions, undo, export), both reading the screen through
  ``on_screen.OnScreen``.
"""

from __future__ import annotations

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.reactive import Reactive, reactive
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input

from ditto_tui.core.families.clusters import Mode
from ditto_tui.core.families.tree import TreeNode
from ditto_tui.corpus.review import SessionState
from ditto_tui.explore.explorer import Explorer
from ditto_tui.explore.review import ReviewState
from ditto_tui.explore.snapshot import Snapshot
from ditto_tui.explore.view import SORT_KEYS, FamilyView, SortKey
from ditto_tui.ui.listing import ShownFamily
from ditto_tui.ui.screens.main.compare_pair import marks_in
from ditto_tui.ui.screens.main.document_commands import DocumentCommands
from ditto_tui.ui.screens.main.excerpts import ExcerptReader
from ditto_tui.ui.screens.main.frame_pacing import FramePacer
from ditto_tui.ui.screens.main.keys import MAIN_KEYS
from ditto_tui.ui.screens.main.latest_view import LatestView
from ditto_tui.ui.screens.main.review_commands import ReviewCommands, ReviewKeys
from ditto_tui.ui.screens.main.selection import Selection, tree_context
from ditto_tui.ui.screens.main.session import restored, restored_member_pattern, session_of
from ditto_tui.ui.screens.main.status import empty_message, status_of, view_options
from ditto_tui.ui.screens.main.view_settings import ViewSettings
from ditto_tui.ui.widgets.detail_pane import DetailPane
from ditto_tui.ui.widgets.families_pane import FamiliesPane
from ditto_tui.ui.widgets.family_table import FamilyTable
from ditto_tui.ui.widgets.family_tree import TreeContext
from ditto_tui.ui.widgets.filter_input import FILTER_PLACEHOLDERS, FilterInput
from ditto_tui.ui.widgets.footer import Footer
from ditto_tui.ui.widgets.k_chart import KChart
from ditto_tui.ui.widgets.k_slider import KSlider
from ditto_tui.ui.widgets.member_filter import MemberFilter
from ditto_tui.ui.widgets.member_table import MemberTable
from ditto_tui.ui.widgets.scan_progress import ScanProgress
from ditto_tui.ui.widgets.status_bar import StatusBar
from ditto_tui.ui.widgets.title_line import TitleLine
from ditto_tui.ui.widgets.tree_control import TreeShown

__all__ = ["MainScreen"]


class MainScreen(ReviewKeys, Screen[None]):
    """Families at the current k; the members and preview of the selection.

    ``explorer`` is the corpus and its index; ``k``/``mode`` the initial view;
    ``root_label`` what the status line calls the corpus.
    """

    #: a focus change restyles and repaints the widgets it changes; Textual's screen also
    #: repaints all of itself (every line of every widget drawn again: most of a Tab press)
    focused: Reactive[Widget | None] = Reactive(None, repaint=False)

    BINDINGS = MAIN_KEYS

    # (repaint=False: their watchers update the widgets that show them; a repaint of the
    # whole screen per key costs more than everything else a k step does)
    k: reactive[int] = reactive(3, init=False, repaint=False)
    mode: reactive[Mode] = reactive("chain", init=False, repaint=False)
    sort_key: reactive[SortKey] = reactive("size", init=False, repaint=False)
    singletons: reactive[bool] = reactive(False, init=False, repaint=False)
    pattern: reactive[str] = reactive("", init=False, repaint=False)
    unreviewed_only: reactive[bool] = reactive(False, init=False, repaint=False)
    show_ignored: reactive[bool] = reactive(False, init=False, repaint=False)

    def __init__(
        self, explorer: Explorer, *, k: int = 3, mode: Mode = "chain", root_label: str = ""
    ) -> None:
        super().__init__()
        self.explorer = explorer
        self.root_label = root_label
        self.set_reactive(MainScreen.k, max(0, min(k, explorer.max_k)))
        self.set_reactive(MainScreen.mode, mode)
        self.snapshot: Snapshot = explorer.snapshot  # (the state the view on screen shows)
        self.review: ReviewState = explorer.review
        self.views = LatestView()
        self.selection = Selection(self, explorer)
        self.pacer = FramePacer(self, view_is_late=self._view_is_late,
                                after_key=self._after_key)
        self.excerpt_reader = ExcerptReader(self, rows_read=self.pacer.rows_read)
        self.review_commands = ReviewCommands(self)
        #: the member filter (a saved session's until mounted; then the pane's, as it says)
        self._member_pattern = ""
        self.document_commands = DocumentCommands(self)

    # -- layout ---------------------------------------------------------------------------
    #: from this many columns on the screen is ``-wide``, below it ``-narrow`` (the view
    #: options are hidden, which leaves the k chart room for its bars and figures)
    WIDE_FROM = 110

    def compose(self) -> ComposeResult:
        self._set_width_class(self.app.size.width)
        yield StatusBar(id="status")
        with Horizontal(id="controls"):
            yield KSlider(self.k, self.explorer.max_k, id="k-slider")
            yield KChart(self.explorer, k=self.k, id="k-chart")
            yield FilterInput(value=self.pattern, placeholders=FILTER_PLACEHOLDERS, id="filter",
                              compact=True, on_edit=self.pacer.hold)
            yield TitleLine(Text(""), id="view-options")
        yield ScanProgress(id="scan")
        with Horizontal(id="body"):
            yield FamiliesPane(id="families-pane")
            yield DetailPane(lambda: self.explorer.source, keys_waiting=lambda: self.pacer.urgent,
                             id="detail-pane")
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
        self.query_one(MemberFilter).value = self._member_pattern  # a saved session's
        self.member_table.set_review(self.review)
        self.update_status()
        self.table.focus()
        self.request_view()

    async def on_idle(self, event: events.Idle) -> None:
        self.pacer.paint_on_idle(event)

    def on_unmount(self) -> None:
        self.pacer.stop()

    def on_screen_suspend(self) -> None:
        self.pacer.stop()
        self.detail.build_put_off()  # (the rows a key put off: there on the way back)

    # -- parts ----------------------------------------------------------------------------
    @property
    def view(self) -> FamilyView | None:
        """The family view on screen (None until the first arrives)."""
        return self.views.view

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
    def showing_families(self) -> bool:
        """Whether the family list is there (not once the app tears its widgets down)."""
        return bool(self.query(FamilyTable))

    @property
    def member_table(self) -> MemberTable:
        return self.query_one(MemberTable)

    @property
    def marked(self) -> list[str]:
        return marks_in(self.detail.marked, self.detail.family)

    def set_marks(self, marks: list[str]) -> None:
        self.detail.set_marked(marks)
        self.update_status()

    @property
    def previewed(self) -> str | None:
        return self.detail.previewed

    @property
    def tree_node(self) -> TreeNode | None:
        """The node of the family tree whose members the member list shows, if any."""
        return self.detail.tree_control.node

    def selected_member(self) -> str | None:
        return self.detail.selected_member()

    def selected_family(self) -> ShownFamily | None:
        return self.table.selected

    @property
    def chosen(self) -> bool:
        """Whether the user has picked a family or member (see :class:`Selection`)."""
        return self.selection.chosen

    def settings(self) -> ViewSettings:
        """The view state the user chose, as one value."""
        return ViewSettings(self.k, self.mode, self.sort_key, self.singletons, self.pattern,
                            self.unreviewed_only, self.show_ignored)

    # -- view state -----------------------------------------------------------------------
    def request_view(self) -> None:
        """Ask the explorer for the view of the current state (built off this thread)."""
        serial = self.views.next_serial()
        if self.is_mounted:  # (first: no collection from here until the view is drawn)
            self.pacer.hold()
        self.explorer.request_view(self.settings().request(serial, *self.selection.keep()))
        if self.is_mounted:
            if not self.pacer.holding:  # (not the screen on top: no frame waits for the view)
                self.families_pane.show_waiting()
            self.update_status()

    # a change of any view state asks for the view of the new state
    watch_k = watch_mode = watch_sort_key = watch_singletons = watch_pattern = request_view
    watch_unreviewed_only = watch_show_ignored = request_view

    def view_current(self) -> bool:
        """Whether the view on screen answers the latest request for the latest state."""
        return self.views.current(self.explorer.snapshot)

    def _after_key(self) -> None:
        """Keys settled: what was put off while they waited for their frames."""
        self.excerpt_reader.read_put_off()
        self.detail.build_put_off()

    def _view_is_late(self) -> None:
        """The frames held for a view wait no longer: "clustering…" is drawn (only now: a
        view shown in time would erase it in the same frame, and the pane with its
        table would be drawn for nothing)."""
        if not self.view_current():
            self.families_pane.show_waiting()

    @property
    def all_families(self) -> list[ShownFamily]:
        """Every family at the current k of the latest snapshot (singletons included)."""
        listing = self.snapshot.listing(self.k, self.mode)
        return list(listing) if listing is not None else []

    # -- data from the explorer (set by the app) -------------------------------------------
    def show_view(self, view: FamilyView) -> None:
        """Swap in a view built by the explorer; a view of an older request is dropped."""
        if not self.views.take(view):
            return
        snapshot = self.explorer.snapshot
        if snapshot.generation >= view.generation:
            self.snapshot = snapshot
        keep, _ = self.selection.keep()
        # a renamed document keeps its selection under its new name
        self.detail.renames = dict(view.delta.renames) if view.delta is not None else {}
        self.families_pane.show_view(
            view,
            self.snapshot.documents,
            self.excerpt_reader.excerpts,
            keep=keep,
            placeholder=empty_message(
                self.settings(), self.snapshot, scanning=self.explorer.scanning,
                source=self.explorer.source, can_switch=self.explorer.can_switch, view=view,
            ),
        )
        if view.delta is None:
            # asked for by a key (k, filter, sort...): the selected family's members and
            # preview now, in the same frame as the list (the table's Highlighted message
            # follows and finds them shown); after a live change that message does it
            self._show_family(self.table.selected)
        self.update_status()
        shown_first = self.excerpt_reader.read_for_view(urgent=self.pacer.urgent)
        self.query_one(KChart).show(self.k, view.request.mode)
        if view.delta is not None:
            self.notify(view.delta.describe(), title="Corpus changed", markup=False, timeout=4)
        self.pacer.release_after_view(rows_missing=bool(shown_first))

    def show_snapshot(self, snapshot: Snapshot, touched: frozenset[str]) -> None:
        """A new state of the index (the matching view follows from the explorer)."""
        if snapshot.epoch != self.snapshot.epoch:
            self.excerpt_reader.forget()
            self.detail.reset()
        self.snapshot = snapshot
        self.excerpt_reader.forget(touched)
        if touched or self.detail.preview_control.failed:
            self.detail.forget(touched, snapshot)
        self.update_status()

    def listing_warmed(self, k: int, mode: str) -> None:
        """The listing at ``k`` was computed ahead (its first excerpts may be read now)."""
        self.excerpt_reader.listing_warmed(k, mode, urgent=self.pacer.urgent)

    def scan_progressed(self, done: int, total: int | None, elapsed: float) -> None:
        self.query_one(ScanProgress).update_progress(done, total, elapsed)

    def scan_ended(self, error: str | None) -> None:
        self.query_one(ScanProgress).hide()
        self.update_status()
        if self.detail.preview_control.failed:
            self.detail.forget(frozenset())
        if error:
            self.notify(error, title="Scan failed", severity="error", markup=False)

    def show_review(self, review: ReviewState) -> None:
        """A new review state from the explorer (the matching view follows)."""
        self.review = review
        self.member_table.set_review(review)
        self.update_status()

    # -- state shown -----------------------------------------------------------------------
    def update_status(self) -> None:
        settings = self.settings()
        self.query_one(StatusBar).show(status_of(
            root=self.root_label, snapshot=self.snapshot, view=self.view, settings=settings,
            watch=self.explorer.watch_state, source=self.explorer.source, review=self.review,
            marked=len(self.marked), read_only=self.explorer.policy.read_only,
        ))
        self.query_one("#view-options", TitleLine).update(view_options(settings))

    # -- sessions --------------------------------------------------------------------------
    def session_state(self) -> SessionState:
        """The view as it is now, to be restored on reopen."""
        return session_of(self.settings(), self.selection.last_selected, self._member_pattern)

    def restore_session(self, state: SessionState) -> None:
        """Take the saved view (before mounting; unknown values are ignored)."""
        view = restored(state, self.settings())
        self.set_reactive(MainScreen.sort_key, view.sort_key)
        self.set_reactive(MainScreen.pattern, view.pattern)
        self.set_reactive(MainScreen.singletons, view.singletons)
        self.set_reactive(MainScreen.unreviewed_only, view.unreviewed_only)
        self.set_reactive(MainScreen.show_ignored, view.show_ignored)
        self._member_pattern = restored_member_pattern(state)

    # -- events -------------------------------------------------------------------------------
    @on(KSlider.Changed)
    def k_changed(self, event: KSlider.Changed) -> None:
        self.k = event.value

    @on(FamilyTable.Highlighted)
    def family_highlighted(self, event: FamilyTable.Highlighted) -> None:
        self._show_family(event.family)

    def _show_family(self, family: ShownFamily | None) -> None:
        self.selection.show_family(family, view=self.view, snapshot=self.snapshot,
                                   pattern=self.pattern, tree=self._tree_context())

    def _tree_context(self) -> TreeContext:
        return tree_context(self.view, self.settings(), self.review)

    @on(DetailPane.MemberHighlighted)
    def member_highlighted(self) -> None:
        self.selection.moved()

    @on(Input.Changed, "#member-filter")
    def member_filter_changed(self, event: Input.Changed) -> None:
        self._member_pattern = event.value  # (the detail pane filters by it)

    @on(FamilyTable.SortRequested)
    def header_selected(self, event: FamilyTable.SortRequested) -> None:
        self.sort_key = next((key for key in SORT_KEYS if key == event.key), self.sort_key)

    @on(FamilyTable.Selected)
    def family_selected(self) -> None:
        self.member_table.focus()

    @on(Input.Changed, "#filter")
    def filter_changed(self, event: Input.Changed) -> None:
        self.pattern = event.value

    @on(Input.Submitted, "#filter")
    def filter_submitted(self) -> None:
        self.table.focus()

    @on(TreeShown)
    def tree_shown(self, event: TreeShown) -> None:
        self.set_class(event.shown, "-tree")

    # -- view actions ---------------------------------------------------------------------------
    def action_k_down(self) -> None:
        self.query_one(KSlider).nudge(-1)

    def action_k_up(self) -> None:
        self.query_one(KSlider).nudge(1)

    def action_filter(self) -> None:
        self.query_one(FilterInput).open(self.snapshot.listing(self.k, self.mode))

    def action_leave_filter(self) -> None:
        if self.focused is self.query_one(FilterInput):
            self.table.focus()
        elif not (self.member_table.has_focus and self.document_commands.unmark_all()):
            self.detail.step_back()  # the member filter, the chosen tree node or the tree

    def action_toggle_tree(self) -> None:
        """Open the family tree of the selected family beside its members, or close it."""
        self.selection.toggle_tree(self.mode, self._tree_context)

    def action_cycle_sort(self) -> None:
        index = SORT_KEYS.index(self.sort_key)
        self.sort_key = SORT_KEYS[(index + 1) % len(SORT_KEYS)]

    def action_toggle_mode(self) -> None:
        self.mode = "star" if self.mode == "chain" else "chain"

    # -- document actions -------------------------------------------------------------------
    def action_mark(self) -> None:
        self.document_commands.mark()

    def action_clear_marks(self) -> None:
        self.document_commands.clear_marks()

    def action_toggle_source(self) -> None:
        self.detail.toggle_html_source()

    def open_compare(self, left: str, right: str) -> None:
        self.document_commands.open_compare(left, right)

    def action_compare(self) -> None:
        self.document_commands.compare()

    def action_compare_any(self) -> None:
        self.document_commands.compare_any()

    def action_neighbours(self) -> None:
        self.document_commands.neighbours()

    def action_chain_path(self) -> None:
        self.document_commands.chain_path()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Opening a document in ``$EDITOR``/``$PAGER`` would run the program where the
        app runs: in a browser session (``ditto-tui serve``) it is not offered."""
        if action == "open_external" and self.app.is_web:
            return False
        return super().check_action(action, parameters)

    def action_open_external(self, variable: str) -> None:
        self.document_commands.open_external(variable)

    def action_copy_path(self) -> None:
        self.document_commands.copy_path()
