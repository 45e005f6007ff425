"""The report in a real browser: Debian's ``chromium --headless`` renders it from disk.

Skipped when no Chromium is installed, except with ``DITTO_TUI_REQUIRE_BROWSER=1`` (CI sets
it after installing chromium), where a missing browser fails.
"""

from __future__ import annotations

import re
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest

from ditto_tui.core import NearIndex, make_pipeline
from ditto_tui.corpus.session import CorpusSession
from ditto_tui.report import Report, gather_report, render_report, write_report
from ditto_tui.report.render import SCRIPT
from tests.report.chromium import chromium_or_skip, dump_dom, find_chromium, screenshot
from tests.report.corpora import HOSTILE_NAMES, PAYLOADS, make_families, make_hostile
from tests.report.htmlcheck import check_html


@pytest.fixture(scope="module")
def chromium() -> str:
    return chromium_or_skip()


def test_a_missing_browser_skips_unless_required(monkeypatch):
    monkeypatch.setenv("DITTO_TUI_CHROMIUM", "no-such-browser-for-ditto-tui")
    assert find_chromium() is None
    monkeypatch.delenv("DITTO_TUI_REQUIRE_BROWSER", raising=False)
    with pytest.raises(pytest.skip.Exception):
        chromium_or_skip()
    monkeypatch.setenv("DITTO_TUI_REQUIRE_BROWSER", "1")
    with pytest.raises(pytest.fail.Exception):
        chromium_or_skip()


def _report(root: Path, dest: Path, **kw) -> Report:
    with CorpusSession(root, make_pipeline(), use_cache=False, jobs=1) as session:
        session.scan()
        fps = session.fingerprints
        index = NearIndex(max_k=8)
        index.add_many(list(fps), np.array([int(f) for f in fps.values()], np.uint64))
        report = gather_report(session, index, created="2026-01-01 00:00 UTC", **kw)
    write_report(render_report(report), dest)
    return report


@pytest.fixture(scope="module")
def families(tmp_path_factory, chromium) -> tuple[Report, Path]:
    folder = tmp_path_factory.mktemp("families")
    root = make_families(folder / "corpus", families=5, members=4, uniques=4)
    return _report(root, folder / "report.html", k=3), folder / "report.html"


def test_rendered_dom_has_the_families_members_diffs_and_chart(chromium, families):
    report, page = families
    dom, _ = dump_dom(chromium, page)
    parsed = check_html(dom, script=SCRIPT)
    assert parsed.root_attributes.get("data-js") == "on"  # our script ran despite the CSP
    assert "search" in parsed.ids  # ... and added the search box
    assert parsed.title == "Near duplicates in corpus"
    assert parsed.classes["section.family"] == len(report.families) == 5
    assert parsed.classes["tr.fam"] == 5
    assert parsed.classes["tr.member"] == sum(len(f.members) for f in report.families) == 20
    diffs = [m.diff for f in report.families for m in f.members if m.diff and not m.diff.identical]
    assert parsed.classes["details.diff"] == len(diffs) == 15
    changed = sum(1 for d in diffs for r in d.rows if r.kind == "changed")
    assert changed > 0 and parsed.classes["tr.chg"] == changed
    assert parsed.tags["del"] > 0 and parsed.tags["ins"] > 0
    assert "chart" in parsed.ids and parsed.classes["rect.bar"] == 36  # 4 charts of 9 bars
    assert parsed.classes["rect.cur"] == 4
    assert parsed.tags["details"] == 15 + 2  # the diffs, chart data and the skipped list
    assert "open" not in dom.split('class="diff"')[1][:80]  # diffs folded


def test_fragment_and_query_open_a_diff(chromium, families):
    _, page = families
    dom, _ = dump_dom(chromium, page, fragment="f2-d1")
    assert '<details class="diff" id="f2-d1" open="">' in dom
    dom, _ = dump_dom(chromium, page, query="open=all")
    assert dom.count('<details class="diff"') == dom.count('class="diff" id="f') and \
        'class="diff" id="f1-d1" open' in dom and 'class="diff" id="f5-d3" open' in dom


def test_without_scripts_everything_is_still_there(chromium, families, tmp_path):
    """The same page under a policy that allows no script at all: the policy is enforced
    (the page's own script does not run) and the report is complete without it."""
    report, page = families
    html = page.read_text(encoding="utf-8")
    blocked = re.sub(r"script-src [^;]*;", "script-src &#x27;none&#x27;;", html, count=1)
    assert blocked != html
    copy = tmp_path / "no-script.html"
    copy.write_text(blocked, encoding="utf-8")
    dom, _ = dump_dom(chromium, copy)
    parsed = check_html(dom, script=SCRIPT)
    assert "data-js" not in parsed.root_attributes and "search" not in parsed.ids
    assert parsed.classes["section.family"] == 5 and parsed.classes["tr.member"] == 20
    assert parsed.classes["details.diff"] == 15


def test_no_script_from_document_content_runs(chromium, tmp_path):
    dest = tmp_path / "hostile.html"
    report = _report(make_hostile(tmp_path / "hostile"), dest, k=8)
    assert len(report.families) == 1
    dom, _ = dump_dom(chromium, dest, query="open=all")
    parsed = check_html(dom, script=SCRIPT)
    # the page's own script ran, so a live payload would have run too
    assert parsed.root_attributes.get("data-js") == "on"
    assert parsed.title == "Near duplicates in hostile"
    assert parsed.attributes["data-pwned"] == 0 and "data-pwned=" not in dom
    assert {"pwned-link", "pwned-div"}.isdisjoint(parsed.ids)
    for tag in ("img", "base", "iframe", "textarea", "object", "embed"):
        assert parsed.tags[tag] == 0, tag
    assert parsed.tags["script"] == 1 and parsed.tags["style"] == 1
    assert all(h.startswith("#") for h in parsed.hrefs)
    text = "".join(parsed.text)
    for payload in (*PAYLOADS[:9], *HOSTILE_NAMES):
        assert payload in text  # shown literally, in the open diffs and member names


def test_search_parameter_filters_the_families(chromium, families):
    _, page = families
    dom, _ = dump_dom(chromium, page, query="q=family-2/")
    parsed = check_html(dom, script=SCRIPT)
    assert parsed.classes["tr.hidden"] == 4 and parsed.classes["section.hidden"] == 4
    assert parsed.classes["tr.fam"] == 5 and 'value="family-2/"' not in dom  # a property


def _png(png: Path) -> tuple[int, int, bytes]:
    """Width, height and the decompressed (still filtered) scanlines of a PNG."""
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IDAT":
            idat += data[pos + 8:pos + 8 + length]
        pos += 12 + length
    return width, height, zlib.decompress(idat)


def _first_pixel(png: Path) -> tuple[int, int, int]:
    raw = _png(png)[2]
    return raw[1], raw[2], raw[3]  # any filter leaves the first pixel of the first row as is


def test_screenshot_in_light_and_dark(chromium, families, tmp_path):
    _, page = families
    png = screenshot(chromium, page, tmp_path / "report.png", query="open=f1-d1",
                     size=(1280, 1000))
    width, height, raw = _png(png)
    assert (width, height) == (1280, 1000)
    assert len(set(raw[: 4 * width * 200])) > 20  # text and chart drawn, not a blank page
    light = _first_pixel(png)
    dark = _first_pixel(screenshot(chromium, page, tmp_path / "dark.png", size=(400, 300),
                                   dark=True))
    assert min(light) > 200 and max(dark) < 60, (light, dark)
