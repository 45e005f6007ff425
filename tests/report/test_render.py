"""The report page: valid HTML, everything escaped, a policy that allows only its own code."""

from __future__ import annotations

import base64
import hashlib
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from ditto_tui.report.diffview import diff_view
from ditto_tui.report.model import ChartPoint, FamilyView, MemberView, Report, SkipView
from ditto_tui.report.render import CSP, SCRIPT, STYLE, bits_html, render_report
from tests.properties import examples
from tests.report.corpora import HOSTILE_NAMES, PAYLOADS
from tests.report.htmlcheck import check_html

EVIL = PAYLOADS + HOSTILE_NAMES


def _report(names=("a.txt", "b.txt", "c.txt"), texts=None, **kw) -> Report:
    texts = texts or (["one two three", "four five"], ["one 2 three", "four five", "six"])
    rep, other, third = names
    members = (
        MemberView(rep, rep, 0xFFFF0000FFFF0000, 0, representative=True),
        MemberView(other, other, 0xFFFF0000FFFF0003, 2, diff=diff_view(*texts)),
        MemberView(third, third, 0xFFFF0000FFFF0000, 0, diff=diff_view(texts[0], texts[0]),
                   diff_note="a note", text_note="text cut"),
    )
    family = FamilyView(1, 3, 2, True, rep, rep, 0xFFFF0000FFFF0000, "excerpt " + rep, members,
                        omitted=0)
    values = dict(
        title="corpus", root="corpus", documents=10, pipeline="ditto/2;char=4;word=0", k=3,
        mode="chain", min_size=2, pattern="", created="2026-01-01 00:00 UTC",
        version="ditto-tui 0", families=(family,), skipped=(SkipView("x.bin", "binary file"),),
        chart=tuple(ChartPoint(k, k, 2 * k) for k in range(9)), documents_in_families=3,
    )
    values.update(kw)
    return Report(**values)


def _plain(page: str) -> str:
    return re.sub(r"<[^>]*>", "", page)


def test_page_is_valid_and_complete():
    page = render_report(_report())
    parsed = check_html(page, script=SCRIPT)
    assert parsed.title == "Near duplicates in corpus"
    assert parsed.classes["section.family"] == 1
    assert parsed.classes["tr.member"] == 3
    assert parsed.classes["details.diff"] == 1  # the identical member gets a note, no table
    assert parsed.classes["tr.chg"] == 1 and parsed.classes["tr.ins"] == 1
    assert parsed.tags["svg"] == 1 and parsed.classes["rect.bar"] == 36
    assert parsed.classes["rect.cur"] == 4  # k = 3 in the four panels
    assert "Same text as the representative" in page
    assert "binary file" in page and "a note" in page and "text cut" in page
    for diff in re.findall(r'<details class="diff"[^>]*>', page):
        assert " open" not in diff  # folded by default


def test_policy_names_exactly_the_inline_style_and_script():
    page = render_report(_report())
    parsed = check_html(page)
    csp = next(m["content"] for m in parsed.metas if m.get("http-equiv") == "Content-Security-Policy")
    assert csp == CSP
    assert "default-src 'none'" in csp and "unsafe" not in csp

    def digest(text: str) -> str:
        return base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()

    assert parsed.styles == [STYLE] and parsed.scripts == [SCRIPT]
    assert f"'sha256-{digest(STYLE)}'" in csp and f"'sha256-{digest(SCRIPT)}'" in csp
    # the policy comes before anything that could load or run
    assert page.index("Content-Security-Policy") < page.index("<style>") < page.index("<script>")


