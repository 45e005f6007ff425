"""Small things a user notices: k at its ends, a third mark, the empty-folder message."""

from __future__ import annotations

from types import SimpleNamespace

from ditto_tui.ui.screens.main.status import no_documents_message
from ditto_tui.ui.widgets.family_table import FamilyTable
from ditto_tui.ui.widgets.k_slider import KSlider
from ditto_tui.ui.widgets.member_table import MemberTable

from .conftest import settle

HTML = SimpleNamespace(name="html", identity="html/1")
DITTO = SimpleNamespace(name="ditto", identity="ditto/2")


def skip(reason: str) -> SimpleNamespace:
    return SimpleNamespace(id="x", path="x", reason=reason)


def test_the_no_documents_message_fits_the_situation():
    empty = no_documents_message([], pipeline=DITTO, can_switch=True)
    assert empty == "No documents for ditto/2: the folder holds no file."
    assert "p" not in empty.split(":")[1]  # no key suggested: none would help

    wrong = no_documents_message(
        [skip("not accepted by the html pipeline")] * 3, pipeline=HTML, can_switch=True
    )
    assert wrong.splitlines() == [
        "No documents for html/1: 3 files skipped.",
        "The html pipeline does not read them.",
        "Press p to switch to the other pipeline.",
        "Press ! to see the files and why.",
    ]
    assert "Press p" not in no_documents_message(
        [skip("not accepted by the html pipeline")], pipeline=HTML, can_switch=False
    )

    unreadable = no_documents_message(
        [skip("binary file"), skip("too large (9 GiB > 100 MiB)")], pipeline=DITTO, can_switch=True
    )
    assert unreadable.splitlines() == [
        "No documents for ditto/2: 2 files skipped.",
        "Press ! to see why each was skipped.",
    ]


async def test_an_empty_folder_says_so_without_a_wrong_key(tmp_path, make_app):
    (tmp_path / "empty").mkdir()
    app = make_app(tmp_path / "empty")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        table = app.main_screen.query_one(FamilyTable)
        assert table.placeholder.startswith("No documents for ditto/2")
        assert table.placeholder.endswith(": the folder holds no file.")


async def test_k_at_its_ends_rings_and_says_why(corpus_dir, make_app):
    app = make_app(corpus_dir, k=0)
    bells: list[int] = []
    app.bell = lambda: bells.append(1)  # type: ignore[method-assign]
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("[")
        assert app.main_screen.k == 0 and bells == [1]
        assert any("k is already 0" in n.message for n in app._notifications)
        slider = app.main_screen.query_one(KSlider)
        slider.value = slider.maximum
        await settle(pilot)
        await pilot.press("]")
        assert app.main_screen.k == slider.maximum and bells == [1, 1]
        assert any("already at its maximum, 8" in n.message for n in app._notifications)
        await pilot.press("[")
        assert app.main_screen.k == 7 and bells == [1, 1]


async def test_a_third_mark_says_which_one_it_replaced(corpus_dir, make_app):
    app = make_app(corpus_dir, k=6)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("/", *"press", "enter")
        await settle(pilot)
        screen = app.main_screen
        members = screen.query_one(MemberTable)
        members.focus()
        ids = [m.id for m in members.members]
        assert len(ids) >= 3
        await pilot.press("space", "down", "space", "down", "space")
        assert screen.marked == [ids[1], ids[2]]
        notice = next(n for n in app._notifications if n.title == "Mark replaced")
        assert notice.message == (
            f"Unmarked {ids[0]} (two marks at most); c compares {ids[1]} with {ids[2]}."
        )
