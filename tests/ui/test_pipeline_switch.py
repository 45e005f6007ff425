"""Switching pipeline with p: ditto text <-> html structure, re-indexed from the cache."""

from __future__ import annotations

from pathlib import Path

import pytest

import ditto_tui.corpus.scan as scan_mod
from ditto_tui.core.fingerprint.pipeline import make_pipeline
from ditto_tui.corpus.session import CorpusSession
from ditto_tui.ui.app import DittoApp
from ditto_tui.ui.screens.help import help_sections
from ditto_tui.ui.widgets.family_table import FamilyTable
from ditto_tui.ui.widgets.k_slider import KSlider

from .conftest import settle, wait_for

TEXT = "Dear landlord, the heating in flat 4 has not worked since Monday. " * 12
PAGE = (
    "<html><head><title>{t}</title></head><body><div class='nav'><a href='/'>home</a></div>"
    "<div class='main'><h1>{t}</h1><p>one</p><p>two</p><ul><li>a</li><li>b</li></ul></div>"
    "</body></html>"
)
FORM = "<html><body><form><input name='q'><select><option>x</option></select></form></body></html>"
HTML_IDS = {"site/news.html", "site/news-copy.htm", "site/search.xhtml"}
TEXT_IDS = {"notes/letter.txt", "notes/letter-v2.txt", "readme.txt"}
DITTO = "ditto/2;char=4;word=0"
HTML = "html-distance/1;shingle=3"


