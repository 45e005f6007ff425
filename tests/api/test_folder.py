"""fingerprint_folder: the corpus walker from Python, with skips and their reasons."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

import ditto_tui as dt


def test_documents_and_skips_in_walk_order(tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    (root / "b").mkdir(parents=True)
    (root / "a.txt").write_text("alpha document text")
    (root / "b" / "c.html").write_text("<p>a page</p>")
    (root / "bin.dat").write_bytes(b"\x00\x01binary")
    (root / "big.txt").write_text("x" * 5000)
    os.mkfifo(root / "pipe")
    outside = tmp_path / "outside.txt"
    outside.write_text("not part of the corpus")
    os.symlink(outside, root / "escape")
    items = list(dt.fingerprint_folder(root, max_size=4096, cache=False))
    docs = {i.id: i.fingerprint for i in items if isinstance(i, dt.Fingerprinted)}
    skips = {os.path.basename(i.id): i.reason for i in items if isinstance(i, dt.Skipped)}
    assert docs == {
        f"{root}/a.txt": dt.fingerprint(b"alpha document text"),
        f"{root}/b/c.html": dt.fingerprint(b"<p>a page</p>"),
    }
    assert set(skips) == {"bin.dat", "big.txt", "pipe", "escape"}
    assert "binary" in skips["bin.dat"] and "symlink" in skips["escape"]
    assert "FIFO" in skips["pipe"] or "fifo" in skips["pipe"].lower()
    order = [i.id for i in items]
    assert order == sorted(order, key=lambda s: s.encode())
    html = list(dt.fingerprint_folder(root, dt.html_distance(), cache=False))
    assert [i.id for i in html if isinstance(i, dt.Fingerprinted)] == [f"{root}/b/c.html"]
    assert any(isinstance(i, dt.Skipped) and "not accepted" in i.reason for i in html)


def test_a_missing_folder_raises_as_corpus_session_does(tmp_path: Path) -> None:
    """One behaviour: the argument itself missing is an error, at the call (not at the
    first item), the same error as CorpusSession's; a missing file inside is a skip."""
    missing = tmp_path / "nope"
    with pytest.raises(FileNotFoundError) as from_folder:
        dt.fingerprint_folder(missing, cache=False)  # no iteration needed
    with pytest.raises(FileNotFoundError) as from_session:
        dt.CorpusSession(missing, dt.ditto(), use_cache=False)
    for info in (from_folder, from_session):
        assert info.value.errno == errno.ENOENT and info.value.filename == str(missing)
        assert "no such file or folder" in str(info.value)
    (tmp_path / "folder").mkdir()
    (tmp_path / "folder" / "a.txt").write_text("a document")
    assert [i.id for i in dt.fingerprint_folder(tmp_path / "folder", cache=False)] == [
        f"{tmp_path}/folder/a.txt"
    ]


def test_cache_is_used_and_gives_the_same_answer(tmp_path: Path) -> None:
    root = tmp_path / "c"
    root.mkdir()
    for i in range(5):
        (root / f"{i}.txt").write_text(f"document number {i} " * 20)
    first = list(dt.fingerprint_folder(root))
    assert list(dt.fingerprint_folder(root)) == first
    assert first == list(dt.fingerprint_folder(root, cache=False))


def test_html_pages_are_found_by_their_first_bytes(tmp_path: Path) -> None:
    root = tmp_path / "crawl"
    root.mkdir()
    page = b"<!DOCTYPE html><html><body><p>saved</p></body></html>"
    (root / "0001").write_bytes(page)
    (root / "notes").write_text("plain words")
    html = dt.html_distance()
    assert html.accepts_head(page) and not html.accepts_head(b"plain words")
    items = list(dt.fingerprint_folder(root, html, cache=False))
    assert [(i.id, i.fingerprint) for i in items if isinstance(i, dt.Fingerprinted)] == [
        (f"{root}/0001", html.fingerprint(page))
    ]
    assert [i.reason for i in items if isinstance(i, dt.Skipped)] == [
        "not accepted by the html pipeline"
    ]
