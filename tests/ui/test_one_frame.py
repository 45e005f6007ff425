"""A key that asks for a new view is answered in one frame, and only what changed is redrawn.

- The detail pane keeps a family that a k step did not change (another object with the
  same members): the member list and the preview are not rebuilt; a family that did
  change is rebuilt.
- Frames wait (briefly) for the view a key asked for: the k slider, the list, the members
  and the preview change in one frame.
- Typing in the filter box lays out nothing and shows the character with its list; when
  the list starts or stops filling the pane, its scrollbar comes or goes in the same frame
  (one layout, the list drawn once).
- The excerpts of the first rows at k−1 and k+1 are read once those listings exist, so
  the first k step after the app settles is drawn once, complete; rows shown without
  their excerpt hold the frame until those are read (briefly).
- The view builder: notes and identities of a listing computed once, not per view.
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from textual.screen import Screen

from ditto_tui.core.families.clusters import Family
from ditto_tui.core.families.listing import FamilyListing
from ditto_tui.core.families.notes import family_note
from ditto_tui.corpus.documents import Document
from ditto_tui.explore import MemorySource, listings
from ditto_tui.explore import writer as writer_module
from ditto_tui.explore.view import ViewRequest, build_view, family_notes, filter_families
from ditto_tui.ui.app import DittoApp
from ditto_tui.ui.screens.main import MainScreen, frame_pacing
from ditto_tui.ui.widgets import detail_pane
from ditto_tui.ui.widgets.family_table import FamilyTable
from ditto_tui.ui.widgets.member_table import MemberTable
from ditto_tui.ui.widgets.preview import Preview
from tests.properties import examples
from tests.ui.conftest import wait_for

FAR = (1 << 64) - 1


def corpus() -> dict[str, int]:
    """Family A (a1, a2: 1 bit apart) is the same at every k from 1 to 8; family B (b1, b2)
    gains b3 (4 bits from b1) at k=4. The two families are far apart."""
    a = 0
    b = FAR ^ 0xFFFF_0000  # 48 bits from a
    return {
        "a1.txt": a,
        "a2.txt": a ^ 1,
        "b1.txt": b,
        "b2.txt": b ^ 1,
        "b3.txt": b ^ 0b1111_0000,
        "c.txt": 0x5555_5555_5555_5555,  # alone
    }


def make_app(k: int = 3) -> DittoApp:
    texts = {doc: f"text of {doc}" for doc in corpus()}
    return DittoApp(MemorySource(corpus(), texts=texts), watch=False, max_k=8, k=k)


async def quiet(pilot: Any) -> None:
    app = pilot.app
    await wait_for(
        pilot,
        lambda: not app.scanning
        and app.main_screen.view_current()
        and all(w.is_finished for w in app.workers),
    )
    for _ in range(3):
        await pilot.pause()


class Counts:
    """How often the member table is filled and a preview is read."""

    def __init__(self, screen: MainScreen) -> None:
        self.shows = 0
        self.previews = 0
        table = screen.query_one(MemberTable)
        preview = screen.query_one(Preview)
        original_show = table.show
        original_read = preview.read

        def show(*args: Any, **kwargs: Any) -> Any:
            self.shows += 1
            return original_show(*args, **kwargs)

        def load(*args: Any, **kwargs: Any) -> Any:
            self.previews += 1
            return original_read(*args, **kwargs)

        table.show = show  # type: ignore[method-assign]
        preview.read = load  # type: ignore[method-assign]


async def select_family_of(pilot: Any, doc: str) -> None:
    screen = pilot.app.main_screen
    table = screen.table
    row = next(i for i, f in enumerate(table.rows) if doc in f.members)
    table.focus()
    if row == table.cursor_row:  # picked by the user: away and back
        await pilot.press("down" if row == 0 else "up")
    while table.cursor_row != row:
        await pilot.press("down" if table.cursor_row < row else "up")
    await quiet(pilot)
    assert screen.chosen
    assert doc in screen.detail.family.members


async def test_a_k_step_that_keeps_the_selected_family_rebuilds_no_member_list() -> None:
    app = make_app(k=3)
    async with app.run_test(size=(120, 40)) as pilot:
        await quiet(pilot)
        screen = app.main_screen
        await select_family_of(pilot, "a1.txt")
        counts = Counts(screen)
        before = screen.detail.family
        await pilot.press("right_square_bracket")
        await quiet(pilot)
        assert screen.k == 4 and screen.view is not None and screen.view.request.k == 4
        now = screen.table.selected
        assert now is not None and set(now.members) == {"a1.txt", "a2.txt"}
        assert (counts.shows, counts.previews) == (0, 0)  # nothing rebuilt, nothing read
        assert screen.detail.family is before
        assert [m.id for m in screen.member_table.rows] == ["a1.txt", "a2.txt"]
        assert screen.detail.previewed in {"a1.txt", "a2.txt"}

        # family B changes at k=4: going there and back rebuilds its members
        await pilot.press("left_square_bracket")
        await quiet(pilot)
        await select_family_of(pilot, "b1.txt")
        counts = Counts(screen)
        await pilot.press("right_square_bracket")
        await quiet(pilot)
        assert counts.shows >= 1
        assert {m.id for m in screen.member_table.rows} == {"b1.txt", "b2.txt", "b3.txt"}
        assert screen.detail.family is screen.table.selected


async def test_a_k_step_draws_slider_list_and_members_in_one_frame() -> None:
    app = make_app(k=3)
    async with app.run_test(size=(120, 40)) as pilot:
        await quiet(pilot)
        screen = app.main_screen
        await select_family_of(pilot, "b1.txt")
        frames: list[set[str]] = []
        original = Screen._compositor_refresh

        def counted(self: Screen) -> None:
            frames.append({type(w).__name__ for w in self._dirty_widgets})
            original(self)

        Screen._compositor_refresh = counted  # type: ignore[method-assign]
        try:
            await pilot.press("right_square_bracket")
            await quiet(pilot)
            await asyncio.sleep(0.1)
            await pilot.pause()
        finally:
            Screen._compositor_refresh = original  # type: ignore[method-assign]
        assert screen.view is not None and screen.view.request.k == 4
        first = next(i for i, f in enumerate(frames) if f)
        # the slider did not get a frame of its own before the families of its k
        assert {"KSlider", "FamilyTable", "MemberTable"} <= frames[first], frames


async def test_a_preview_of_another_length_lays_the_screen_out_not_again() -> None:
    """Moving to a family whose preview has another number of lines (both longer than
    the pane) redraws the preview and its scroll bar, without a layout of the screen."""
    texts = {doc: f"text of {doc}" for doc in corpus()}
    texts["a1.txt"] = "\n".join(f"line {i} of a1" for i in range(60))
    texts["b1.txt"] = "\n".join(f"line {i} of b1" for i in range(90))
    app = DittoApp(MemorySource(corpus(), texts=texts), watch=False, max_k=8, k=3)
    async with app.run_test(size=(120, 40)) as pilot:
        await quiet(pilot)
        screen = app.main_screen
        preview = screen.query_one(Preview)
        await select_family_of(pilot, "a1.txt")
        await wait_for(pilot, lambda: preview.row_count == 60)
        with Frames() as frames:
            await select_family_of(pilot, "b1.txt")
            await wait_for(pilot, lambda: preview.row_count == 90)
            await quiet(pilot)
        assert preview.virtual_size.height == 90
        assert preview.max_scroll_y == 90 - preview.scrollable_content_region.height
        assert frames.of("Preview") >= 1
        assert frames.layouts == 0


async def test_a_held_key_builds_large_member_lists_once_keys_settle(monkeypatch: Any) -> None:
    """Between the repeats of a held key nothing is built for a family that the next
    repeat replaces: a large family's rows (a worker) wait until no key waits for its
    frame, then are built and shown."""
    monkeypatch.setattr(detail_pane, "INLINE_MEMBERS", 0)  # every family: a worker
    settled_at_build: list[bool] = []
    original = detail_pane.member_rows

    def rows(*args: Any, **kwargs: Any) -> Any:
        settled_at_build.append(not app.main_screen.pacer.urgent)
        return original(*args, **kwargs)

    monkeypatch.setattr(detail_pane, "member_rows", rows)
    app = make_app(k=3)
    async with app.run_test(size=(120, 40)) as pilot:
        await quiet(pilot)
        screen = app.main_screen
        await select_family_of(pilot, "b1.txt")
        settled_at_build.clear()
        await pilot.press("right_square_bracket")  # b3 joins b1's family at k=4
        assert screen.pacer.urgent
        # meanwhile the old rows are dimmed, and the border says the family is listed
        table = screen.member_table
        assert table.outdated and "listing 3 members" in str(table.border_subtitle)
        await wait_for(pilot, lambda: not screen.pacer.urgent)
        await quiet(pilot)
        assert settled_at_build and all(settled_at_build)
        assert {m.id for m in table.rows} == {"b1.txt", "b2.txt", "b3.txt"}
        assert not table.outdated and "listing" not in str(table.border_subtitle)


async def test_frames_resume_when_the_view_is_late() -> None:
    app = make_app(k=3)
    async with app.run_test(size=(120, 40)) as pilot:
        await quiet(pilot)
        screen = app.main_screen
        screen.explorer.request_view = lambda request: None  # type: ignore[method-assign]
        screen.k = 5  # a view that never comes
        assert app._batch_count == 1  # frames wait for it...
        await asyncio.sleep(0.15)
        await pilot.pause()
        assert app._batch_count == 0  # ...but not for long
        assert screen.families_pane.border_subtitle == "clustering…"


async def test_typing_in_the_filter_lays_out_nothing() -> None:
    app = make_app(k=3)
    async with app.run_test(size=(120, 40)) as pilot:
        await quiet(pilot)
        screen = app.main_screen
        await pilot.press("slash")
        await quiet(pilot)
        layouts = 0
        original = Screen._refresh_layout

        def counted(self: Screen, *args: Any, **kwargs: Any) -> None:
            nonlocal layouts
            layouts += 1
            original(self, *args, **kwargs)

        Screen._refresh_layout = counted  # type: ignore[method-assign]
        try:
            for key in "a1":
                await pilot.press(key)
                await quiet(pilot)
        finally:
            Screen._refresh_layout = original  # type: ignore[method-assign]
        assert screen.pattern == "a1"
        assert [set(f.members) for f in screen.table.rows] == [{"a1.txt", "a2.txt"}]
        assert layouts == 0


class Frames:
    """The widgets drawn in each frame, and the screen layouts, while it is open."""

    def __init__(self) -> None:
        self.drawn: list[set[str]] = []
        self.layouts = 0

    def __enter__(self) -> Frames:
        self._refresh = original_refresh = Screen._compositor_refresh
        self._layout = original_layout = Screen._refresh_layout
        frames = self

        def refresh(screen: Screen) -> None:
            frames.drawn.append({type(w).__name__ for w in screen._dirty_widgets})
            original_refresh(screen)

        def layout(screen: Screen, *args: Any, **kwargs: Any) -> None:
            frames.layouts += 1
            original_layout(screen, *args, **kwargs)

        Screen._compositor_refresh = refresh  # type: ignore[method-assign]
        Screen._refresh_layout = layout  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        Screen._compositor_refresh = self._refresh  # type: ignore[method-assign]
        Screen._refresh_layout = self._layout  # type: ignore[method-assign]

    def of(self, name: str) -> int:
        return sum(1 for frame in self.drawn if name in frame)


async def test_filtering_draws_the_list_once_and_the_pane_only_when_it_changes() -> None:
    # 50 families of two (far apart): more rows than the pane holds at 120x40
    bases = [(i * 0x9E37_79B9_7F4A_7C15) & FAR for i in range(1, 51)]
    fps = {}
    for i, base in enumerate(bases):
        fps[f"x{i:02d}a.txt"] = base
        fps[f"x{i:02d}b.txt"] = base ^ 1
    app = DittoApp(MemorySource(fps), watch=False, max_k=3, k=2)
    async with app.run_test(size=(120, 40)) as pilot:
        await quiet(pilot)
        screen = app.main_screen
        table = screen.query_one(FamilyTable)
        assert len(table.rows) == 50 and table.show_vertical_scrollbar
        await pilot.press("slash")
        await quiet(pilot)
        with Frames() as frames:  # every family matches: the pane's title stays
            await pilot.press("x")
            await quiet(pilot)
        assert screen.view is not None and screen.view.request.pattern == "x"
        assert frames.of("FamilyTable") == 1
        assert frames.of("FamiliesPane") == 0, frames.drawn  # (its border is not redrawn)
        with Frames() as frames:  # 10 families left: the scrollbar goes
            await pilot.press("0")
            await quiet(pilot)
            await asyncio.sleep(0.1)
            await pilot.pause()
        assert len(table.rows) == 10 and not table.show_vertical_scrollbar
        assert frames.layouts == 1
        assert frames.of("FamilyTable") == 1, frames.drawn
        with Frames() as frames:  # and comes back
            await pilot.press("backspace")
            await quiet(pilot)
            await asyncio.sleep(0.1)
            await pilot.pause()
        assert len(table.rows) == 50 and table.show_vertical_scrollbar
        assert frames.layouts == 1
        assert frames.of("FamilyTable") == 1, frames.drawn


async def test_the_first_k_step_finds_its_excerpts_read(monkeypatch: Any) -> None:
    # the other k are computed ahead only once the list at k=3 is on screen (as when a
    # large corpus settles): their first rows' excerpts cannot be read with that view
    monkeypatch.setattr(listings, "WARM_AFTER", 0.0)
    warming = threading.Event()
    warm_one = writer_module.IndexWriter._warm_one

    def warm_when_allowed(self: Any) -> None:
        if warming.is_set():
            warm_one(self)
        else:
            time.sleep(0.01)

    monkeypatch.setattr(writer_module.IndexWriter, "_warm_one", warm_when_allowed)
    d = 0x0F0F_0F0F_0F0F_0F0F
    fps = corpus() | {"d1.txt": d, "d2.txt": d ^ 0b1111}  # a family from k=4 only
    texts = {doc: f"text of {doc}" for doc in fps}
    app = DittoApp(MemorySource(fps, texts=texts), watch=False, max_k=8, k=3)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.main_screen
        await quiet(pilot)
        assert app.snapshot.listing(4, "chain") is None
        warming.set()
        await wait_for(
            pilot,
            lambda: all(app.snapshot.listing(k, "chain") is not None for k in range(9)),
        )
        await quiet(pilot)
        assert not any("d1.txt" in f.members for f in screen.table.rows)
        loads = 0
        original = screen.excerpt_reader.load

        def counted(*args: Any) -> Any:
            nonlocal loads
            loads += 1
            return original(*args)

        screen.excerpt_reader.load = counted  # type: ignore[method-assign]
        await pilot.press("right_square_bracket")
        await wait_for(pilot, lambda: screen.view_current() and screen.k == 4)
        row = next(i for i, f in enumerate(screen.table.rows) if "d1.txt" in f.members)
        # on screen with its excerpt from the start: nothing was left to read
        assert screen.table.cell_text(row, "excerpt") == "text of d1.txt"
        assert loads == 0


class SlowSource(MemorySource):
    """A corpus whose files take 5 ms each to read."""

    def read_text(self, id: str, *, limit: int | None = None) -> str:
        time.sleep(0.005)
        return super().read_text(id, limit=limit)


async def test_a_filter_showing_unread_rows_draws_them_once_with_their_excerpts(
    monkeypatch: Any,
) -> None:
    monkeypatch.setattr(frame_pacing, "HOLD_FRAMES_S", 1.0)  # (a loaded machine is slow)
    bases = [(i * 0x9E37_79B9_7F4A_7C15) & FAR for i in range(1, 261)]
    fps = {}
    for i, base in enumerate(bases):  # 260 families: the first 200 rows are read ahead
        fps[f"x{i:03d}a.txt"] = base
        fps[f"x{i:03d}b.txt"] = base ^ 1
    texts = {doc: f"text of {doc}" for doc in fps}
    app = DittoApp(SlowSource(fps, texts=texts), watch=False, max_k=3, k=2)
    async with app.run_test(size=(120, 40)) as pilot:
        await quiet(pilot)
        screen = app.main_screen
        await pilot.press("slash", "x")
        await quiet(pilot)
        assert "x250a.txt" not in screen.excerpt_reader.excerpts
        with Frames() as frames:  # x200 to x259: rows never read
            await pilot.press("2")
            await quiet(pilot)
            await asyncio.sleep(0.1)
            await pilot.pause()
        table = screen.table
        assert len(table.rows) == 60
        assert table.cell_text(0, "excerpt") == "text of x200a.txt"
        assert frames.of("FamilyTable") == 1, frames.drawn  # the rows and their excerpts


def fam(members: list[str], diameter: int, exact: bool = True) -> Family:
    members = sorted(members)
    return Family(tuple(members), members[0], diameter, exact)


@settings(max_examples=examples(60), deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(2, 5), st.integers(0, 20), st.booleans(), st.booleans()),
        min_size=1,
        max_size=12,
    ),
    st.integers(0, 8),
    st.sampled_from(["chain", "star"]),
)
def test_view_notes_equal_the_rule(
    shapes: list[tuple[int, int, bool, bool]], k: int, mode: str
) -> None:
    families = []
    documents: dict[str, Any] = {}

    class Doc:
        def __init__(self, size: int) -> None:
            self.size = size
            self.mtime_ns = 0

    for index, (size, diameter, empty, exact) in enumerate(shapes):
        members = [f"f{index}/m{j}" for j in range(size)]
        for m in members:
            documents[m] = Doc(0 if empty else 10)
        # empty files all have one fingerprint: such a family has diameter 0
        families.append(fam(members, 0 if empty else diameter, exact or empty))
    request = ViewRequest(k=k, mode=mode)
    want = {}
    for f in families:
        note = family_note(f, k=k, mode=mode, sizes=[documents[m].size for m in f.members])
        if note is not None:
            want[f.centre] = note
    assert family_notes(families, request, documents) == want


def test_a_filter_view_carries_identities_and_shares_the_listing() -> None:
    multi = [fam([f"d{i}/a", f"d{i}/b"], 1) for i in range(30)]
    listing = FamilyListing(multi, ["x/single"])
    documents: dict[str, Any] = {
        m: Document(m, "/" + m, "text", 10, 0, 0) for f in multi for m in f.members
    }
    first = build_view(listing, ViewRequest(k=3), documents, generation=1, epoch=1, total=61)
    assert first.families is listing.multi  # every family: the listing's own tuple
    ident = dict(zip((f.centre for f in first.families), first.identity, strict=True))
    previous = first
    for pattern in ["d1", "d1/", "d", "", "d2", "zz", "d1"]:
        view = build_view(
            listing, ViewRequest(k=3, pattern=pattern), documents, generation=1, epoch=1,
            total=61, previous=previous,
        )
        assert list(view.families) == filter_families(listing, pattern, singletons=False)
        assert [ident[f.centre] for f in view.families] == list(view.identity)
        assert view.shown_multi == len(view.families)
        previous = view


async def test_excerpts_arriving_while_the_app_closes_are_dropped() -> None:
    app = make_app(k=3)
    async with app.run_test(size=(120, 40)) as pilot:
        await quiet(pilot)
        screen = app.main_screen
        await screen.table.remove()  # as when the app tears its widgets down
        screen.listing_warmed(4, "chain")  # a listing computed ahead meanwhile
        screen.excerpt_reader.set_excerpts([("a1.txt", "late")])  # and a read that ends then
        await pilot.pause()


class _Unreadable(MemorySource):
    """A corpus whose documents cannot be read (gone from disk, or a Spark run's results
    opened on another machine)."""

    def read_text(self, id: str, *, limit: int | None = None) -> str:
        raise OSError(f"{id}: not readable here")


async def test_a_k_step_over_unreadable_rows_is_drawn_without_waiting(monkeypatch: Any) -> None:
    """Rows shown without their excerpt hold a key's frame until the excerpts are read;
    rows that cannot be read end that wait as read ones do (blank), not at the hold's
    time limit (50 ms a key, every key, when the whole corpus is unreadable)."""
    monkeypatch.setattr(frame_pacing, "HOLD_FRAMES_S", 60.0)  # only the rows can end it
    app = DittoApp(_Unreadable(corpus()), watch=False, max_k=8, k=3)
    async with app.run_test(size=(120, 40)) as pilot:
        await quiet(pilot)
        screen = app.main_screen
        await pilot.press("right_square_bracket")
        await wait_for(pilot, lambda: screen.view is not None and screen.view.request.k == 4)
        assert screen.pacer.holding or app._batch_count == 0
        await wait_for(pilot, lambda: app._batch_count == 0, timeout=5)
        assert not screen.pacer.holding
        assert screen.families_pane.border_subtitle != "clustering…"
