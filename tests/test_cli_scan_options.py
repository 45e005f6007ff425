"""CLI scan options: --min-size, --skip-empty, --html-any, and HTML found by content."""

from __future__ import annotations

from pathlib import Path

import pytest

from ditto_tui.cli.main import main
from ditto_tui.core.fingerprint.pipeline import make_pipeline

PAGE = b"<!DOCTYPE html>\n<html><body><div><p>hello</p></div></body></html>"
WORDS = b"Minutes of the garden committee: compost, tomatoes and the new shed. " * 30


def run(capfdbinary, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capfdbinary.readouterr()
    return code, captured.out.decode(), captured.err.decode("utf-8", "replace")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "saved-page").write_bytes(PAGE)  # a page saved without an extension
    (root / "old.htm").write_bytes(PAGE + b"<p>2</p>")
    (root / "notes.txt").write_bytes(WORDS)
    (root / "empty.txt").write_bytes(b"")
    (root / "tiny.txt").write_bytes(b"hi")
    return root


def ids(out: str) -> set[str]:
    return {line.split("\t", 1)[1].rsplit("/", 1)[1] for line in out.splitlines()}


def test_html_pipeline_takes_a_page_without_extension(folder: Path, capfdbinary) -> None:
    code, out, err = run(capfdbinary, "fingerprint", "--no-cache", "--pipeline", "html",
                         str(folder))
    assert code == 0, err
    assert ids(out) == {"saved-page", "old.htm"}
    fp = f"{int(make_pipeline('html').fingerprint(PAGE)):016x}"
    assert f"{fp}\t{folder}/saved-page" in out.splitlines()
    assert "notes.txt: not accepted by the html pipeline" in err
    code, out, err = run(capfdbinary, "fingerprint", "--no-cache", "--pipeline", "html",
                         "--html-any", str(folder))
    assert code == 0, err
    assert ids(out) == {"saved-page", "old.htm", "notes.txt", "empty.txt", "tiny.txt"}


def test_min_size_and_skip_empty_report_each_skip(folder: Path, capfdbinary) -> None:
    code, out, err = run(capfdbinary, "fingerprint", "--no-cache", str(folder))
    assert len(out.splitlines()) == 5
    code, out, err = run(capfdbinary, "fingerprint", "--no-cache", "--skip-empty", str(folder))
    assert ids(out) == {"saved-page", "old.htm", "notes.txt", "tiny.txt"}
    assert "empty.txt: empty file" in err
    code, out, err = run(capfdbinary, "fingerprint", "--no-cache", "--min-size", "1k",
                         "--strict", str(folder))
    assert code == 1  # --strict: something was skipped
    assert ids(out) == {"notes.txt"}
    assert "tiny.txt: smaller than the minimum size (2 bytes < 1 KiB)" in err
    assert "empty.txt: smaller than the minimum size (0 bytes < 1 KiB)" in err


@pytest.mark.parametrize("bad", ["-1", "lots", "inf"])
def test_a_bad_minimum_size_is_a_usage_error(folder: Path, capfdbinary, bad: str) -> None:
    code, _, err = run(capfdbinary, "fingerprint", "--min-size", bad, str(folder))
    assert code == 2
    assert "--min-size" in err and "Traceback" not in err


def test_near_on_a_sniffed_page_does_not_warn(folder: Path, capfdbinary) -> None:
    code, out, err = run(capfdbinary, "near", "--no-cache", "--pipeline", "html", "-k", "64",
                         str(folder / "saved-page"), str(folder))
    assert code == 0, err
    assert "not an HTML file" not in err
    code, out, err = run(capfdbinary, "near", "--no-cache", "--pipeline", "html", "-k", "64",
                         str(folder / "notes.txt"), str(folder))
    assert "notes.txt: not an HTML file" in err


@pytest.mark.parametrize("command", [["explore"], []])
def test_the_explorer_gets_the_scan_options(folder: Path, monkeypatch, command) -> None:
    from ditto_tui.corpus.documents import ScanOptions, options_summary
    from ditto_tui.ui.app import DittoApp

    seen: list[ScanOptions] = []
    monkeypatch.setattr(DittoApp, "run", lambda self, *a, **kw: seen.append(self.session.options))
    code = main([*command, "--min-size", "1k", "--skip-empty", "--html-any",
                     "--no-cache", "--no-watch", str(folder)])
    assert code == 0
    (options,) = seen
    assert (options.min_size, options.skip_empty, options.html_any) == (1024, True, True)
    assert options_summary(options) == "min 1 KiB · no empty · html: any file"
