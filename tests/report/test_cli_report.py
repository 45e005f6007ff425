"""``ditto-tui report``: options, refusing to overwrite, one-line errors, a hostile corpus."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ditto_tui.cli.main import main
from ditto_tui.report.render import SCRIPT
from tests.report.corpora import HOSTILE_NAMES, PAYLOADS, make_families, make_hostile
from tests.report.htmlcheck import check_html


def run(capfd, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capfd.readouterr()
    return code, out, err


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return make_families(tmp_path / "corpus", families=3, members=3)


def test_writes_a_valid_report(corpus, tmp_path, capfd):
    dest = tmp_path / "report.html"
    code, out, err = run(capfd, "report", str(corpus), "-o", str(dest), "--no-cache")
    assert code == 0, err
    assert out.startswith(f"wrote {dest}: 3 families of 12 document(s)")
    assert "skipped blob.bin: binary file" in err
    page = check_html(dest.read_text(encoding="utf-8"), script=SCRIPT)
    assert page.classes["section.family"] == 3 and page.classes["tr.member"] == 9
    assert page.classes["details.diff"] == 6 and page.tags["svg"] == 1
    assert page.title == "Near duplicates in corpus"
    text = "".join(page.text)
    assert str(tmp_path) not in dest.read_text()  # paths relative to the root
    assert "ditto/2;char=4;word=0" in text and "Distance k3" in text


def test_never_overwrites_without_force(corpus, tmp_path, capfd):
    dest = tmp_path / "report.html"
    dest.write_text("keep me")
    code, out, err = run(capfd, "report", str(corpus), "-o", str(dest), "--no-cache")
    assert code == 1 and out == ""
    assert err == f"ditto-tui: {dest}: already exists (not overwritten; --force replaces it)\n"
    assert dest.read_text() == "keep me"
    code, out, err = run(capfd, "report", str(corpus), "-o", str(dest), "--no-cache", "--force")
    assert code == 0, err
    assert dest.read_text().startswith("<!DOCTYPE html>")


def test_options_reach_the_report(corpus, tmp_path, capfd):
    dest = tmp_path / "r.html"
    code, _, err = run(capfd, "report", str(corpus), "-o", str(dest), "--no-cache", "-k", "5",
                       "--max-k", "6", "--mode", "star", "--min", "3", "--filter", "family-1",
                       "--absolute-paths", "--char", "5", "--ignore", "family-0/",
                       "--strict")
    assert code == 1  # --strict: the binary file was skipped
    page = dest.read_text()
    parsed = check_html(page, script=SCRIPT)
    assert parsed.classes["section.family"] == 1
    assert "family-1/original.txt" in page and "family-0" not in page
    assert str(corpus.resolve()) in page
    assert "ditto/2;char=5;word=0" in page and "star (every member" in page
    assert parsed.classes["rect.bar"] == 28  # k = 0..6 in four panels
    assert "k = 5 highlighted" in page


def test_standard_output(corpus, capfd):
    code, out, err = run(capfd, "report", str(corpus), "-o", "-", "--no-cache")
    assert code == 0, err
    check_html(out, script=SCRIPT)


@pytest.mark.parametrize(
    ("argv", "code", "message"),
    [
        (["report", "{missing}", "-o", "{dest}"], 1, "{missing}: no such file or directory"),
        (["report", "{corpus}"], 2, "error: the following arguments are required: -o/--output"),
        (["report", "{corpus}", "-o", "{dest}", "-k", "-1"], 2, "-k -1 is out of range"),
        (["report", "{corpus}", "-o", "{dest}", "-k", "65"], 2, "-k 65 is out of range"),
        (["report", "{corpus}", "-o", "{tmp}/no/such/dir/r.html"], 1,
         "{tmp}/no/such/dir/r.html: no such folder"),
        (["report", "{corpus}", "-o", "{tmp}"], 1, "{tmp}: is a folder"),
    ],
)
def test_errors_are_one_line(corpus, tmp_path, capfd, argv, code, message):
    values = {"missing": str(tmp_path / "missing"), "dest": str(tmp_path / "d.html"),
              "corpus": str(corpus), "tmp": str(tmp_path)}
    got, out, err = run(capfd, *[a.format(**values) for a in argv])
    assert got == code
    assert err.count("\n") == 1 and err.startswith("ditto-tui: ")
    assert message.format(**values) in err
    assert not (tmp_path / "d.html").exists()


def test_hostile_corpus_is_inert(tmp_path, capfd):
    root = make_hostile(tmp_path / "hostile")
    dest = tmp_path / "hostile.html"
    code, _, err = run(capfd, "report", str(root), "-o", str(dest), "--no-cache", "-k", "8")
    assert code == 0, err
    page = dest.read_text(encoding="utf-8")
    parsed = check_html(page, script=SCRIPT)
    assert parsed.classes["section.family"] == 1  # texts and HTML pages share their words
    assert parsed.classes["tr.member"] == 6 and parsed.classes["details.diff"] == 5
    assert parsed.tags["img"] == 0 and parsed.tags["base"] == 0
    assert parsed.tags["a"] == 1 and parsed.hrefs == ["#f1"]
    assert parsed.tags["script"] == 1 and page.count("<script") == 1
    assert "<!--" not in page and not re.search(r"<(img|svg onload|a href=\"j|meta http-equiv=\"r)", page)
    assert {"pwned-link", "pwned-div"}.isdisjoint(parsed.ids)
    text = "".join(parsed.text)
    for name in HOSTILE_NAMES:
        assert name in text  # shown, as text
    for payload in PAYLOADS[:9]:
        assert payload in text
    assert "\x1b" not in page and "\\x1b[31m" in text
    assert "not-utf8-\\xff-name.txt" in text
    # the HTML documents are compared as their text: their script is not even shown
    assert "PWNED-html" not in text


def test_decisions_column(corpus, tmp_path, capfd):
    from ditto_tui.core import make_pipeline
    from ditto_tui.core.review.decisions import identity_of
    from ditto_tui.corpus.review import ReviewStore
    from ditto_tui.corpus.session import CorpusSession

    cache = tmp_path / "cache"
    with CorpusSession(corpus, make_pipeline(), use_cache=False, jobs=1) as session:
        session.scan()
        docs, fps = session.documents, session.fingerprints
        with ReviewStore.for_root(corpus, cache_dir=cache) as store:
            for doc_id, value in (("family-0/original.txt", "keep"),
                                  ("family-0/variant-1.txt", "duplicate"),
                                  ("family-1/variant-2.txt", "not-duplicate")):
                store.set_decision(doc_id, identity_of(docs[doc_id], int(fps[doc_id])), value)
    edited = corpus / "family-1" / "variant-2.txt"
    edited.write_text(edited.read_text() + "edited since the decision\n")
    dest = tmp_path / "d.html"
    code, _, err = run(capfd, "report", str(corpus), "-o", str(dest), "--decisions",
                       "--cache", str(cache), "-k", "8")
    assert code == 0, err
    parsed = check_html(dest.read_text(encoding="utf-8"), script=SCRIPT)
    assert parsed.classes["td.decision"] == parsed.classes["tr.member"]
    text = "".join(parsed.text)
    assert "Decision" in text and "keep" in text and "duplicate" in text
    plain = dest.read_text(encoding="utf-8")
    assert plain.count('<td class="decision">keep</td>') == 1
    assert plain.count('<td class="decision">duplicate</td>') == 1
    assert plain.count('<td class="decision">stale:not-duplicate</td>') == 1
    without = tmp_path / "n.html"
    run(capfd, "report", str(corpus), "-o", str(without), "--no-cache")
    assert "td.decision" not in check_html(without.read_text(), script=SCRIPT).classes
    code, _, err = run(capfd, "report", str(corpus / "unique" / "u0.txt"), "-o",
                       str(tmp_path / "x.html"), "--decisions")
    assert code == 1 and "--decisions needs a folder PATH" in err
