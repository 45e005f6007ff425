"""What finding HTML by content costs: the sniff itself, and scans with the html pipeline.

Prints one ``name value unit`` line per figure (median of ``--repeat`` runs):

- ``sniff_html_us``: one call of ``sniff_html`` on a 1445-byte head;
- ``html_scan_{named,unnamed}_pages_s``: a cold html-pipeline scan (no cache, one process)
  of N pages named ``.html`` / stored without an extension (each then read twice: its head
  for the sniff, then in full);
- ``html_scan_text_files_refused_s`` and ``..._per_file_us``: the same scan of N plain text
  files, every one opened for its head and refused (before sniffing they were refused by
  name, without an open).

    python benchmarks/bench_sniff.py [--files 5000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import time
import timeit
from pathlib import Path

from ditto_tui.core.fingerprint.pipeline import make_pipeline
from ditto_tui.core.html.sniff import sniff_html
from ditto_tui.corpus.session import CorpusSession

WORK = Path(__file__).resolve().parent / "_work" / "sniff"


def emit(name: str, value: float, unit: str) -> None:
    print(f"{name} {value:.4g} {unit}", flush=True)


def page(rng: random.Random) -> bytes:
    items = "".join(f"<li><a href='/p{rng.randrange(999)}'>item</a></li>" for _ in range(20))
    return f"<!DOCTYPE html>\n<html><head><title>t</title></head><body><ul>{items}</ul>".encode()


def make(files: int) -> dict[str, Path]:
    folders = {name: WORK / f"{name}-{files}" for name in ("named", "unnamed", "text")}
    if all(f.is_dir() for f in folders.values()):
        return folders
    shutil.rmtree(WORK, ignore_errors=True)
    rng = random.Random(7)
    for name, folder in folders.items():
        for i in range(files):
            sub = folder / f"d{i // 500:03d}"
            sub.mkdir(parents=True, exist_ok=True)
            if name == "text":
                data = (" ".join(rng.choice(("alpha", "beta", "gamma")) for _ in range(300)))
                (sub / f"f{i:06d}.txt").write_text(data)
            else:
                (sub / (f"p{i:06d}.html" if name == "named" else f"p{i:06d}")).write_bytes(
                    page(rng)
                )
    return folders


def scan_seconds(folder: Path) -> tuple[float, int]:
    html = make_pipeline("html")
    with CorpusSession(folder, html, use_cache=False, jobs=1) as s:
        t0 = time.perf_counter()
        s.scan()
        return time.perf_counter() - t0, len(s.fingerprints)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--files", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    head = page(random.Random(1))[:1445]
    runs = [timeit.timeit(lambda: sniff_html(head), number=20000) / 20000 for _ in range(5)]
    emit("sniff_html_us", statistics.median(runs) * 1e6, "us")
    folders = make(args.files)
    for name, label in (("named", "named_pages"), ("unnamed", "unnamed_pages"),
                        ("text", "text_files_refused")):
        times = []
        for _ in range(args.repeat):
            seconds, docs = scan_seconds(folders[name])
            times.append(seconds)
        expected = 0 if name == "text" else args.files
        assert docs == expected, (name, docs)
        emit(f"html_scan_{label}_s", statistics.median(times), "s")
        if name == "text":
            emit(f"html_scan_{label}_per_file_us", statistics.median(times) / args.files * 1e6,
                 "us")


if __name__ == "__main__":
    main()
