"""Scan options: HTML found by content, --html-any, minimum size, empty files, the summary."""

from __future__ import annotations

from pathlib import Path

import pytest

from ditto_tui.core.fingerprint.pipeline import make_pipeline
from ditto_tui.corpus.documents import (
    DEFAULT_OPTIONS,
    ScanOptions,
    human_size,
    options_summary,
    parse_size,
)
from ditto_tui.corpus.session import CorpusSession

from .conftest import TEXT_A, TEXT_B, write

PAGE = b"<!DOCTYPE html>\n<html><body><div><p>hello</p></div></body></html>"
PAGE2 = b"\n  <html lang=en><head><title>t</title></head><body><ul><li>a</li></ul></body></html>"
REFUSED = "not accepted by the html pipeline"


def site(root: Path) -> None:
    write(root, "crawl/0001", PAGE)  # a crawl stored without extensions
    write(root, "crawl/0002.txt", PAGE2)
    write(root, "ssi/page.shtml", b"<p>x</p>")
    write(root, "notes.txt", TEXT_A)
    write(root, "mail", b"From a@b Mon Jan  1 00:00:00 2024\nSubject: x\n\nhi\n")


def test_html_pipeline_finds_pages_by_their_first_bytes(root: Path) -> None:
    site(root)
    html = make_pipeline("html")
    with CorpusSession(root, html, use_cache=False, jobs=1) as s:
        s.scan()
        assert dict(s.fingerprints) == {
            "crawl/0001": html.fingerprint(PAGE),
            "crawl/0002.txt": html.fingerprint(PAGE2),
            "ssi/page.shtml": html.fingerprint(b"<p>x</p>"),
        }
        assert {d.id: d.kind for d in s.documents.values()} == dict.fromkeys(
            s.fingerprints, "html"
        )
        assert {k.id: k.reason for k in s.skipped} == {"mail": REFUSED, "notes.txt": REFUSED}


def test_html_any_takes_every_file(root: Path) -> None:
    site(root)
    html = make_pipeline("html")
    with CorpusSession(
        root, html, options=ScanOptions(html_any=True), use_cache=False, jobs=1
    ) as s:
        s.scan()
        assert set(s.fingerprints) == {
            "crawl/0001", "crawl/0002.txt", "ssi/page.shtml", "notes.txt", "mail"
        }
        assert not s.skipped
        assert s.fingerprints["notes.txt"] == html.fingerprint(TEXT_A.encode())


def test_a_cache_filled_with_html_any_does_not_leak_into_a_sniffing_scan(
    root: Path, cache_path: Path
) -> None:
    site(root)
    html = make_pipeline("html")
    with CorpusSession(root, html, options=ScanOptions(html_any=True), cache=cache_path) as s:
        s.scan()
        assert "notes.txt" in s.fingerprints
    with CorpusSession(root, html, cache=cache_path) as s:
        s.scan()
        assert "notes.txt" not in s.fingerprints
        assert "crawl/0001" in s.fingerprints
        assert {k.id for k in s.skipped} == {"mail", "notes.txt"}


def test_a_file_that_stops_being_html_leaves(root: Path) -> None:
    write(root, "page", PAGE)
    html = make_pipeline("html")
    with CorpusSession(root, html, use_cache=False, jobs=1) as s:
        s.scan()
        assert set(s.fingerprints) == {"page"}
        write(root, "page", b"plain words now, and longer than before")
        batch = s.scan()
        assert batch.removed == ["page"]
        assert [k.reason for k in batch.skipped] == [REFUSED]


def test_the_ditto_pipeline_is_unchanged_by_sniffing(root: Path) -> None:
    site(root)
    with CorpusSession(root, make_pipeline("ditto"), use_cache=False, jobs=1) as s:
        s.scan()
        assert len(s.fingerprints) == 5 and "mail#1" in s.fingerprints  # an mbox of one
        assert s.documents["notes.txt"].kind == "text"
        assert s.documents["crawl/0001"].kind == "text"


def test_minimum_size_and_empty_files_are_skipped_with_their_reason(root: Path, pipeline) -> None:
    write(root, "empty.txt", b"")
    write(root, "tiny.txt", b"hi")
    write(root, "big.txt", TEXT_B)
    with CorpusSession(root, pipeline, use_cache=False, jobs=1) as s:
        s.scan()
        assert set(s.fingerprints) == {"empty.txt", "tiny.txt", "big.txt"}
    options = ScanOptions(skip_empty=True)
    with CorpusSession(root, pipeline, options=options, use_cache=False, jobs=1) as s:
        s.scan()
        assert set(s.fingerprints) == {"tiny.txt", "big.txt"}
        assert {k.id: k.reason for k in s.skipped} == {"empty.txt": "empty file"}
    options = ScanOptions(min_size=1024)
    with CorpusSession(root, pipeline, options=options, use_cache=False, jobs=1) as s:
        s.scan()
        assert set(s.fingerprints) == {"big.txt"}  # TEXT_B is over 1 KiB
        assert {k.id: k.reason for k in s.skipped} == {
            "empty.txt": "smaller than the minimum size (0 bytes < 1 KiB)",
            "tiny.txt": "smaller than the minimum size (2 bytes < 1 KiB)",
        }


def test_a_file_growing_past_the_minimum_joins(root: Path, pipeline) -> None:
    write(root, "grows.txt", b"x")
    options = ScanOptions(min_size=10, skip_empty=True)
    with CorpusSession(root, pipeline, options=options, use_cache=False, jobs=1) as s:
        s.scan()
        assert not s.fingerprints
        write(root, "grows.txt", TEXT_A)
        batch = s.scan()
        assert set(batch.added) == {"grows.txt"}
        assert not s.skipped


