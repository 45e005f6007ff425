"""A user compares documents: marked pairs, any pair via the picker, and neighbours."""

from __future__ import annotations

from ditto_tui.ui.screens.compare import CompareScreen
from ditto_tui.ui.screens.main import MainScreen
from ditto_tui.ui.screens.neighbours import NeighboursScreen
from ditto_tui.ui.screens.picker import DocumentPicker, fuzzy_rank
from ditto_tui.ui.widgets.bit_diff import BitDiff, agreeing_blocks, block_ranges
from ditto_tui.ui.widgets.member_table import MemberTable
from ditto_tui.ui.widgets.side_by_side import SideBySideDiff

from .conftest import settle

LETTER = "letters/heating-complaint.txt"
LETTER2 = "letters/heating-complaint-v2.txt"


async def open_letters(pilot) -> MainScreen:
    screen = pilot.app.main_screen
    await pilot.press("/", *"heating", "enter")
    await settle(pilot)
    screen.query_one(MemberTable).focus()
    return screen


async def test_mark_two_members_then_compare(corpus_dir, make_app):
    app = make_app(corpus_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = await open_letters(pilot)
        await pilot.press("space", "down", "space")
        assert len(screen.marked) == 2
        await pilot.press("c")
        await settle(pilot)
        assert isinstance(app.screen, CompareScreen)
        bits = app.screen.query_one(BitDiff)
        assert (
            bits.distance
            == (app.snapshot.fingerprint(LETTER) ^ app.snapshot.fingerprint(LETTER2)).bit_count()
        )
        assert bits.distance == 2
        diff = app.screen.query_one(SideBySideDiff).diff
        assert diff is not None
        assert (diff.inserted, diff.deleted, diff.changed) == (0, 0, 2)
        assert len(diff.hunks) == 2


async def test_next_and_previous_change_in_the_diff(corpus_dir, make_app):
    app = make_app(corpus_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_letters(pilot)
        await pilot.press("c")  # a two-member family compares without marks
        await settle(pilot)
        view = app.screen.query_one(SideBySideDiff)
        assert view.current_hunk == -1
        await pilot.press("n")
        assert view.current_hunk == 0
        await pilot.press("n")
        assert view.current_hunk == 1
        await pilot.press("n")  # no further change: stays
        assert view.current_hunk == 1
        await pilot.press("p")
        assert view.current_hunk == 0
        row = view.diff.rows[view.diff.hunks[0].start]
        assert row.kind == "changed"
        left, right = view.diff.spans(view.diff.hunks[0].start)
        assert app.screen.left == LETTER2  # family members in code-point order
        assert view.diff.a[row.left][left[0][0] : left[0][1]] == "1st"
        assert view.diff.b[row.right][right[0][0] : right[0][1]] == "first"
        await pilot.press("s")
        await settle(pilot)
        assert app.screen.left == LETTER
        await pilot.press("b")
        assert not app.screen.query_one(BitDiff).display
        await pilot.press("escape")
        assert app.screen is app.main_screen


async def test_compare_with_any_document_through_the_picker(corpus_dir, make_app):
    app = make_app(corpus_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_letters(pilot)
        origin = app.main_screen.selected_member()
        await pilot.press("a")
        assert isinstance(app.screen, DocumentPicker)
        await pilot.press(*"lentil")
        assert app.screen.shown_ids == ["recipes/lentil-soup.txt"]
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, CompareScreen)
        assert (app.screen.left, app.screen.right) == (origin, "recipes/lentil-soup.txt")


async def test_neighbours_lists_documents_within_k_and_compares(corpus_dir, make_app):
    app = make_app(corpus_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("/", *"tidewell-2.0.txt", "enter", "1")
        await settle(pilot)
        assert app.main_screen.selected_member() == "press/tidewell-2.0.txt"
        await pilot.press("n")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, NeighboursScreen)
        assert [m.id for m in screen.matches] == ["press/tidewell-2.0.txt"]  # alone at k=3
        await pilot.press("]", "]")  # k=5: the final, fr-notes and draft versions are near
        await settle(pilot)  # (the lookup runs in a worker: on a loaded machine k=4's came first)
        ids = [m.id for m in screen.matches]
        assert ids[0] == "press/tidewell-2.0.txt"
        assert set(ids) == {
            "press/tidewell-2.0.txt",
            "press/tidewell-2.0-final.txt",
            "press/tidewell-2.0-fr-notes.txt",
            "press/tidewell-2.0-draft.txt",
        }
        distances = [m.distance for m in screen.matches]
        assert distances == sorted(distances)
        assert screen.selected() != "press/tidewell-2.0.txt"
        picked = screen.selected()
        await pilot.press("c")
        await settle(pilot)
        assert isinstance(app.screen, CompareScreen)
        assert (app.screen.left, app.screen.right) == ("press/tidewell-2.0.txt", picked)


def test_fuzzy_rank_prefers_contiguous_matches_in_the_name():
    ids = ["a/lentil-soup.txt", "l/e/n/t/i/l.txt", "lentils/x.txt", "other.txt"]
    assert fuzzy_rank("lentil", ids)[:2] == ["a/lentil-soup.txt", "lentils/x.txt"]
    assert "other.txt" not in fuzzy_rank("lentil", ids)
    assert fuzzy_rank("", ids) == ids


def test_index_blocks_cover_the_64_bits():
    for k in range(0, 12):
        ranges = block_ranges(k)
        assert len(ranges) == k + 1
        assert ranges[0][0] == 0 and ranges[-1][1] == 64
        assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:], strict=False))
    assert agreeing_blocks(0, 1, 8) == [False] + [True] * 8
    assert agreeing_blocks(0, 1 << 63, 8) == [True] * 8 + [False]


