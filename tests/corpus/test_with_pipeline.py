"""Switching pipeline: a sibling session on the same root and cache database."""

from __future__ import annotations

from pathlib import Path

import pytest

import ditto_tui.corpus.scan as scan_mod
from ditto_tui.core.fingerprint.pipeline import make_pipeline
from ditto_tui.corpus.documents import ScanOptions
from ditto_tui.corpus.session import CorpusSession

from .conftest import TEXT_A, TEXT_B, write

PAGE = b"<html><body><div><p>hello</p><p>there</p></div></body></html>"
OTHER_PAGE = b"<html><head><title>t</title></head><body><ul><li>a</li><li>b</li></ul></body></html>"


@pytest.fixture
def reads(monkeypatch) -> list[tuple[str, str]]:
    """(pipeline name, file id) of every file read and fingerprinted, in order."""
    seen: list[tuple[str, str]] = []
    real = scan_mod.fingerprint_file

    def counting(pipeline, entry, *args, **kwargs):
        seen.append((pipeline.name, entry.id))
        return real(pipeline, entry, *args, **kwargs)

    monkeypatch.setattr(scan_mod, "fingerprint_file", counting)
    return seen


def mixed_corpus(root: Path) -> None:
    write(root, "notes/a.txt", TEXT_A)
    write(root, "notes/b.txt", TEXT_B)
    write(root, "site/index.html", PAGE)
    write(root, "site/other.htm", OTHER_PAGE)


def test_sibling_shares_root_options_jobs_and_cache(root: Path, cache_path: Path, reads) -> None:
    mixed_corpus(root)
    ditto, html = make_pipeline("ditto", char_n=5), make_pipeline("html", shingle=2)
    options = ScanOptions(ignore=("*.bak",))
    with CorpusSession(root, ditto, options=options, cache=cache_path, jobs=1) as first:
        first.scan()
        assert len(first.fingerprints) == 4
        with first.with_pipeline(html) as second:
            assert (second.root, second.options, second.jobs) == (first.root, options, 1)
            assert second.pipeline is html
            assert not second.documents  # not scanned yet
            second.scan()
            assert dict(second.fingerprints) == {
                "site/index.html": html.fingerprint(PAGE),
                "site/other.htm": html.fingerprint(OTHER_PAGE),
            }
            assert {s.id for s in second.skipped} == {"notes/a.txt", "notes/b.txt"}
            # both sessions are open on one database and keep working side by side
            first.scan()
            assert len(first.fingerprints) == 4
    assert sorted(reads) == sorted(
        [("ditto", "notes/a.txt"), ("ditto", "notes/b.txt"), ("ditto", "site/index.html"),
         ("ditto", "site/other.htm"), ("html", "site/index.html"), ("html", "site/other.htm")]
    )


def test_switching_back_and_forth_reads_each_file_once_per_pipeline(
    root: Path, cache_path: Path, reads
) -> None:
    mixed_corpus(root)
    ditto, html = make_pipeline("ditto"), make_pipeline("html")
    session = CorpusSession(root, ditto, cache=cache_path, jobs=1)
    session.scan()
    expected = {ditto.identity: dict(session.fingerprints)}
    for pipeline in (html, ditto, html, ditto):
        sibling = session.with_pipeline(pipeline)
        session.close()  # the sibling has its own connection: closing the old one is fine
        sibling.scan()
        expected.setdefault(pipeline.identity, dict(sibling.fingerprints))
        assert dict(sibling.fingerprints) == expected[pipeline.identity]
        session = sibling
    assert len(reads) == 4 + 2  # every file once for ditto, the two pages once for html
    # a file changed since is read again, by the pipeline scanning it only
    write(root, "site/index.html", OTHER_PAGE + b"<p>new</p>")
    reads.clear()
    with session.with_pipeline(html) as again:
        session.close()
        again.scan()
    assert reads == [("html", "site/index.html")]


def test_without_cache_the_sibling_reads_everything(root: Path, reads) -> None:
    mixed_corpus(root)
    with CorpusSession(root, make_pipeline("ditto"), use_cache=False, jobs=1) as first:
        first.scan()
        with first.with_pipeline(make_pipeline("ditto")) as second:
            second.scan()
            assert second.fingerprints == first.fingerprints
    assert len(reads) == 8


def test_a_closed_session_has_no_sibling(root: Path, pipeline) -> None:
    session = CorpusSession(root, pipeline, use_cache=False)
    session.close()
    with pytest.raises(RuntimeError, match="closed"):
        session.with_pipeline(make_pipeline("html"))
