"""A user opens a folder in the UI: what the session shows and how updates read."""

from __future__ import annotations

from pathlib import Path

import pytest

import ditto_tui.corpus.scan as scan_mod
from ditto_tui.core.fingerprint.pipeline import make_pipeline
from ditto_tui.corpus.documents import ChangeBatch, Skipped
from ditto_tui.corpus.session import CorpusSession

from .conftest import TEXT_A, TEXT_B, write


def test_first_scan_adds_everything_and_reports_skips_in_walk_order(root: Path, pipeline) -> None:
    write(root, "b/doc.txt", TEXT_A)
    write(root, "a.bin", b"\0binary")
    write(root, "a/z.bin", b"\0binary")
    with CorpusSession(root, pipeline, use_cache=False) as s:
        batch = s.scan()
        assert batch.added == {"b/doc.txt": pipeline.fingerprint(TEXT_A.encode())}
        assert [k.id for k in s.skipped] == ["a/z.bin", "a.bin"]
        assert s.skipped == batch.skipped
        assert s.documents["b/doc.txt"].path == str(root / "b/doc.txt")
        assert s.read_text("b/doc.txt", limit=9) == TEXT_A[:9]
        with pytest.raises(KeyError):
            s.read_bytes("a.bin")


def test_rescan_reports_only_differences(root: Path, pipeline) -> None:
    write(root, "same.txt", TEXT_A)
    write(root, "edit.txt", TEXT_A + " v1")
    write(root, "turns-binary.txt", TEXT_B)
    write(root, "gone.txt", TEXT_B + " gone")
    with CorpusSession(root, pipeline, use_cache=False) as s:
        s.scan()
        write(root, "edit.txt", TEXT_B + " v2")
        write(root, "turns-binary.txt", b"\0" + TEXT_B.encode())
        (root / "gone.txt").unlink()
        write(root, "new.txt", TEXT_A + " new")
        batch = s.scan()
        assert batch == ChangeBatch(
            added={"new.txt": pipeline.fingerprint((TEXT_A + " new").encode())},
            changed={"edit.txt": pipeline.fingerprint((TEXT_B + " v2").encode())},
            removed=["gone.txt", "turns-binary.txt"],
            skipped=[Skipped("turns-binary.txt", str(root / "turns-binary.txt"), "binary file")],
            documents={i: s.documents[i] for i in ("edit.txt", "new.txt")},
        )
        assert not s.scan()  # nothing changed since


def test_html_pipeline_session(root: Path) -> None:
    html = make_pipeline("html")
    page = b"<html><body><div><p>hello</p></div></body></html>"
    write(root, "site/index.html", page)
    write(root, "site/notes.txt", TEXT_A)
    with CorpusSession(root, html, use_cache=False) as s:
        s.scan()
        assert dict(s.fingerprints) == {"site/index.html": html.fingerprint(page)}
        assert s.documents["site/index.html"].kind == "html"
        assert [(k.id, k.reason) for k in s.skipped] == [
            ("site/notes.txt", "not accepted by the html pipeline")
        ]


def test_small_corpora_skip_the_process_pool(root: Path, pipeline, monkeypatch) -> None:
    for i in range(20):
        write(root, f"f{i}.txt", f"{TEXT_A} {i}")
    monkeypatch.setattr(scan_mod, "ProcessPoolExecutor", None)  # would fail if used
    with CorpusSession(root, pipeline, use_cache=False, jobs=2) as s:
        s.scan()
        assert len(s.fingerprints) == 20


def test_missing_root_and_cache_inside_root_are_refused(tmp_path: Path, pipeline) -> None:
    with pytest.raises(FileNotFoundError):
        CorpusSession(tmp_path / "nope", pipeline)
    with pytest.raises(ValueError, match="inside"):
        CorpusSession(tmp_path, pipeline, cache=tmp_path / "sub" / "c.sqlite")
