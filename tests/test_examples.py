"""Every program in examples/ runs, on the sample corpus or on data made here."""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}


def run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def test_cluster_folder_on_sample_corpus(env: dict[str, str]) -> None:
    source = (EXAMPLES / "cluster_folder.py").read_text()
    code = [
        line for line in source.splitlines()
        if line.strip() and not line.startswith(("import", '"""'))
    ]
    assert len(code) <= 10  # "in ten lines"
    done = run(env, "examples/cluster_folder.py", "sample_corpus", "3")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    # sample_corpus/README.md: 7 clusters at k=3, sizes 5, 5, 4, 4, 3, 2, 2
    assert [int(line.split()[0]) for line in lines] == [5, 5, 4, 4, 3, 2, 2]
    assert any("tidewell-release-v5-final.txt" in line for line in lines)
    assert "skipped sample_corpus/weird/logo.bin: binary file" in done.stderr


def _site(root: Path) -> Path:
    template = (
        '<!doctype html><html><head><title>{t}</title></head><body><nav>'
        '<a href="/index.html">home</a> <a href="product-{n}.html">next</a></nav>'
        '<main class="product"><h1>{t}</h1><p>{t} costs {n} pounds.</p></main></body></html>'
    )
    (root / "shop").mkdir(parents=True)
    for n in range(1, 8):
        (root / "shop" / f"product-{n}.html").write_text(template.format(t=f"Product {n}", n=n + 1))
    (root / "about.html").write_text(
        "<html><body><article><h2>About us</h2><ul><li>one</li><li>two</li></ul>"
        "<a href='shop/product-1.html'>shop</a></article><footer>f</footer></body></html>"
    )
    (root / "index.html").write_text(
        '<html><body><a href="about.html">about</a> <a href="shop/product-1.html">shop</a>'
        '<a href="https://elsewhere.example/">out</a></body></html>'
    )
    return root / "index.html"


def test_oracle_crawl_skips_structural_duplicates(tmp_path: Path, env: dict[str, str]) -> None:
    start = _site(tmp_path / "site")
    done = run(env, "examples/oracle_crawl.py", str(start))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    crawled = [line.split()[-1] for line in lines if line.startswith("crawl")]
    skipped = [line.split()[-1] for line in lines if line.startswith("skip")]
    assert crawled == ["index.html", "about.html", "shop/product-1.html"]
    # product-1 links to product-2, whose structure was seen: skipped, so 3..7 are never reached
    assert skipped == ["shop/product-2.html"]
    assert lines[-1] == "4 pages: 3 crawled, 1 skipped as structural duplicates"
    folder = run(env, "examples/oracle_crawl.py", "sample_corpus")
    assert folder.stdout.splitlines()[-1] == "10 pages: 2 crawled, 8 skipped as structural duplicates"


def test_live_index_follows_changes(tmp_path: Path, env: dict[str, str]) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    text = (
        "Meeting notes: the harbour light needs a new lens before winter, "
        "the keeper said, and the boat needs paint. "
    ) * 6
    (folder / "a.txt").write_text(text)
    (folder / "b.txt").write_text("An unrelated shopping list: bread, milk, tea, apples, flour.")
    proc = subprocess.Popen(
        [sys.executable, "examples/live_index.py", str(folder), "60"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    assert proc.stdout is not None
    reader = threading.Thread(target=lambda: [lines.put(x.strip()) for x in proc.stdout], daemon=True)  # type: ignore[union-attr]
    reader.start()

    def next_matching(prefix: str) -> str:
        deadline = time.monotonic() + 30
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = lines.get(timeout=left)
            except queue.Empty:
                break
            if line.startswith(prefix):
                return line
        raise AssertionError(f"no line starting with {prefix!r}")

    try:
        assert next_matching("2 documents") == "2 documents, 0 families at k=3"
        next_matching("watching")
        staged = tmp_path / "c.txt"
        staged.write_text(text + " Signed, Ada.")
        os.replace(staged, folder / "c.txt")  # appears whole
        assert next_matching("c.txt") == "c.txt: near a.txt (3 bits)"
        (folder / "a.txt").unlink()
        next_matching("removed a.txt")
    finally:
        proc.terminate()
        proc.wait(timeout=30)