async def test_one_megabyte_documents_compare_without_freezing(tmp_path, make_app):
    root = tmp_path / "big"
    root.mkdir()
    lines = [
        f"line {i}: the harbour master logged tide {i % 97} and wind {i % 13}" for i in range(18000)
    ]
    (root / "a.txt").write_text("\n".join(lines), encoding="utf-8")
    lines[100] = "line 100: CHANGED"
    lines[15000] = "line 15000: CHANGED TOO"
    (root / "b.txt").write_text("\n".join(lines), encoding="utf-8")
    assert (root / "a.txt").stat().st_size > 1_000_000
    app = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.main_screen.open_compare("a.txt", "b.txt")
        await pilot.pause()
        assert isinstance(app.screen, CompareScreen)
        await settle(pilot, timeout=30)
        view = app.screen.query_one(SideBySideDiff)
        assert view.diff is not None and view.diff.changed == 2 and len(view.diff.hunks) == 2
        await pilot.press("n", "n")
        assert view.current_hunk == 1
        assert view.diff.rows[view.diff.hunks[1].start].left == 15000
        assert "CHANGED TOO" in "\n".join(view.render_line(y).text for y in range(view.size.height))


async def test_swap_turns_the_computed_diff_round_without_computing_it_again(
    corpus_dir, make_app, monkeypatch
):
    computed: list[tuple[str, str]] = []
    original = CompareScreen.compute

    def counting(self, left, right, source):
        computed.append((left, right))
        return original(self, left, right, source)

    monkeypatch.setattr(CompareScreen, "compute", counting)
    app = make_app(corpus_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_letters(pilot)
        await pilot.press("c")
        await settle(pilot)
        screen = app.screen
        view = screen.query_one(SideBySideDiff)
        await pilot.press("n")
        before = view.diff
        assert before is not None and len(computed) == 1
        await pilot.press("s")
        summary = screen.query_one("#diff-summary").text.plain
        assert "computing" not in summary  # no blank diff while it turns round
        await settle(pilot)
        after = view.diff
        assert len(computed) == 1  # nothing read or diffed again
        assert (after.a, after.b) == (before.b, before.a)
        assert (screen.left, screen.right) == (computed[0][1], computed[0][0])
        assert view.current_hunk == 0  # the place in the diff is kept
        assert "change 1/2" in screen.query_one("#diff-summary").text.plain
