"""MainScreen: k slider, family list, member list and preview of the selected document.

The screen renders state it is given by the app (the live index, the corpus session) and turns
key presses into intentions. File reads (preview, excerpts, mail headers) go through the
session in thread workers; nothing here blocks the UI thread on I/O.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Input
from textual.worker import get_current_worker

from ditto_tui.core.display import excerpt, html_text, visible_lines
from ditto_tui.ui.listing import (
    SORT_KEYS,
    Counts,
    family_delta,
    filter_families,
    format_size,
    shown,
    sort_families,
)
from ditto_tui.ui.messages import (
    CorpusChanged,
    IndexChanged,
    ScanFinished,
    ScanProgressed,
    WatchStateChanged,
)
from ditto_tui.ui.widgets.family_table import FamilyTable
from ditto_tui.ui.widgets.k_chart import KChart
from ditto_tui.ui.widgets.k_slider import KSlider
from ditto_tui.ui.widgets.member_table import Member, MemberTable
from ditto_tui.ui.widgets.preview import Preview
from ditto_tui.ui.widgets.scan_progress import ScanProgress
from ditto_tui.ui.widgets.status_bar import StatusBar
from ditto_tui.ui.widgets.title_line import TitleLine

if TYPE_CHECKING:
    from ditto_tui.ui.app import DittoApp

PREVIEW_LIMIT = 4 * 1024 * 1024
EXCERPT_LIMIT = 4096
EXCERPT_ROWS = 3000
MEMBER_ROWS = 500
MAIL_KINDS = ("maildir", "mbox")
NO_FAMILIES = "No families (press 1 to show singletons, ] to raise k)"
REFRESH_INTERVAL = 0.3


class MainScreen(Screen):
    """Families at the current k; the members and preview of the selection."""

    app: DittoApp  # type: ignore[assignment]

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
        Binding("l", "chain_path", "Links", tooltip="how the member is linked to the representative",
                show=False),
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
            "toggle_watch",
            "Watch on/off",
            tooltip="pause or resume following changes on disk",
            key_display="w",
        ),
        Binding("f5", "rescan", "Rescan", tooltip="scan the folder again", show=False),
        Binding(
            "exclamation_mark,f2",
            "show_skipped",
            "Skipped files",
            tooltip="list the files that are not documents, with the reason",
            show=False,
            key_display="!",
        ),
        Binding(
            "p",
            "switch_pipeline",
            "Switch pipeline",
            tooltip="re-index with the other pipeline: ditto <-> html",
            show=False,
        ),
        Binding(
            "escape", "leave_filter", "Back to list", tooltip="leave the filter box", show=False
        ),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.k = 3
        self.mode = "chain"
        self.sort_key = "size"
        self.singletons = False
        self.pattern = ""
        self.html_source = False
        self.marked: list[str] = []
        self.excerpts: dict[str, str] = {}
        self.mail_infos: dict[str, tuple[str, str, str]] = {}
        self.all_families: list = []
        self.previewed: str | None = None
        self._last_refresh = 0.0
        self._refresh_timer = None
        self._computing = False
        self._dirty = False
        self._pending_keep: str | None = None
        self._notice: tuple[Counts, list] | None = None

    # -- layout ---------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")
        with Horizontal(id="controls"):
            yield KSlider(self.app.initial_k, self.app.live.max_k, id="k-slider")
            yield KChart(id="k-chart")
            yield Input(
                placeholder="filter: path substring or glob  (/)", id="filter", compact=True
            )
            yield TitleLine(Text(""), id="view-options")
        yield ScanProgress(id="scan")
        with Horizontal(id="body"):
            with Vertical(id="families-pane"):
                yield FamilyTable(id="families")
            with Vertical(id="detail-pane"):
                yield MemberTable(id="members")
                yield TitleLine(Text("Preview"), id="preview-title")
                yield Preview(id="preview")
        yield Footer()

    def on_mount(self) -> None:
        self.k = self.app.initial_k
        self.mode = self.app.initial_mode
        self.query_one("#families-pane").border_title = "Families"
        self.query_one("#members").border_title = "Members"
        self.query_one(Preview).show([], placeholder="No document selected")
        self.update_status()
        self.query_one(FamilyTable).focus()
        self.refresh_families()

    # -- state shown -----------------------------------------------------------------------
    @property
    def table(self) -> FamilyTable:
        return self.query_one(FamilyTable)

    @property
    def member_table(self) -> MemberTable:
        return self.query_one(MemberTable)

    def selected_member(self) -> str | None:
        member = self.member_table.selected
        return member.id if member else None

    def update_status(self) -> None:
        app = self.app
        session = app.session
        multi = sum(1 for f in self.all_families if f.size > 1)
        self.query_one(StatusBar).set(
            root=app.root_label,
            documents=len(app.live),
            skipped=len(getattr(session, "skipped", ())),
            families=multi,
            shown_families=len(self.table.families) if self.pattern else None,
            k=self.k,
            mode=self.mode,
            watch="scanning" if app.scanning else app.watch_state(),
            pipeline=app.pipeline_identity,
        )
        options = Text(no_wrap=True)
        options.append(f"sort: {self.sort_key}")
        options.append(" · singletons " + ("on" if self.singletons else "off"))
        if self.marked:
            options.append(f" · marked {len(self.marked)}")
        self.query_one("#view-options", TitleLine).update(options)

    def refresh_families(self, *, keep: str | None = None) -> None:
        """Re-cluster at the current k/mode and redraw the family list, keeping the
        selection on the family holding ``keep`` (default: the selected member).

        A listing already cached is shown at once; otherwise a worker computes it and the
        list is redrawn when it arrives (the old one stays on screen meanwhile)."""
        self._last_refresh = time.monotonic()
        self.query_one(KChart).poll()
        if keep is None:
            keep = self.selected_member()
        listing = self.app.live.peek(self.k, self.mode)
        if listing is not None:
            self.show_families(listing, keep=keep)
            return
        self._pending_keep = keep
        if self._computing:
            self._dirty = True
            return
        self._computing = True
        self.query_one("#families-pane").border_subtitle = "clustering…"
        self.compute_families(self.k, self.mode)

    @work(thread=True, group="families")
    def compute_families(self, k: int, mode: str) -> None:
        live = self.app.live
        listing = live.families(k, mode)
        self.app.call_from_thread(self._families_computed, k, mode, listing, live)

    def _families_computed(self, k: int, mode: str, listing: list, live: object) -> None:
        self._computing = False
        self.query_one("#families-pane").border_subtitle = ""
        # a listing of the index replaced by a pipeline switch is stale: compute again
        current = (k, mode) == (self.k, self.mode) and live is self.app.live
        if current:
            self.show_families(listing, keep=self._pending_keep)
        if self._dirty or not current:
            self._dirty = False
            self.refresh_families(keep=self._pending_keep)

    def show_families(self, listing: list, *, keep: str | None) -> None:
        """Filter, sort and display ``listing`` (all families at the current k/mode)."""
        documents = self.app.session.documents
        self.all_families = listing
        families = filter_families(listing, self.pattern, singletons=self.singletons)
        families = sort_families(families, self.sort_key, documents)
        self.table.sort_key = self.sort_key
        self.table.placeholder = self.empty_message()
        self.table.show(families, documents, self.excerpts, keep=keep)
        self.query_one(
            "#families-pane"
        ).border_title = (
            f"Families at k={self.k} ({self.mode}) · {len(families):,} · by {self.sort_key}"
        )
        self.update_status()
        self.load_excerpts()
        self.show_members(keep=keep)
        if self._notice is not None:
            counts, before = self._notice
            self._notice = None
            new, gone = family_delta(before, listing)
            counts = replace(counts, new_families=new, gone_families=gone)
            self.notify(counts.describe(), title="Corpus changed", markup=False, timeout=4)

    def empty_message(self) -> str:
        """What the family list says when it is empty."""
        app = self.app
        if len(app.live) or app.scanning:
            return NO_FAMILIES
        skipped = len(getattr(app.session, "skipped", ()))
        lines = [f"No documents for {app.pipeline_identity or 'this pipeline'}."]
        if getattr(app.pipeline, "name", "") == "html":
            lines.append("It reads only .html, .htm and .xhtml files.")
        lines.append(f"{skipped:,} file{'' if skipped == 1 else 's'} skipped.")
        if app.next_pipeline() is not None and hasattr(app.session, "with_pipeline"):
            lines.append("Press p to switch pipeline.")
        return "\n".join(lines)

    def pipeline_switched(self) -> None:
        """The app replaced the session and the live index: forget what belonged to the old
        ones (marks, excerpts, mail headers, preview), keep k, grouping, sort and filter."""
        self.marked.clear()
        self.member_table.set_marked(self.marked)
        self.excerpts.clear()
        self.mail_infos.clear()
        self._notice = None
        self.show_preview(None, force=True)
        if self._refresh_timer is not None:
            self._refresh_timer.stop()
            self._refresh_timer = None
        self.refresh_families()

    def schedule_refresh(self) -> None:
        """Refresh now, or soon if the list was redrawn less than REFRESH_INTERVAL ago."""
        if self._refresh_timer is not None:
            return
        wait = REFRESH_INTERVAL - (time.monotonic() - self._last_refresh)
        if wait <= 0:
            self.refresh_families()
            return

        def fire() -> None:
            self._refresh_timer = None
            self.refresh_families()

        self._refresh_timer = self.set_timer(wait, fire)

    # -- members and preview ------------------------------------------------------------------
    def members_of(self, family) -> list[Member]:
        live = self.app.live
        documents = self.app.session.documents
        try:
            centre = live.fingerprint(family.centre)
        except KeyError:
            centre = 0
        members = []
        for doc_id in family.members:
            try:
                distance = (live.fingerprint(doc_id) ^ centre).bit_count()
            except KeyError:
                continue
            doc = documents.get(doc_id)
            subject, sender, _ = self.mail_infos.get(doc_id, ("", "", ""))
            members.append(
                Member(
                    doc_id,
                    distance,
                    doc.size if doc else 0,
                    doc.mtime_ns if doc else 0,
                    subject,
                    sender,
                )
            )
        members.sort(key=lambda m: (m.distance, m.id))
        return members

    def is_mail(self, family) -> bool:
        documents = self.app.session.documents
        return any(
            (doc := documents.get(m)) is not None and doc.kind in MAIL_KINDS for m in family.members
        )

    def show_members(self, *, keep: str | None = None) -> None:
        family = self.table.selected
        table = self.member_table
        if family is None:
            table.show([], self.marked)
            table.border_title = "Members"
            self.show_preview(None)
            return
        if keep is None or keep not in family.members:
            current = self.selected_member()
            keep = current if current in family.members else None
        members = self.members_of(family)
        title = f"Members · {family.size} · diameter {family.diameter}"
        if len(members) > MEMBER_ROWS:  # a DataTable of thousands of rows would stall the UI
            kept = [m for m in members[MEMBER_ROWS:] if m.id == keep]
            members = members[:MEMBER_ROWS] + kept
            title += f" · nearest {MEMBER_ROWS} shown"
        mail = self.is_mail(family)
        if members != table.members or mail != table.mail or keep != self.selected_member():
            table.show(members, self.marked, keep=keep, mail=mail)
        table.border_title = title
        self.load_mail_infos(family)
        self.show_preview(self.selected_member())

    def show_preview(self, doc_id: str | None, *, force: bool = False) -> None:
        if doc_id == self.previewed and not force:
            return
        self.previewed = doc_id
        preview = self.query_one(Preview)
        title = self.query_one("#preview-title", TitleLine)
        if doc_id is None:
            preview.show([], placeholder="No document selected")
            title.update(Text("Preview"))
            return
        doc = self.app.session.documents.get(doc_id)
        heading = Text(no_wrap=True, overflow="ellipsis")
        heading.append(shown(doc_id), style="bold")
        if doc is not None:
            heading.append(f"  {doc.kind} · {format_size(doc.size)}")
            if doc.kind == "html":
                heading.append(" · source" if self.html_source else " · text (h: source)")
        if doc_id in self.app.live:
            heading.append(f" · {self.app.live.fingerprint(doc_id):016x}")
        title.update(heading)
        self.load_preview(doc_id, doc.kind if doc else "text", self.html_source)

    @work(thread=True, exclusive=True, group="preview")
    def load_preview(self, doc_id: str, kind: str, source: bool) -> None:
        worker = get_current_worker()
        session = self.app.session
        try:
            text = session.read_text(doc_id, limit=PREVIEW_LIMIT)
        except Exception as exc:  # the corpus reports why; show it instead of the text
            self.app.call_from_thread(
                self.query_one(Preview).show, [], placeholder=f"cannot read: {exc}"
            )
            return
        if kind == "html" and not source:
            text = html_text(text)
        lines = visible_lines(text)
        header = 0
        if kind in MAIL_KINDS:  # the message's own header block, up to the first blank line
            header = next((i for i, line in enumerate(lines) if not line.strip()), len(lines))
        if worker.is_cancelled:
            return
        self.app.call_from_thread(self._show_lines, doc_id, lines, header)

    def _show_lines(self, doc_id: str, lines: list[str], header_lines: int) -> None:
        if doc_id != self.previewed:
            return
        self.query_one(Preview).show(
            lines, header_lines=header_lines, placeholder="(empty document)"
        )

    @work(thread=True, exclusive=True, group="excerpts")
    def load_excerpts(self) -> None:
        """Read the first bytes of each shown representative, for the Excerpt column."""
        worker = get_current_worker()
        session = self.app.session
        missing = [
            f.centre for f in self.table.families[:EXCERPT_ROWS] if f.centre not in self.excerpts
        ]
        pending: list[tuple[str, str]] = []
        for index, centre in enumerate(missing):
            if worker.is_cancelled:
                break
            doc = session.documents.get(centre)
            try:
                text = session.read_text(centre, limit=EXCERPT_LIMIT)
            except Exception:  # not readable (yet): leave it blank, retry on the next refresh
                continue
            if doc is not None and doc.kind == "html":
                text = html_text(text)
            pending.append((centre, excerpt(text, 80)))
            if len(pending) >= 64 or index == len(missing) - 1:
                self.app.call_from_thread(self._set_excerpts, pending)
                pending = []
        if pending and not worker.is_cancelled:
            self.app.call_from_thread(self._set_excerpts, pending)

    def _set_excerpts(self, pairs: list[tuple[str, str]]) -> None:
        for centre, text in pairs:
            self.excerpts[centre] = text
            self.table.set_excerpt(centre, text)

    @work(thread=True, exclusive=True, group="mail")
    def load_mail_infos(self, family) -> None:
        session = self.app.session
        documents = session.documents
        wanted = [
            m
            for m in family.members
            if m not in self.mail_infos
            and (doc := documents.get(m)) is not None
            and doc.kind in MAIL_KINDS
        ]
        if not wanted:
            return
        found = {}
        for doc_id in wanted:
            try:
                info = session.mail_info(doc_id)
            except Exception:
                info = None
            found[doc_id] = (info.subject, info.sender, info.date) if info else ("", "", "")
        self.app.call_from_thread(self._set_mail_infos, family, found)

    def _set_mail_infos(self, family, found: dict[str, tuple[str, str, str]]) -> None:
        self.mail_infos.update(found)
        if self.table.selected is family:
            self.member_table.show(
                self.members_of(family),
                self.marked,
                keep=self.selected_member(),
                mail=self.is_mail(family),
            )

    # -- events -------------------------------------------------------------------------------
    @on(KSlider.Changed)
    def k_changed(self, event: KSlider.Changed) -> None:
        if event.value != self.k:
            self.k = event.value
            self.refresh_families()

    @on(FamilyTable.Highlighted)
    def family_highlighted(self) -> None:
        self.show_members()

    @on(DataTable.RowHighlighted, "#members")
    def member_highlighted(self) -> None:
        self.show_preview(self.selected_member())

    @on(FamilyTable.SortRequested)
    def header_selected(self, event: FamilyTable.SortRequested) -> None:
        if event.key in SORT_KEYS:
            self.sort_key = event.key  # type: ignore[assignment]
            self.refresh_families()

    @on(FamilyTable.Selected)
    def family_selected(self) -> None:
        self.member_table.focus()

    @on(Input.Changed, "#filter")
    def filter_changed(self, event: Input.Changed) -> None:
        self.pattern = event.value
        self.refresh_families()

    @on(Input.Submitted, "#filter")
    def filter_submitted(self) -> None:
        self.table.focus()

    def on_scan_progressed(self, message: ScanProgressed) -> None:
        bar = self.query_one(ScanProgress)
        bar.display = True
        bar.update_progress(message.done, message.total, message.elapsed)

    def on_index_changed(self, _message: IndexChanged) -> None:
        self.schedule_refresh()

    def on_scan_finished(self, message: ScanFinished) -> None:
        self.query_one(ScanProgress).display = False
        if self._refresh_timer is not None:
            self._refresh_timer.stop()
            self._refresh_timer = None
        self.refresh_families()
        if message.error:
            self.notify(message.error, title="Scan failed", severity="error", markup=False)

    def on_corpus_changed(self, message: CorpusChanged) -> None:
        for doc_id in message.touched:
            self.excerpts.pop(doc_id, None)
            self.mail_infos.pop(doc_id, None)
        if self._notice is None:
            self._notice = (message.counts, self.all_families)
        else:  # several batches before the listing caught up: add them up
            old, before = self._notice
            counts = message.counts
            self._notice = (
                replace(
                    old,
                    changed=old.changed + counts.changed,
                    added=old.added + counts.added,
                    removed=old.removed + counts.removed,
                ),
                before,
            )
        previewed = self.previewed
        self.refresh_families()
        self.app.warm_families(self.mode)
        if previewed is not None and previewed in message.touched:
            self.show_preview(self.selected_member(), force=True)

    def on_watch_state_changed(self, _message: WatchStateChanged) -> None:
        self.update_status()

    # -- actions --------------------------------------------------------------------------------
    def action_k_down(self) -> None:
        self.query_one(KSlider).value -= 1

    def action_k_up(self) -> None:
        self.query_one(KSlider).value += 1

    def action_filter(self) -> None:
        self.query_one("#filter", Input).focus()

    def action_leave_filter(self) -> None:
        if self.focused is self.query_one("#filter", Input):
            self.table.focus()

    def action_cycle_sort(self) -> None:
        index = SORT_KEYS.index(self.sort_key)  # type: ignore[arg-type]
        self.sort_key = SORT_KEYS[(index + 1) % len(SORT_KEYS)]
        self.refresh_families()

    def action_toggle_mode(self) -> None:
        self.mode = "star" if self.mode == "chain" else "chain"
        self.refresh_families()
        self.app.warm_families(self.mode)

    def action_toggle_singletons(self) -> None:
        self.singletons = not self.singletons
        self.refresh_families()

    def action_mark(self) -> None:
        doc_id = self.selected_member()
        if doc_id is None:
            return
        if doc_id in self.marked:
            self.marked.remove(doc_id)
        else:
            self.marked.append(doc_id)
            if len(self.marked) > 2:
                self.marked.pop(0)
        self.member_table.set_marked(self.marked)
        self.update_status()

    def compare_pair(self) -> tuple[str, str] | None:
        """The two documents `c` compares: the two marked ones, or the marked one and the
        highlighted one, or the two members of a two-member family, or the family's
        representative and the highlighted member."""
        current = self.selected_member()
        if len(self.marked) == 2:
            return self.marked[0], self.marked[1]
        if len(self.marked) == 1 and current and current != self.marked[0]:
            return self.marked[0], current
        family = self.table.selected
        if self.marked or family is None:
            return None
        if family.size == 2:
            return family.members[0], family.members[1]
        if current and current != family.centre:
            return family.centre, current
        if family.size > 1:
            return family.centre, self._nearest_other(family)
        return None

    def _nearest_other(self, family) -> str:
        """The member closest to the representative (ties by id), itself excluded."""
        centre_fp = self.app.live.fingerprint(family.centre)
        others = [m for m in family.members if m != family.centre]
        return min(others, key=lambda m: ((self.app.live.fingerprint(m) ^ centre_fp).bit_count(), m))

    def action_compare(self) -> None:
        pair = self.compare_pair()
        if pair is None:
            self.notify(
                "Mark two documents with space, or press a to compare with any document.",
                markup=False,
            )
            return
        self.app.open_compare(*pair)

    def action_compare_any(self) -> None:
        origin = self.marked[0] if len(self.marked) == 1 else self.selected_member()
        if origin is None:
            return
        self.app.pick_document(origin, lambda other: self.app.open_compare(origin, other))

    def action_neighbours(self) -> None:
        doc_id = self.selected_member()
        if doc_id is not None:
            self.app.open_neighbours(doc_id, self.k)

    def action_chain_path(self) -> None:
        """The links joining the member to its representative (or to the one marked)."""
        from ditto_tui.ui.screens.chain_path import ChainPathScreen

        doc_id = self.selected_member()
        if doc_id is not None:
            other = self.marked[0] if len(self.marked) == 1 and self.marked[0] != doc_id else None
            self.app.push_screen(ChainPathScreen(doc_id, other, self.k))

    def action_toggle_source(self) -> None:
        self.html_source = not self.html_source
        self.show_preview(self.selected_member(), force=True)

    def action_edit(self) -> None:
        self.app.open_external(self.selected_member(), "EDITOR")

    def action_page(self) -> None:
        self.app.open_external(self.selected_member(), "PAGER")

    def action_copy_path(self) -> None:
        self.app.copy_path(self.selected_member())

    def action_export(self) -> None:
        self.app.open_export(list(self.table.families), self.k, self.mode)

    def action_toggle_watch(self) -> None:
        self.app.toggle_watch()

    def action_rescan(self) -> None:
        self.app.start_scan()

    def action_show_skipped(self) -> None:
        self.app.open_skipped()

    def action_switch_pipeline(self) -> None:
        self.app.switch_pipeline()
