"""Throughput of the html-distance pipeline (tokenizer + features + shingles + SimHash).

Fingerprints the 130 pages of tests/data/html-distance-vectors.jsonl (100 real Sphinx
documentation pages and 30 small synthetic ones) several times, then a generated set of
larger templated pages (~200 KB each, past the 5000-token cut, so most of each page is
never read: the figure for them measures that cut as much as the code). Reports the best
of several rounds (CPU time), one figure a line as ``name value unit``:

    python benchmarks/bench_html.py [--rounds 7] [--engine compiled|numpy] [--isa avx2]

``html_structure_1proc_mbps`` is the headline: unseen real pages (the vector pages never
fingerprinted before by this pipeline, after the other half), one process, with the
chosen engine (default: the compiled one, with the best instruction set this CPU runs, or
``--isa``; ``_numpy`` twin for comparison).

A pipeline remembers the token sources, features and shingle hashes of the pages it has
seen, so three figures per set: ``_mbps`` with one pipeline for all rounds (every page
seen before: the memo's best case), ``_cold_mbps`` with a new pipeline per round (each
page is the first of its kind, but shares tags with the pages before it), and, for the
vector pages, ``html_unseen_mbps``: pages never seen, after the other half of the set
(the usual case in a large corpus). ``_tokenizer_mbps`` times ``token_keys`` (the
fingerprint's tokenizer), ``_scan_mbps`` the full ``scan_classes``. The Go package does
roughly 26-35 MB/s on the vector pages.
"""

from __future__ import annotations

import argparse
import base64
import json
import random
import time
from collections.abc import Callable
from pathlib import Path

from ditto_tui.core.fingerprint import engine
from ditto_tui.core.html.structure import HtmlStructure
from ditto_tui.core.html.tokenizer import scan_classes, token_keys

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


def best_seconds(
    work: Callable[[object], object], rounds: int, setup: Callable[[], object] = lambda: None
) -> float:
    """The smallest CPU time of ``rounds`` runs of ``work(setup())`` (setup not timed)."""
    best = float("inf")
    for _ in range(rounds):
        state = setup()
        start = time.process_time()
        work(state)
        best = min(best, time.process_time() - start)
    return best


def fingerprint_all(pipeline: object, pages: list[bytes]) -> None:
    """Fingerprint every page with ``pipeline`` (an HtmlStructure)."""
    assert isinstance(pipeline, HtmlStructure)
    for page in pages:
        pipeline.fingerprint(page)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--engine", choices=engine.ENGINES, default="compiled")
    parser.add_argument("--isa", choices=engine.isas(), default=None)
    args = parser.parse_args()
    rounds = args.rounds
    engine.select(args.engine)
    if args.isa:
        engine.use_isa(args.isa)
    print(f"engine {engine.describe()}")
    vectors = vector_pages()
    for label, pages in (("html", vectors), ("html_large", generated_pages())):
        size = sum(map(len, pages))
        pipeline = HtmlStructure()  # one for all rounds
        seconds = best_seconds(
            lambda same, p=pages: fingerprint_all(same, p), rounds, lambda same=pipeline: same
        )
        cold = best_seconds(lambda fresh, p=pages: fingerprint_all(fresh, p), rounds, HtmlStructure)
        keys = best_seconds(lambda _, p=pages: [token_keys(d, 5000) for d in p], rounds)
        scan = best_seconds(lambda _, p=pages: [scan_classes(d, 5000) for d in p], rounds)
        print(f"{label}_mbps {size / seconds / 1e6:.2f} MB/s")
        print(f"{label}_pages_per_s {len(pages) / seconds:.1f} pages/s")
        print(f"{label}_cold_mbps {size / cold / 1e6:.2f} MB/s")
        print(f"{label}_tokenizer_mbps {size / keys / 1e6:.2f} MB/s")
        print(f"{label}_scan_mbps {size / scan / 1e6:.2f} MB/s")

    def warmed() -> HtmlStructure:
        pipeline = HtmlStructure()
        fingerprint_all(pipeline, vectors[0::2])
        return pipeline

    unseen = vectors[1::2]
    seconds = best_seconds(lambda warm: fingerprint_all(warm, unseen), rounds, warmed)
    print(f"html_unseen_mbps {sum(map(len, unseen)) / seconds / 1e6:.2f} MB/s")
    print(f"html_structure_1proc_mbps {sum(map(len, unseen)) / seconds / 1e6:.2f} MB/s")
    if args.engine != "numpy":
        engine.select("numpy")
        seconds = best_seconds(lambda warm: fingerprint_all(warm, unseen), rounds, warmed)
        print(f"html_structure_1proc_numpy_mbps {sum(map(len, unseen)) / seconds / 1e6:.2f} MB/s")
        engine.select(args.engine)
    # The worst case for the shingle hashing: one page of identical tags.
    same = b"<div class='x'>" * 5000
    seconds = best_seconds(lambda fresh: fresh.fingerprint(same), rounds, HtmlStructure)
    print(f"html_identical_tags_ms {seconds * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
