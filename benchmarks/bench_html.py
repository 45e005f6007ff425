"""Throughput of the html-distance pipeline (tokenizer + features + shingles + SimHash).

Fingerprints the 130 pages of tests/data/html-distance-vectors.jsonl (100 real Sphinx
documentation pages and 30 small synthetic ones) several times, then a generated set of
larger templated pages (~200 KB each, past the 5000-token cut, so most of each page is
never read: the figure for them measures that cut as much as the code). Reports the best
of several rounds (CPU time), one figure a line as ``name value unit``:

    python benchmarks/bench_html.py [--rounds 7]

``html_mbps`` and ``html_pages_per_s`` are the vector pages' figures; the Go package
does roughly 26-35 MB/s on such pages.
"""

from __future__ import annotations

import argparse
import base64
import json
import random
import time
from collections.abc import Callable
from pathlib import Path

from ditto_tui.core.html_structure import HtmlStructure
from ditto_tui.core.html_tokenizer import scan_classes

VECTORS = Path(__file__).resolve().parent.parent / "tests" / "data" / "html-distance-vectors.jsonl"


def vector_pages() -> list[bytes]:
    """The page bytes of every test vector."""
    lines = VECTORS.read_text().splitlines()
    return [base64.b64decode(json.loads(line)["b64"]) for line in lines if line.strip()]


def generated_pages(count: int = 20, size: int = 200_000, seed: int = 1) -> list[bytes]:
    """Deterministic templated pages of about ``size`` bytes: nav, articles, tables, scripts."""
    rng = random.Random(seed)
    words = [
        "alpha",
        "beta",
        "gamma",
        "delta",
        "epsilon",
        "zeta",
        "theta",
        "lambda",
        "sigma",
        "omega",
    ]

    def text(n: int) -> str:
        return " ".join(rng.choice(words) for _ in range(n))

    pages = []
    for _ in range(count):
        parts = [
            "<!DOCTYPE html><html><head><title>",
            text(4),
            "</title>",
            "<meta charset='utf-8'><link rel='stylesheet' href='/s.css'>",
            "<script>var x = '<div>'; if (a < b) { f(); }</script></head><body>",
            "<nav class='top'><ul>",
        ]
        parts += [
            f"<li class='nav-item'><a href='/p{i}.html'>{text(2)}</a></li>"
            for i in range(rng.randint(5, 15))
        ]
        parts.append("</ul></nav>")
        while sum(map(len, parts)) < size:
            choice = rng.random()
            if choice < 0.5:
                parts.append(
                    f"<article class='post'><h2 id='h{rng.randint(0, 10**6)}'>"
                    f"{text(5)}</h2><p>{text(40)} &amp; {text(10)}</p></article>"
                )
            elif choice < 0.8:
                rows = "".join(
                    f"<tr><td class='c'>{text(2)}</td><td>{rng.random():.3f}</td></tr>"
                    for _ in range(rng.randint(2, 8))
                )
                parts.append(f"<table class='data'>{rows}</table>")
            elif choice < 0.9:
                parts.append(
                    f"<!-- block {rng.randint(0, 999)} --><div class='ad' "
                    f"data-slot={rng.randint(1, 9)}><img src='/i.png' alt=''/></div>"
                )
            else:
                parts.append(f"<pre><code>{text(30)}</code></pre>")
        parts.append("</body></html>")
        pages.append("".join(parts).encode())
    return pages


def best_seconds(work: Callable[[], object], rounds: int) -> float:
    """The smallest CPU time of ``rounds`` runs of ``work``."""
    best = float("inf")
    for _ in range(rounds):
        start = time.process_time()
        work()
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    pipeline = HtmlStructure()
    for label, pages in (("html", vector_pages()), ("html_large", generated_pages())):
        size = sum(map(len, pages))
        seconds = best_seconds(
            lambda pages=pages: [pipeline.fingerprint(p) for p in pages], args.rounds
        )
        scan_seconds = best_seconds(
            lambda pages=pages: [scan_classes(p, 5000) for p in pages], args.rounds
        )
        print(f"{label}_mbps {size / seconds / 1e6:.2f} MB/s")
        print(f"{label}_pages_per_s {len(pages) / seconds:.1f} pages/s")
        print(f"{label}_tokenizer_mbps {size / scan_seconds / 1e6:.2f} MB/s")
    # The worst case for the shingle hashing: one page of identical tags.
    same = b"<div class='x'>" * 5000
    seconds = best_seconds(lambda: pipeline.fingerprint(same), args.rounds)
    print(f"html_identical_tags_ms {seconds * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