@pytest.fixture
def reads(monkeypatch) -> list[tuple[str, str]]:
    """(pipeline name, file id) of every file read and fingerprinted."""
    seen: list[tuple[str, str]] = []
    real = scan_mod.fingerprint_file

    def counting(pipeline, entry, *args, **kwargs):
        seen.append((pipeline.name, entry.id))
        return real(pipeline, entry, *args, **kwargs)

    monkeypatch.setattr(scan_mod, "fingerprint_file", counting)
    return seen


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture
def mixed(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    write(root, "notes/letter.txt", TEXT)
    write(root, "notes/letter-v2.txt", TEXT.replace("Monday", "Tuesday"))
    write(root, "readme.txt", "An unrelated note about something else entirely. " * 10)
    write(root, "site/news.html", PAGE.format(t="News"))
    write(root, "site/news-copy.htm", PAGE.format(t="News, again"))
    write(root, "site/search.xhtml", FORM)
    return root


def status(app: DittoApp) -> str:
    return app.main_screen.query_one("#status").render_status().plain


def family_members(app: DittoApp) -> set[str]:
    return {m for f in app.main_screen.all_families for m in f.members}


async def switch(pilot) -> None:
    await pilot.press("p")
    await settle(pilot)
    assert not pilot.app.scanning


async def test_switch_to_html_and_back_reads_from_the_cache(mixed, tmp_path, reads):
    first = CorpusSession(mixed, make_pipeline(), cache=tmp_path / "cache" / "c.sqlite", jobs=1)
    app = DittoApp(first, root="corpus", watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert set(app.snapshot.fingerprints) == TEXT_IDS | HTML_IDS
        assert DITTO in status(app)
        await pilot.press("]", "g", "1")  # k=4, star, singletons: all carried over
        await settle(pilot)

        await switch(pilot)
        html_session = app.session
        assert html_session is not first and html_session.pipeline.identity == HTML
        assert set(app.snapshot.fingerprints) == set(html_session.documents) == HTML_IDS
        assert family_members(app) == HTML_IDS
        assert {s.id for s in html_session.skipped} >= TEXT_IDS
        assert HTML in status(app) and "3 docs · 3 skipped" in status(app)
        screen = app.main_screen
        assert (screen.k, screen.mode, screen.singletons) == (4, "star", True)
        assert screen.query_one(KSlider).value == 4
        assert "k=4" in status(app) and "star" in status(app)
        assert first.watch_state == "off"
        assert sorted(reads) == sorted(
            [("ditto", i) for i in TEXT_IDS | HTML_IDS] + [("html", i) for i in HTML_IDS]
        )

        reads.clear()
        await switch(pilot)
        assert app.pipeline_identity == DITTO and DITTO in status(app)
        assert set(app.snapshot.fingerprints) == TEXT_IDS | HTML_IDS
        assert family_members(app) == TEXT_IDS | HTML_IDS
        assert {m.id for m in app.main_screen.member_table.members} <= TEXT_IDS | HTML_IDS
        assert reads == []  # every fingerprint came from the cache
        with pytest.raises(RuntimeError):  # the app closed the html session it had opened
            html_session.with_pipeline(make_pipeline("html"))

        await switch(pilot)
        assert app.pipeline_identity == HTML and set(app.snapshot.fingerprints) == HTML_IDS
        assert reads == []
        last = app.session
    with pytest.raises(RuntimeError):  # the app closes the sessions it created on exit
        last.with_pipeline(make_pipeline())
    first.with_pipeline(make_pipeline()).close()  # ... but never the one it was given
    first.close()


async def test_html_pipeline_without_pages_says_so(tmp_path):
    root = tmp_path / "corpus"
    write(root, "a.txt", TEXT)
    write(root, "b.txt", TEXT + " PS.")
    first = CorpusSession(root, make_pipeline(), cache=tmp_path / "c.sqlite", jobs=1)
    app = DittoApp(first, root="corpus", watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await switch(pilot)
        assert len(app.snapshot) == 0
        assert "0 docs · 2 skipped" in status(app) and HTML in status(app)
        table = app.main_screen.query_one(FamilyTable)
        assert list(table.families) == []
        assert f"No documents for {HTML}: 2 files skipped." in table.placeholder
        assert "The html pipeline does not read them." in table.placeholder
        assert "Press p to switch to the other pipeline." in table.placeholder
        await switch(pilot)
        assert set(app.snapshot.fingerprints) == {"a.txt", "b.txt"}
        assert "No documents" not in table.placeholder
    first.close()


async def test_switching_keeps_watching_and_the_shingle(mixed, tmp_path):
    first = CorpusSession(mixed, make_pipeline(), cache=tmp_path / "c.sqlite", jobs=1)
    pipelines = {"ditto": first.pipeline, "html": make_pipeline("html", shingle=2)}
    app = DittoApp(first, root="corpus", watch=True, pipelines=pipelines)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await wait_for(pilot, lambda: first.watch_state == "watching")
        await pilot.press("p")
        await wait_for(pilot, lambda: app.session is not first and not app.scanning)
        await wait_for(pilot, lambda: app.session.watch_state == "watching")
        assert first.watch_state == "off"
        assert app.pipeline_identity == "html-distance/1;shingle=2"
        # a page written now reaches the html index through the new watcher
        write(mixed, "site/late.html", FORM)
        await wait_for(pilot, lambda: "site/late.html" in app.snapshot)
        assert "site/late.html" not in first.documents
    first.close()


def test_the_binding_is_in_help_and_hidden_from_the_footer():
    rows = dict(help_sections()[0][1])
    assert rows["p"] == "re-index with the other pipeline: ditto <-> html"
    from ditto_tui.ui.screens.main import MainScreen

    binding = next(b for b in MainScreen.BINDINGS if b.action == "app.switch_pipeline")
    assert binding.key == "p" and not binding.show


async def test_a_long_root_gives_way_to_the_pipeline_identity(mixed, tmp_path):
    first = CorpusSession(mixed, make_pipeline(), cache=tmp_path / "c.sqlite", jobs=1)
    long_root = "/srv/archive/" + "deeply/nested/" * 6 + "corpus"
    app = DittoApp(first, root=long_root, watch=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await switch(pilot)
        line = status(app)
        assert line.startswith("ditto-tui …") and line.endswith(HTML)
        assert "/corpus  3 docs" in line and len(line) == 118  # the width less the padding
    first.close()
