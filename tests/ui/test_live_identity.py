"""Real files changing on disk: a rename keeps the selection and is reported as a rename;
deleting one member of a family reports that the family shrank."""

from __future__ import annotations

import os

from ditto_tui.ui.widgets.member_table import MemberTable

from .conftest import settle, wait_for


def notices(app) -> list[str]:
    return [n.message for n in app._notifications if n.title == "Corpus changed"]


async def open_press(pilot) -> list[str]:
    await pilot.press("/", *"tidewell", "enter")
    await settle(pilot)
    return [m.id for m in pilot.app.main_screen.query_one(MemberTable).members]


async def test_a_rename_keeps_the_selection_and_says_renamed(corpus_dir, make_app):
    app = make_app(corpus_dir, watch=True, k=6)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await wait_for(pilot, lambda: app.session.watch_state == "watching")
        ids = await open_press(pilot)
        assert len(ids) >= 3
        members = app.main_screen.query_one(MemberTable)
        members.focus()
        await pilot.press("down", "down")
        chosen = app.main_screen.selected_member()
        assert chosen == ids[2]
        new = chosen.replace(".txt", "-renamed.txt")
        os.rename(corpus_dir / chosen, corpus_dir / new)
        await wait_for(pilot, lambda: any(m.id == new for m in members.members))
        await settle(pilot)
        assert app.main_screen.selected_member() == new
        assert app.main_screen.previewed == new
        assert notices(app)[-1] == "1 renamed", notices(app)


async def test_deleting_one_member_says_the_family_shrank(corpus_dir, make_app):
    app = make_app(corpus_dir, watch=True, k=6)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await wait_for(pilot, lambda: app.session.watch_state == "watching")
        ids = await open_press(pilot)
        assert len(ids) >= 3
        os.remove(corpus_dir / ids[-1])
        members = app.main_screen.query_one(MemberTable)
        await wait_for(pilot, lambda: len(members.members) == len(ids) - 1)
        await settle(pilot)
        assert notices(app)[-1] == "1 removed, 1 family shrank", notices(app)
