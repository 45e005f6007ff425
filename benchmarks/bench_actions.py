"""Benchmarks for review and actions: prints one figure a line as ``name value unit``.

Run: ``python benchmarks/bench_actions.py`` (``--files N`` changes the file count).

* ``keep_rule_100k_docs_10k_families``: building the per-document table (ranks of paths
  and names) and applying a two-rule keep order (newest, then shortest path) with a
  reference folder to 100,000 documents in 10,000 families of 10 (ms, median of 5;
  ``keep_rule_apply_only`` is the rule alone, on a built table).
* ``keep_rule_screen_preview_100k``: the explorer's keep rules screen preview
  (:func:`ditto_tui.explore.review.preview_marks`: families as member lists, the user's
  decisions respected, the marks and rows to show) on the same 100,000 documents, ms.
* ``families_split_by_ignored_pairs_100k``: the explorer's view re-forming the chain
  families that hold an ignored pair (one per family, 10,000 families of 10, each one
  split in two by it), ms; ``..._100_ignored_pairs_...`` the same with 100 pairs (a
  user's ignore list rather than a worst case).
* ``families_ignoring_pairs_100k``: ignore-aware families of the same documents (one
  ignored pair per family; pairs given), ms.
* ``trash_10k_files`` / ``undo_10k_files``: planning + executing a trash action on
  10,000 files of 2 KiB in a temporary folder (sha256 at plan and again before each move,
  a .trashinfo per file, the journal fsync'ed), then undoing it (files/s; the plan alone
  is ``plan_10k_files``). The tree is checked byte for byte after the undo.
  ``move_10k_files`` is the same into a quarantine folder (no .trashinfo to create).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from ditto_tui.core.families.ignore_aware import ignore_aware_labels
from ditto_tui.core.index.pairs import UniquePairs
from ditto_tui.core.review.keep import DocumentTable, preview
from ditto_tui.corpus.actions.execution import execute
from ditto_tui.corpus.actions.plan import Target
from ditto_tui.corpus.actions.planning import plan_action
from ditto_tui.corpus.actions.undo import undo_last


def emit(name: str, value: float, unit: str) -> None:
    print(f"{name} {value:.4g} {unit}", flush=True)


def bench_keep(rng: np.random.Generator, n: int = 100_000, families: int = 10_000) -> None:
    ids = [f"folder{i % 97}/sub{i % 13}/doc{i:06d}.txt" for i in range(n)]
    labels = np.repeat(np.arange(families), n // families)
    rng.shuffle(labels)
    mtime = rng.integers(1_600_000_000 * 10**9, 1_700_000_000 * 10**9, n)
    size = rng.integers(100, 100_000, n)
    times, apply_times = [], []
    for _ in range(5):
        t0 = time.perf_counter()
        table = DocumentTable.from_documents(ids, mtime, size, reference_folders=["folder7"])
        t1 = time.perf_counter()
        result = preview(labels, table, ["newest", "shortest-path"])
        t2 = time.perf_counter()
        times.append(t2 - t0)
        apply_times.append(t2 - t1)
    assert result.marked_count >= n - 2 * families
    emit("keep_rule_100k_docs_10k_families", 1000 * statistics.median(times), "ms")
    emit("keep_rule_apply_only", 1000 * statistics.median(apply_times), "ms")


def bench_explorer_review(rng: np.random.Generator, n: int = 100_000, families: int = 10_000) -> None:
    from types import SimpleNamespace

    from ditto_tui.core.families.clusters import Family
    from ditto_tui.explore.review import ReviewState, preview_marks, split_ignored

    size = n // families
    ids = [f"folder{i % 97}/sub{i % 13}/doc{i:06d}.txt" for i in range(n)]
    mtime = rng.integers(1_600_000_000 * 10**9, 1_700_000_000 * 10**9, n).tolist()
    documents = {d: SimpleNamespace(mtime_ns=m, size=1000, inode=0) for d, m in zip(ids, mtime, strict=True)}
    groups = [sorted(ids[f * size : (f + 1) * size]) for f in range(families)]
    state = ReviewState(active=True, decisions={ids[0]: "keep"})
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        result = preview_marks(groups, documents, state, rules=["newest", "shortest-path"],
                               folders=["folder7"])
        times.append(time.perf_counter() - t0)
    assert result.duplicates >= n - 2 * families
    emit("keep_rule_screen_preview_100k", 1000 * statistics.median(times), "ms")
    centres = rng.integers(0, 2**64, families, dtype=np.uint64)
    fps: dict[str, int] = {}
    listing = []
    for f, group in enumerate(groups):
        # member 0 is 4 bits from member 1 and 5 from the rest: ignoring (0, 1) splits it off
        for x, d in enumerate(group):
            flip = 0b1111 if x == 0 else 0 if x == 1 else 1 << (20 + x)
            fps[d] = int(centres[f] ^ np.uint64(flip))
        listing.append(Family(tuple(group), group[0], 2))
    pairs = tuple((g[0], g[1]) for g in groups)
    state = ReviewState(active=True, pairs=pairs)
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        split = split_ignored(listing, state.partners(), fps, 4)
        times.append(time.perf_counter() - t0)
    assert len(split) == 2 * families
    emit("families_split_by_ignored_pairs_100k", 1000 * statistics.median(times), "ms")
    state = ReviewState(active=True, pairs=pairs[:100])
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        split = split_ignored(listing, state.partners(), fps, 4)
        times.append(time.perf_counter() - t0)
    assert len(split) == families + 100
    emit("families_split_by_100_ignored_pairs_100k", 1000 * statistics.median(times), "ms")


def bench_linkage(rng: np.random.Generator, n: int = 100_000, families: int = 10_000) -> None:
    centres = rng.integers(0, 2**64, families, dtype=np.uint64)
    fps = np.repeat(centres, n // families)
    for _ in range(2):
        fps ^= np.uint64(1) << rng.integers(0, 64, n).astype(np.uint64)
    u, inv = np.unique(fps, return_inverse=True)
    pairs = UniquePairs.compute(u, 4)
    ia = np.arange(0, n, n // families, dtype=np.int64)
    ib = ia + 1
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        ignore_aware_labels(inv, len(u), pairs.i, pairs.j, pairs.d, 4, ia, ib)
        times.append(time.perf_counter() - t0)
    emit("families_ignoring_pairs_100k", 1000 * statistics.median(times), "ms")


def tree(root: Path) -> dict[str, str]:
    out = {}
    for dirpath, _, files in os.walk(root):
        for name in files:
            p = os.path.join(dirpath, name)
            with open(p, "rb") as fh:
                out[p] = hashlib.sha256(fh.read()).hexdigest()
    return out


def bench_files(n: int) -> None:
    with tempfile.TemporaryDirectory(prefix="ditto-bench-") as tmp:
        root = Path(tmp) / "corpus"
        for d in range(n // 500 + 1):
            (root / f"d{d:03d}").mkdir(parents=True)
        (root / "ref.txt").write_bytes(b"r" * 2048)
        targets = []
        for i in range(n):
            p = root / f"d{i // 500:03d}" / f"f{i:05d}.txt"
            p.write_bytes(os.urandom(1024).hex().encode())
            st = p.stat()
            targets.append(Target(f"d{i // 500:03d}/f{i:05d}.txt", st.st_size, st.st_mtime_ns,
                                  st.st_ino, "text", "ref.txt"))
        before = tree(root)
        t0 = time.perf_counter()
        plan = plan_action(root, "trash", targets, trash_dir=Path(tmp) / "trash")
        t1 = time.perf_counter()
        report = execute(plan, Path(tmp) / "journals")
        t2 = time.perf_counter()
        assert report.count("done") == n, report.failures[:3]
        undone = undo_last(Path(tmp) / "journals")
        t3 = time.perf_counter()
        assert undone is not None and undone.count("undone") == n
        assert tree(root) == before
        plan = plan_action(root, "move", targets, quarantine=Path(tmp) / "quarantine")
        t5 = time.perf_counter()
        assert execute(plan, Path(tmp) / "journals").count("done") == n
        t6 = time.perf_counter()
        assert undo_last(Path(tmp) / "journals") is not None
        assert tree(root) == before
        emit(f"plan_{n // 1000}k_files", n / (t1 - t0), "files/s")
        emit(f"move_{n // 1000}k_files", n / (t6 - t5), "files/s")
        emit(f"trash_{n // 1000}k_files", n / (t2 - t1), "files/s")
        emit(f"trash_plan_and_execute_{n // 1000}k_files", n / (t2 - t0), "files/s")
        emit(f"undo_{n // 1000}k_files", n / (t3 - t2), "files/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=10_000)
    args = parser.parse_args()
    rng = np.random.default_rng(14)
    bench_keep(rng)
    bench_explorer_review(rng)
    bench_linkage(rng)
    bench_files(args.files)


if __name__ == "__main__":
    main()
