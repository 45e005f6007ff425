"""``ditto-tui serve`` in a real browser: Debian's headless chromium loads the page, the
app draws in it, keys typed in the page reach it; two tabs decide into one review store;
a read-only server refuses decisions. Skipped without chromium unless
``DITTO_TUI_REQUIRE_BROWSER=1`` (CI)."""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path

import pytest

import ditto_tui as dt
from tests.report.chromium import chromium_or_skip
from tests.serve.browser import Page, chromium_page


@pytest.fixture(scope="module")
def chromium() -> str:
    return chromium_or_skip()


def families_of(root: Path, k: int) -> list[list[str]]:
    """The families (two members or more) of ``root`` at ``k``, as the library finds them
    (ids relative to ``root``, as the explorer names them)."""
    index = dt.Index(k)
    prefix = f"{root}/"
    for item in dt.fingerprint_folder(root):
        if not isinstance(item, dt.Skipped):
            index.add(item.id.removeprefix(prefix), item.fingerprint)
    return [sorted(f.members) for f in index.clusters() if f.size > 1]


def k_of(text: str) -> int | None:
    """The k the status line shows (``· k=3 ·``)."""
    found = re.search(r"families · k=(\d+) ·", text)
    return int(found.group(1)) if found else None


async def drawn(page: Page, url: str) -> str:
    """Open ``url`` and wait for the scanned families (the status line's count)."""
    await page.open(url, size=(1600, 900))
    return await page.wait_text(lambda t: k_of(t) is not None and " 0 docs" not in t
                                and "loading" not in t, timeout=30)


def test_the_page_draws_the_families_and_a_key_changes_k(chromium, serve, tmp_path):
    served = serve()
    families = families_of(served.root, 3)
    assert len(families) == 7  # sample_corpus/README.md

    async def run() -> tuple[str, str]:
        async with chromium_page(chromium) as page:
            text = await drawn(page, served.url)
            await page.screenshot(tmp_path / "served.png")
            await page.press("]")
            after = await page.wait_text(lambda t: k_of(t) == 4, timeout=15)
            return text, after

    text, after = asyncio.run(run())
    png = (tmp_path / "served.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 20_000  # a drawn screen, not a blank one
    assert k_of(text) == 3 and f"{len(families)} families" in text
    rows = [line for line in text.splitlines() if re.match(r"│\s+\d+\s+\d+\s", line)]
    assert [int(r.split()[1]) for r in rows] == sorted((len(f) for f in families), reverse=True)
    for family in families:  # each family's row names one of its members (the end of it)
        assert any(row for row in rows if any(m[-12:] in row for m in family)), family
    assert "families · k=4 ·" in after


def test_two_tabs_decide_at_once_and_the_store_keeps_both(chromium, serve):
    served = serve()

    async def run() -> None:
        async with chromium_page(chromium) as first, chromium_page(chromium) as second:
            await asyncio.gather(drawn(first, served.url), drawn(second, served.url))
            await second.press_key("ArrowDown")  # the second family
            await asyncio.sleep(0.3)
            # interleaved: keep, then duplicate, in each tab (the cursor moves on after each)
            for key in "kd":
                await asyncio.gather(first.press(key), second.press(key))
                await asyncio.sleep(0.2)

    asyncio.run(run())
    families = families_of(served.root, 3)
    decided: dict[str, str] = {}
    for _ in range(100):  # the tabs' writers store what they were sent within 10 s
        decided = served.decisions()
        if len(decided) >= 4:
            break
        time.sleep(0.1)
    assert sorted(decided.values()) == ["duplicate", "duplicate", "keep", "keep"], decided
    touched = [f for f in families if set(f) & set(decided)]
    assert len(touched) == 2, decided  # two in each tab's family


def test_a_read_only_server_refuses_decisions_in_the_page(chromium, serve):
    served = serve("--read-only")

    async def run() -> str:
        async with chromium_page(chromium) as page:
            shown = await drawn(page, served.url)
            assert "reviewed · read-only" in shown.splitlines()[0]  # the status line says so
            await page.press("d")
            return await page.wait_text(lambda t: "decisions are not recorded" in t, timeout=15)

    text = asyncio.run(run())
    assert "This session is read-only" in text.replace("\n", " ") or "read-only:" in text
    time.sleep(0.5)  # (a decision, had it been recorded, is written by then)
    assert served.decisions() == {}
