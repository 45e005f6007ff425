"""The family list does not jump under the reader: a live change keeps the selected family
on its screen row, while the order around it is the true one at once."""

from __future__ import annotations

import random

from ditto_tui.explore import MemorySource
from ditto_tui.ui.app import DittoApp
from ditto_tui.ui.widgets.family_table import FamilyTable

from .conftest import settle, wait_for


def corpus(families: int) -> dict[str, int]:
    rng = random.Random(7)
    fps: dict[str, int] = {}
    for f in range(families):
        base = rng.getrandbits(64)
        fps[f"f{f:03d}/a.txt"] = base
        fps[f"f{f:03d}/b.txt"] = base ^ 1
    return fps


async def test_a_live_change_keeps_the_selected_family_on_its_screen_row():
    fps = corpus(80)
    source = MemorySource(fps)
    app = DittoApp(source, root="memory", watch=True, k=3)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        table = app.main_screen.query_one(FamilyTable)
        table.focus()
        await pilot.press(*["down"] * 40, *["up"] * 10)  # scrolled, the cursor mid-screen
        await settle(pilot)
        selected = table.selected
        assert selected is not None
        screen_row = table.cursor_row - int(table.scroll_offset.y)
        top = int(table.scroll_offset.y)
        assert top > 0 and 5 < screen_row < table.size.height - 8
        # two families further down grow to three members: they sort above the selection
        rows = {f.centre.split("/")[0]: i for i, f in enumerate(table.families)}
        below = sorted((name for name, i in rows.items() if i > table.cursor_row + 5))[:2]
        source.write({f"{name}/c.txt": fps[f"{name}/a.txt"] ^ 2 for name in below})
        await wait_for(pilot, lambda: table.families[0].size == 3 and table.families[1].size == 3)
        await settle(pilot)
        assert table.selected is not None and table.selected.members == selected.members
        assert table.cursor_row - int(table.scroll_offset.y) == screen_row  # did not move
        assert int(table.scroll_offset.y) == top + 2  # the list moved under it instead
        assert [f.size for f in table.families[:3]] == [3, 3, 2]  # the true order at once


async def test_before_the_user_picks_a_family_the_cursor_stays_on_the_first_row():
    rng = random.Random(3)
    fps: dict[str, int] = {}
    small, big = rng.getrandbits(64), rng.getrandbits(64)
    fps["a/1.txt"], fps["a/2.txt"] = small, small ^ 1  # found first, ends up second
    for i in range(60):
        fps[f"pad/{i:02d}.txt"] = rng.getrandbits(64)
    for i in range(6):
        fps[f"z/{i}.txt"] = big ^ (1 << i)  # found last, the largest family
    source = MemorySource(fps, batch=16, delay=0.3)
    app = DittoApp(source, root="memory", watch=False, k=3)
    async with app.run_test(size=(120, 30)) as pilot:
        table = app.main_screen.query_one(FamilyTable)
        await wait_for(pilot, lambda: bool(table.families) and table.families[0].centre.startswith("a/"))
        await settle(pilot, timeout=30)
        assert [f.size for f in table.families] == [6, 2]
        assert table.cursor_row == 0 and table.selected.centre.startswith("z/")
        assert app.main_screen.selected_member().startswith("z/")
        assert app.main_screen.member_table.cursor_row == 0
        # once the user has picked a family and a member, they are followed (here through k)
        await pilot.press("down")
        assert table.selected.centre.startswith("a/")
        app.main_screen.member_table.focus()
        await pilot.press("down")
        picked = app.main_screen.selected_member()
        await pilot.press("]")
        await settle(pilot)
        assert app.main_screen.selected_member() == picked


async def test_before_the_user_picks_a_member_the_member_cursor_stays_on_the_first_row():
    rng = random.Random(4)
    big = rng.getrandbits(64)
    fps: dict[str, int] = {}
    # found first, a pair of their own for a while: the last rows of their family in the end
    fps["z/far.txt"], fps["z/far2.txt"] = big ^ 0b111, big ^ 0b111 ^ (1 << 20)
    for i in range(60):
        fps[f"pad/{i:02d}.txt"] = rng.getrandbits(64)
    for i in range(6):
        fps[f"z/{i}.txt"] = big ^ (1 << i)
    source = MemorySource(fps, batch=8, delay=0.5)  # the pair stays alone for seconds
    app = DittoApp(source, root="memory", watch=False, k=3)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = app.main_screen
        await wait_for(
            pilot, lambda: (screen.selected_member() or "").startswith("z/far"), timeout=30
        )
        await settle(pilot, timeout=30)
        members = screen.member_table
        assert len(members.members) == 8
        assert members.cursor_row == 0  # not held by the member that was first
        assert screen.selected_member() not in ("z/far.txt", "z/far2.txt")