def test_hostile_names_and_text_are_escaped_everywhere():
    names = (HOSTILE_NAMES[0], HOSTILE_NAMES[1], PAYLOADS[0])
    texts = (list(PAYLOADS), [p + " changed" for p in PAYLOADS])
    report = _report(names=names, texts=texts, title=PAYLOADS[1], root=PAYLOADS[2],
                     pattern=PAYLOADS[3], pipeline=PAYLOADS[8],
                     skipped=(SkipView(PAYLOADS[4], PAYLOADS[5]),))
    page = render_report(report)
    parsed = check_html(page, script=SCRIPT)
    assert parsed.tags["img"] == 0 and parsed.tags["a"] == 2  # chart-free links: #skipped, #f1
    assert parsed.tags["base"] == 0 and parsed.tags["textarea"] == 0
    assert all(h.startswith("#") for h in parsed.hrefs)
    assert len([m for m in parsed.metas if m.get("http-equiv")]) == 1
    assert page.count("<script") == 1 and page.count("<style") == 1
    assert "<!--" not in page and "pwned-div" not in parsed.ids
    # the payloads are all there, as text
    text = "".join(parsed.text)
    for payload in (*PAYLOADS[:9], *names):
        assert payload in text
    assert PAYLOADS[9].replace("\x1b", "\\x1b") in text


chars = st.characters(exclude_categories=())  # surrogates, controls, noncharacters too
any_text = st.text(chars, max_size=80)


def test_characters_html_does_not_allow_are_shown_escaped():
    from ditto_tui.report.render import esc

    assert esc("a\x00b\x85c\ufdd0d\U0010ffffe\ud800f\x0cg") == \
        "a\\x00b\\x85c\\ufdd0d\\U0010ffffe\\ud800f\x0cg"
    assert esc("tab\tnew\nline") == "tab\tnew\nline"


@settings(max_examples=examples(150), deadline=None)
@given(st.text(chars, min_size=1, max_size=40), any_text)
def test_any_name_and_text_stay_text(name, body):
    report = _report(names=(name, name + "2", name + "3"), texts=([body], [body + "<x>"]),
                     title=name, root=name)
    page = render_report(report)
    page.encode("utf-8")  # no lone surrogate reaches the file
    parsed = check_html(page, script=SCRIPT)
    assert parsed.tags["script"] == 1 and parsed.tags["img"] == 0


def test_bits_grid_marks_exactly_the_differing_bits():
    rep, member = 0x8000_0000_0000_0001, 0x0000_0000_0000_0003
    grid = bits_html(rep, member)
    rows = _plain(grid).splitlines()
    assert len(rows) == 4
    assert "".join(r.split()[0] for r in rows) == f"{rep:064b}"
    assert "".join(r.split()[1] for r in rows) == f"{member:064b}"
    marked = re.findall(r"<b>([01]+)</b>", grid)
    assert sum(len(m) for m in marked) == 2 * (rep ^ member).bit_count()
    assert "differing bits: 63, 1" in grid
    alone = bits_html(rep)
    assert "<b>" not in alone and len(_plain(alone).split()) == 4


def test_empty_report_says_so():
    page = render_report(_report(families=(), chart=(), skipped=()))
    parsed = check_html(page, script=SCRIPT)
    assert "no-families" in parsed.ids and parsed.tags["svg"] == 0


def test_a_chain_family_far_wider_than_k_is_flagged_in_the_list_and_its_section():
    import dataclasses

    wide = dataclasses.replace(_report().families[0], diameter=31)
    page = render_report(_report(families=(wide,)))
    check_html(page, script=SCRIPT)
    assert "◆ Flagged: diameter 31 is above 2k=6" in page
    assert '<span class="warn" title="above 2k: a drift, not copies">◆ 31</span>' in page
    for quiet in (_report(families=(wide,), mode="star"),  # star families are within 2k
                  _report(families=(dataclasses.replace(wide, diameter_exact=False),)),
                  _report()):  # diameter 2
        assert "◆" not in render_report(quiet)


def test_the_family_list_comes_before_anything_heavy():
    """Issue 34: Chromium paints the family list while it still parses the family details
    (benchmarks/bench_report.py measures it: within 2 s of an empty page at 10k
    documents). So the list comes before the details, and the page's one script, which
    needs the whole list, after them; nothing in the head waits for the network."""
    page = render_report(_report())
    assert page.index('id="family-list"') < page.index('id="details"')
    assert page.count("<script>") == 1
    assert page.index("<script>") > page.rindex('<section class="family"')
    head = page.split("</head>", 1)[0]
    assert "<link" not in head and " src=" not in head
