"""What the confined open costs: reading small files through RootDir vs a plain open.

Prints ``name value unit`` lines. ``gate_read_us_per_file`` reads every file of a
generated tree (10,000 files of 2 KiB, three folders deep) through
:func:`ditto_tui.corpus.reading.read_document_bytes` (component-by-component ``O_NOFOLLOW``
opens, lstat before and fstat after, the /proc real-path check), ``gate_batch_read_us_per_file``
the same inside ``RootDir.batch()`` as the scan does (a folder's descriptor reused for its
files); ``plain_read_us_per_file``
reads the same files with one ``os.open`` of the absolute path, an ``fstat`` and a read (the
reader before the gate). ``walk_10k_s`` is a whole walk of the tree.

    python benchmarks/bench_safe_open.py [--files 10000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from ditto_tui.corpus.reading import read_document_bytes
from ditto_tui.corpus.records import FileEntry
from ditto_tui.corpus.rootdir import RootDir
from ditto_tui.corpus.walk import Walker

WORK = Path(__file__).resolve().parent / "_work" / "safe_open"


def emit(name: str, value: float, unit: str) -> None:
    print(f"{name} {value:.4g} {unit}", flush=True)


def make_tree(n: int) -> Path:
    root = WORK / f"tree-{n}"
    marker = root / ".done"
    if marker.exists():
        return root
    for i in range(n):
        path = root / f"a{i % 10}" / f"b{i % 7}" / f"c{i % 3}" / f"f{i:06}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes((f"document {i} " * 200)[:2048].encode())
    marker.write_text("")
    return root


def plain_read(path: str) -> bytes:
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        os.fstat(fd)
        return os.read(fd, 1 << 20)
    finally:
        os.close(fd)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    root = make_tree(args.files)
    walker = Walker(str(root))
    start = time.perf_counter()
    entries = [e for e in walker.walk() if isinstance(e, FileEntry)]
    emit(f"walk_{args.files // 1000}k_s", time.perf_counter() - start, "s")
    gate = RootDir(root)
    gate_times, batch_times, plain_times = [], [], []
    for _ in range(args.repeat):
        start = time.perf_counter()
        for e in entries:
            read_document_bytes(gate, e.id, max_size=1 << 20)
        gate_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        with gate.batch():
            for e in entries:
                read_document_bytes(gate, e.id, max_size=1 << 20)
        batch_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        for e in entries:
            plain_read(e.path)
        plain_times.append(time.perf_counter() - start)
    for times in (gate_times, batch_times, plain_times):
        times.sort()
    emit("gate_read_us_per_file", gate_times[len(gate_times) // 2] / len(entries) * 1e6, "us (median)")
    emit("gate_batch_read_us_per_file", batch_times[len(batch_times) // 2] / len(entries) * 1e6,
         "us (median; the scan's way: folder descriptors reused within a chunk)")
    emit("plain_read_us_per_file", plain_times[len(plain_times) // 2] / len(entries) * 1e6, "us (median)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
