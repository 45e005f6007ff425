"""Gathering a report from a real corpus session and index."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from ditto_tui.core import NearIndex, make_pipeline
from ditto_tui.corpus.session import CorpusSession
from ditto_tui.report import ReportLimits, gather_report, render_report
from ditto_tui.report.gather import display_name, id_matcher
from ditto_tui.report.render import SCRIPT
from tests.report.corpora import make_families
from tests.report.htmlcheck import check_html


@pytest.fixture
def corpus(tmp_path: Path):
    root = make_families(tmp_path / "corpus", families=4, members=3)
    with CorpusSession(root, make_pipeline(), use_cache=False, jobs=1) as session:
        session.scan()
        fps = session.fingerprints
        index = NearIndex(max_k=8)
        index.add_many(list(fps), np.array([int(f) for f in fps.values()], np.uint64))
        yield session, index


def test_families_members_and_diffs_follow_the_index(corpus):
    session, index = corpus
    report = gather_report(session, index, k=3, created="now")
    expected = index.families(3, mode="chain", min_size=2)
    assert len(expected) == 4
    assert [(f.size, f.representative) for f in report.families] == \
        [(f.size, f.centre) for f in expected]
    fps = session.fingerprints
    for view, family in zip(report.families, expected, strict=True):
        rep, *others = view.members
        assert rep.representative and rep.id == family.centre and rep.diff is None
        assert {m.id for m in view.members} == set(family.members)
        assert [(m.distance, m.id) for m in others] == sorted((m.distance, m.id) for m in others)
        for m in others:
            assert m.distance == (int(fps[m.id]) ^ int(fps[family.centre])).bit_count()
            assert m.diff is not None and m.diff.changed >= 1  # edited words show as changes
        assert view.excerpt and view.diameter == family.diameter
    assert report.documents == len(fps) == 15
    assert [(s.name, s.reason) for s in report.skipped] == [("blob.bin", "binary file")]
    assert report.documents_in_families == 12
    assert [p.k for p in report.chart] == list(range(9))
    assert report.chart[3].families == 4 and report.chart[3].documents == 12
    for point in report.chart:  # the largest family and diameter among those of the index
        families = index.families(point.k, min_size=2)
        assert point.largest == max((f.size for f in families), default=0)
        assert point.diameter == max((f.diameter for f in families), default=0)
        assert point.diameter_exact
    check_html(render_report(report), script=SCRIPT)


def test_filter_min_and_mode(corpus):
    session, index = corpus
    only = gather_report(session, index, k=3, pattern="family-2/", created="now")
    assert [f.representative.split("/")[0] for f in only.families] == ["family-2"]
    globbed = gather_report(session, index, k=3, pattern="variant-2*", created="now")
    assert len(globbed.families) == 4
    none = gather_report(session, index, k=3, min_size=4, created="now")
    assert none.families == ()
    check_html(render_report(none), script=SCRIPT)
    star = gather_report(session, index, k=3, mode="star", created="now")
    assert star.mode == "star" and all(
        m.distance <= 3 for f in star.families for m in f.members)


def test_limits_cut_with_notes(corpus):
    session, index = corpus
    limits = ReportLimits(members=2, diffs=1, families=2, diff_rows=3, doc_bytes=200, listed=3)
    report = gather_report(session, index, k=3, limits=limits, created="now")
    detailed = [f for f in report.families if f.detailed]
    assert len(detailed) == 2 and len(report.families) == 4
    assert all(f.excerpt for f in report.families)
    for f in detailed:
        assert len(f.members) == 2 and f.omitted == 1
        assert f.members[0].text_note.startswith("text cut: the first 200 bytes")
    assert any("past the first 2" in n for n in report.notes)
    page = render_report(report)
    check_html(page, script=SCRIPT)
    assert "1 more member not listed" in page and "1 more family not listed" in page
    assert page.count('<tr class="fam">') == 3
    tight = gather_report(session, index, k=3, limits=ReportLimits(diffs=1, diff_budget=1),
                          created="now")
    notes = [m.diff_note for f in tight.families for m in f.members[1:]]
    assert "no diff: the report's diff budget is used up" in notes
    assert any("budget" in n for n in tight.notes)


def test_unreadable_member_is_noted(corpus):
    session, index = corpus
    victim = index.families(3, min_size=2)[0].members[-1]
    os.unlink(session.documents[victim].path)
    report = gather_report(session, index, k=3, created="now")
    member = next(m for f in report.families for m in f.members if m.id == victim)
    if member.representative:
        assert member.text_note.startswith("cannot read")
    else:
        assert member.diff is None and member.text_note.startswith("cannot read")


def test_paths_are_relative_unless_asked(corpus):
    session, index = corpus
    rel = gather_report(session, index, k=3, created="now")
    assert rel.root == "corpus" and not rel.families[0].members[0].name.startswith("/")
    absolute = gather_report(session, index, k=3, absolute_paths=True, created="now")
    assert absolute.root == str(session.root)
    assert absolute.families[0].members[0].name == str(session.root / rel.families[0].members[0].id)
    assert absolute.skipped[0].name == str(session.root / "blob.bin")


def test_display_name_and_matcher():
    assert display_name("a\tb") == "a\\tb"
    assert display_name(os.fsdecode(b"bad\xffname")) == "bad\\xffname"
    assert display_name("esc\x1b[31m") == "esc\\x1b[31m"
    assert display_name("lone\ud800") == "lone\\ud800"
    match = id_matcher("*.TXT")
    assert not match("a/b.txt")
    assert id_matcher("B.t")("a/b.txt") and id_matcher("a/*")("a/b/c") and id_matcher(" ")("x")


def test_write_html_report_in_one_call(corpus, tmp_path):
    from ditto_tui.report import write_html_report

    session, index = corpus
    dest = tmp_path / "r.html"
    report, written = write_html_report(session, index, dest, k=3, pattern="family-1")
    assert written == dest.stat().st_size and len(report.families) == 1
    check_html(dest.read_text(encoding="utf-8"), script=SCRIPT)
    before = dest.read_bytes()
    with pytest.raises(FileExistsError):
        write_html_report(session, index, dest, k=3)
    assert dest.read_bytes() == before
    _, again = write_html_report(session, index, dest, k=3, overwrite=True)
    assert again == dest.stat().st_size and dest.read_bytes() != before


def test_diff_budget_bounds_the_page(corpus):
    import re

    session, index = corpus
    for budget in (5_000, 20_000):
        report = gather_report(session, index, k=3, created="now",
                               limits=ReportLimits(diff_budget=budget))
        page = render_report(report)
        sizes = [len(m.encode()) for m in
                 re.findall(r'<tr class="diffrow">.*?</tr>(?=<tr class="member|</tbody>)', page,
                            flags=re.S)]
        assert sizes and sum(sizes) - max(sizes) <= budget  # the last diff may cross it
        assert sum(sizes) >= budget * 0.5 or len(sizes) == 8  # and the estimate is not lavish


def test_mail_members_show_subject_sender_and_date_not_received_lines(tmp_path):
    """Issue 34: mail members showed their ``Received:`` headers as the excerpt and the
    maildir file names alone; the report now shows them as the explorer does."""
    from tests.report.shapes import make_mail

    root = make_mail(tmp_path / "mail", messages=6)
    with CorpusSession(root, make_pipeline(), use_cache=False, jobs=1) as session:
        session.scan()
        fps = session.fingerprints
        index = NearIndex(max_k=8)
        index.add_many(list(fps), np.array([int(f) for f in fps.values()], np.uint64))
        report = gather_report(session, index, k=8, created="now")
    assert report.families, "the messages should be near-duplicates"
    family = report.families[0]
    assert "Received" not in family.excerpt and "Quarterly figures, take" in family.excerpt
    assert "Ada Sender" in family.excerpt
    for member in family.members:
        assert member.mail is not None
        number = member.mail.subject.rsplit(" ", 1)[1]
        assert member.mail.subject == f"Quarterly figures, take {number}"
        assert member.mail.sender == f'"Ada Sender {number}" <ada{number}@example.org>'
        assert member.mail.date.startswith(f"Mon, {int(number) + 1} Jan 2024")
    page = render_report(report)
    check_html(page, script=SCRIPT)
    listed = page.split('id="family-list"', 1)[1].split("</table>", 1)[0]
    assert "Received" not in listed and "Quarterly figures, take" in listed
    section = page.split('<section class="family"', 1)[1]
    assert section.count('<span class="mail">') == len(family.members) + 1  # + the heading
    assert "&quot;Ada Sender" in section and "Mon, " in section
