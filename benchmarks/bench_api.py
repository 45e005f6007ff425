"""Benchmarks of the library calls: prints one figure a line as ``name value unit``.

Run: ``python benchmarks/bench_api.py`` (``--quick`` uses 100k fingerprints instead of
1M). Each figure is the median of ``--repeat`` runs (default 3). Data are synthetic and
seeded: documents are sentences drawn from a fixed vocabulary (about 2 KB each); the
index holds uniformly random fingerprints with 1% planted near-duplicates (up to 3 bit
flips), ids ``doc-0000000``..

* ``api_fingerprint_many_ditto``: ``ditto().fingerprint_many`` on 2,000 documents;
* ``api_fingerprint_many_html``: ``html_distance().fingerprint_many`` on 500 pages;
* ``api_near_1m``: one ``Index.near(fp)`` at the build k=3 over 1M entries (queries are
  entries with a few bits flipped); ``api_near_scan_1m``: one ``Index.near(fp, 8)``
  above that build k (a scan of every distinct fingerprint);
* ``api_save_1m`` / ``api_load_1m`` / ``api_index_file_1m``: ``Index.save`` and
  ``load_index`` of 1M entries, and the file size;
* ``api_oracle_see_many_1m``: ``Oracle.see_many`` of 1M fingerprints;
  ``api_oracle_see_1m``: one more ``Oracle.see`` after those;
  ``api_oracle_seen_1m``: one ``Oracle.seen(fp, 4)`` over the 1M seen fingerprints.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable

import numpy as np

import ditto_tui as dt


def emit(name: str, value: float, unit: str) -> None:
    print(f"{name} {value:.4g} {unit}", flush=True)


def median_time(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def documents(rng: np.random.Generator, n: int, size: int = 2000) -> list[str]:
    words = [f"w{i}x" for i in range(3000)] + ["the", "a", "of", "and", "near", "duplicate"]
    out = []
    for _ in range(n):
        picks = rng.integers(0, len(words), size // 4)
        out.append(" ".join(words[i] for i in picks)[:size])
    return out


def pages(rng: np.random.Generator, n: int) -> list[bytes]:
    tags = ["div", "p", "span", "a", "ul", "li", "table", "tr", "td", "h2"]
    out = []
    for _ in range(n):
        body = "".join(
            f'<{t} class="c{int(c)}">text {int(c)}</{t}>'
            for t, c in zip(rng.choice(tags, 120), rng.integers(0, 5, 120), strict=True)
        )
        out.append(f"<!doctype html><html><head><title>x</title></head><body>{body}</body></html>".encode())
    return out


def fingerprints(rng: np.random.Generator, n: int) -> np.ndarray:
    fps = rng.integers(0, 2**64, n, dtype=np.uint64, endpoint=False)
    m = n // 100
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    planted = fps[src].copy()
    for _ in range(3):
        planted ^= np.uint64(1) << rng.integers(0, 64, m).astype(np.uint64)
    fps[dst] = planted
    return fps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="100k fingerprints instead of 1M")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(18)
    n = 100_000 if args.quick else 1_000_000
    tag = "100k" if args.quick else "1m"

    docs = documents(rng, 2000)
    mb = sum(len(d.encode()) for d in docs) / 1e6
    p = dt.ditto()
    emit("api_fingerprint_many_ditto", mb / median_time(lambda: p.fingerprint_many(docs), args.repeat), "MB/s")
    html = pages(rng, 500)
    h = dt.html_distance()
    mb = sum(map(len, html)) / 1e6
    h.fingerprint_many(html[:1])  # warm the tokenizer tables
    emit("api_fingerprint_many_html", mb / median_time(lambda: h.fingerprint_many(html), args.repeat), "MB/s")

    fps = fingerprints(rng, n)
    ids = [f"doc-{i:07}" for i in range(n)]
    t = time.perf_counter()
    index = dt.Index(3)
    index.add_many(ids, fps)
    emit(f"api_build_{tag}", time.perf_counter() - t, "s")
    queries = fps[rng.integers(0, n, 2000)] ^ (np.uint64(1) << rng.integers(0, 64, 2000).astype(np.uint64))
    qs = queries.tolist()

    def near_all() -> None:
        for q in qs:
            index.near(q)

    emit(f"api_near_{tag}", median_time(near_all, args.repeat) / len(qs) * 1e6, "us")

    def scan_some() -> None:
        for q in qs[:50]:
            index.near(q, 8)

    emit(f"api_near_scan_{tag}", median_time(scan_some, args.repeat) / 50 * 1e3, "ms")

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "index.ditto")
        emit(f"api_save_{tag}", median_time(lambda: index.save(path), args.repeat), "s")
        emit(f"api_index_file_{tag}", os.path.getsize(path) / 1e6, "MB")
        emit(f"api_load_{tag}", median_time(lambda: dt.load_index(path, dt.ditto()), args.repeat), "s")

    oracle = dt.Oracle(3)
    t = time.perf_counter()
    oracle.see_many(fps)
    emit(f"api_oracle_see_many_{tag}", time.perf_counter() - t, "s")
    extra = (fps[:2000] ^ np.uint64(0xF0F0)).tolist()
    t = time.perf_counter()
    for f in extra:
        oracle.see(f)
    emit(f"api_oracle_see_{tag}", (time.perf_counter() - t) / len(extra) * 1e6, "us")

    def seen_all() -> None:
        for q in qs:
            oracle.seen(q, 4)

    emit(f"api_oracle_seen_{tag}", median_time(seen_all, args.repeat) / len(qs) * 1e6, "us")


if __name__ == "__main__":
    main()