def test_options_summary_names_what_is_not_default() -> None:
    assert options_summary(DEFAULT_OPTIONS) == ""
    assert options_summary(ScanOptions(min_size=1024, skip_empty=True)) == "min 1 KiB · no empty"
    everything = ScanOptions(
        max_size=10 << 20, include_binary=True, ignore=("*.log", "build/"),
        follow_symlinks=True, min_size=100, skip_empty=True, html_any=True,
    )
    assert options_summary(everything) == (
        "min 100 bytes · max 10 MiB · no empty · binary · links followed · html: any file"
        " · 2 ignore rules"
    )
    assert options_summary(ScanOptions(ignore=("x",))) == "1 ignore rule"


def test_human_size() -> None:
    assert [human_size(n) for n in (0, 1, 1023, 1024, 1536, 64 << 20, 3 << 30)] == [
        "0 bytes", "1 byte", "1023 bytes", "1 KiB", "1.5 KiB", "64 MiB", "3 GiB",
    ]


def test_a_size_is_read_as_people_write_it_and_reads_back_from_human_size() -> None:
    assert [parse_size(t, allow_zero=False) for t in ("64M", "512k", "1GiB", " 1.5m ", "1000")] \
        == [64 << 20, 512 << 10, 1 << 30, 3 << 19, 1000]
    assert all(parse_size(human_size(n).replace(" ", ""), allow_zero=True) == n
               for n in (1024, 64 << 20, 3 << 30))
    assert parse_size("0", allow_zero=True) == 0


@pytest.mark.parametrize(("text", "allow_zero", "message"), [
    ("lots", True, "not a size: 'lots' (e.g. 64M)"),
    ("inf", True, "not a size: 'inf' (e.g. 64M)"),
    ("-1k", True, "size must not be negative: '-1k'"),
    ("0", False, "size must be positive: '0'"),
])
def test_a_size_that_is_not_one_says_why(text: str, allow_zero: bool, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse_size(text, allow_zero=allow_zero)
    assert str(caught.value) == message


def test_a_page_saved_without_extension_while_watching_arrives(root: Path) -> None:
    from .conftest import wait_for

    html = make_pipeline("html")
    write(root, "index.html", PAGE)
    added: dict[str, object] = {}
    skipped: list[str] = []

    def on_change(batch) -> None:
        added.update(batch.added)
        skipped.extend(k.id for k in batch.skipped)

    with CorpusSession(root, html, use_cache=False, jobs=1, reconcile_every=None) as s:
        s.scan()
        s.start_watching(on_change)
        write(root, "saved/page-2", PAGE2)
        write(root, "saved/readme", TEXT_A)
        assert wait_for(lambda: "saved/page-2" in added and "saved/readme" in skipped)
        assert added["saved/page-2"] == html.fingerprint(PAGE2)
        assert "saved/readme" not in s.fingerprints


def test_with_options_rescans_from_the_cache_without_reading(
    root: Path, pipeline, cache_path: Path, monkeypatch
) -> None:
    import ditto_tui.corpus.scan as scan_mod

    write(root, "empty.txt", b"")
    write(root, "a.txt", TEXT_A)
    write(root, "b.txt", TEXT_B)
    with CorpusSession(root, pipeline, cache=cache_path, jobs=1) as first:
        first.scan()
        reads: list[str] = []
        real = scan_mod.fingerprint_file
        monkeypatch.setattr(
            scan_mod, "fingerprint_file", lambda p, e, *a, **kw: reads.append(e.id) or real(p, e, *a, **kw)
        )
        with first.with_options(ScanOptions(skip_empty=True)) as second:
            assert second.options.skip_empty and second.pipeline is pipeline
            second.scan()
            assert set(second.fingerprints) == {"a.txt", "b.txt"}
            assert [k.reason for k in second.skipped] == ["empty file"]
        assert reads == []
        assert "empty.txt" in first.fingerprints  # the first session is left as it was


def test_worker_processes_sniff_too(root: Path, monkeypatch) -> None:
    import ditto_tui.corpus.scan as scan_mod

    monkeypatch.setattr(scan_mod, "POOL_MIN_FILES", 1)
    monkeypatch.setattr(scan_mod, "POOL_MIN_BYTES", 1)
    for i in range(12):
        write(root, f"pages/{i:02d}", PAGE + f"<p>{i}</p>".encode())
        write(root, f"notes/{i:02d}", TEXT_A + str(i))
    html = make_pipeline("html")
    with CorpusSession(root, html, use_cache=False, jobs=2) as s:
        s.scan()
        assert set(s.fingerprints) == {f"pages/{i:02d}" for i in range(12)}
        assert {k.id for k in s.skipped} == {f"notes/{i:02d}" for i in range(12)}


def test_a_rescan_does_not_sniff_unchanged_files_again(root: Path, monkeypatch) -> None:
    import ditto_tui.corpus.scan as scan_mod

    site(root)
    html = make_pipeline("html")
    heads: list[str] = []
    real = scan_mod.read_head
    monkeypatch.setattr(
        scan_mod, "read_head", lambda r, rel, n: heads.append(rel) or real(r, rel, n)
    )
    with CorpusSession(root, html, use_cache=False, jobs=1) as s:
        s.scan()
        assert sorted(heads) == ["crawl/0001", "crawl/0002.txt", "mail", "notes.txt"]
        heads.clear()
        assert not s.scan()  # nothing changed: nothing re-read, the skips stay
        assert heads == []
        assert {k.id for k in s.skipped} == {"mail", "notes.txt"}
        write(root, "notes.txt", b"<!doctype html><p>now a page")
        batch = s.scan()
        assert heads == ["notes.txt"] and set(batch.added) == {"notes.txt"}
