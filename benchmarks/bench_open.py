"""``ditto-tui open`` on a large Spark results folder, in a real pseudo-terminal.

Prints ``name value unit`` lines. Starts the installed ``ditto-tui open RESULTS`` on a
120x40 pseudo-terminal (as ``bench_terminal.py`` does, whose ``Terminal`` it uses) and
reads the frames the app writes:

- ``open_<n>_ready_s``: from launch until a finished frame's status line counts every
  document and the families of the stored listing at k=3 (the family list painted), the
  median of ``--runs`` launches;
- ``open_<n>_rss_mb``: the app's peak resident memory (``VmHWM``) after that and the
  keys below;
- ``open_<n>_settled_s``: from launch until the app is idle (the listings of the other k,
  the k chart and the member lists computed after the first paint: under 5 % of a core
  over half a second);
- ``open_<n>_k_step_p50_ms`` / ``_p99_ms``: once settled, ``[`` and ``]`` alternately
  between k=2 and k=3, key to the frame showing the new k;
- ``open_<n>_next_family_p50_ms``: the down arrow in the family list, key to the frame
  that shows the next family's members.

The results folder is ``--results DIR`` (e.g. written by ``ditto-tui spark run``), or
generated once under ``benchmarks/_work``: ``--docs`` fingerprints as
``bench_spark.generated_fingerprints`` makes them (1 % copies, 1 % one long chain), with
the ``pairs-fp`` and ``families`` tables a Spark run writes at K = ``--k``, computed here
in-process (the layout of :mod:`ditto_tui.scale.layout`; Spark's own output opens the
same way, see docs/spark.md).

    python benchmarks/bench_open.py [--docs 1000000] [--results DIR] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_spark import generated_fingerprints  # noqa: E402
from bench_terminal import Terminal, at_k, command, emit, k_steps  # noqa: E402
from bench_ui import WORK, percentile  # noqa: E402


def label(n: int) -> str:
    return f"{n // 1_000_000}m" if n % 1_000_000 == 0 else f"{n // 1000}k"


def write_families(out: Path, max_k: int) -> None:
    """The ``pairs-fp`` and ``families`` tables (and their metadata) of the fingerprints
    in ``out``, as the Spark stages write them (computed here)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from ditto_tui.core.families.clusters import components
    from ditto_tui.core.index.pairs import unique_pairs
    from ditto_tui.scale.results import load_results

    results = load_results(out)
    u, first, inv = np.unique(results.fps, return_index=True, return_inverse=True)
    a, b, d = unique_pairs(u, max_k)
    counts = np.bincount(inv.reshape(-1), minlength=len(u))
    (out / "pairs-fp").mkdir()
    pq.write_table(pa.table({
        "fp_a": u[a].view(np.int64), "fp_b": u[b].view(np.int64),
        "distance": d.astype(np.int32), "n_a": counts[a], "n_b": counts[b],
    }), str(out / "pairs-fp" / "part-0.parquet"))
    previous = first.astype(np.int64)  # k = 0: the first document of each fingerprint
    rows: dict[str, list[np.ndarray]] = {"fp": [], "k": [], "family": []}
    multi = {0: int(np.count_nonzero(counts >= 2))}
    for k in range(1, max_k + 1):
        within = d <= k
        comp = components(len(u), a[within], b[within])
        smallest = np.full(int(comp.max()) + 1 if len(comp) else 0, len(results), np.int64)
        np.minimum.at(smallest, comp, first)
        labels = smallest[comp]
        changed = np.flatnonzero(labels != previous)
        rows["fp"].append(u[changed].view(np.int64))
        rows["k"].append(np.full(len(changed), k, np.int32))
        rows["family"].append(labels[changed])
        previous = labels
        sizes = np.bincount(comp, weights=counts)
        multi[k] = int(np.count_nonzero(sizes >= 2))
    (out / "families").mkdir()
    pq.write_table(pa.table({c: np.concatenate(v) for c, v in rows.items()}),
                   str(out / "families" / "part-0.parquet"))
    for stage, meta in (
        ("pairs", {"k": max_k, "distinct": len(u), "fp_pairs": len(a)}),
        ("families", {"max_k": max_k, "levels": list(range(max_k + 1)),
                      "multi_families": {str(k): v for k, v in multi.items()}}),
    ):
        (out / f"meta-{stage}").mkdir()
        pq.write_table(pa.table({"json": [json.dumps(meta)]}),
                       str(out / f"meta-{stage}" / "part-0.parquet"))


def results_folder(n: int, max_k: int) -> Path:
    """The generated results folder for ``n`` documents (made once)."""
    out = WORK / f"open-{label(n)}-k{max_k}"
    done = out.with_name(out.name + ".complete")
    if not done.exists():
        generated_fingerprints(out, n)
        write_families(out, max_k)
        done.write_text("")
    return out


def ready(n: int, families: int, k: int) -> re.Pattern[str]:
    """The status line once the whole listing at ``k`` is shown."""
    return re.compile(rf"{n:,} docs · .*\b{families:,} families · k={k}\b")


def settled(term: Terminal, timeout: float = 120.0) -> None:
    """Read frames until the app uses under 5 % of a core over half a second."""
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        before, start = term.cpu_seconds(), time.perf_counter()
        term.drain(0.5)
        while time.perf_counter() - start < 0.5:
            term.frames(0.5 - (time.perf_counter() - start))
        if term.cpu_seconds() - before < 0.05 * (time.perf_counter() - start):
            return


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", type=int, default=1_000_000)
    parser.add_argument("--k", type=int, default=3, help="K of the generated families")
    parser.add_argument("--results", type=Path, default=None, help="an existing results folder")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--steps", type=int, default=40)
    args = parser.parse_args()
    from ditto_tui.scale.results import ResultsSession, load_results

    folder = args.results or results_folder(args.docs, args.k)
    results = load_results(folder)
    n = len(results)
    families = len(results.families_at(3, min_size=2))
    stored = ResultsSession(results, max_k=3).stored_index()
    assert stored is not None, "the results hold no families up to k=3"
    # the members (but the representative, which the family list shows) of the first
    # families at k=2: the member list shows them once the family is opened
    members = [
        re.compile("|".join(re.escape(m) for m in f.members if m != f.centre))
        for f in stored.family_listing(2).multi[:21]
    ]
    del results, stored
    print(f"machine_load_1min {os.getloadavg()[0]:.2f} load", flush=True)
    WORK.mkdir(exist_ok=True)
    cache = Path(tempfile.mkdtemp(prefix="open-cache-", dir=WORK))
    argv = [*command(), "open", str(folder)]
    name = f"open_{label(n)}"
    times = []
    for run in range(args.runs):
        term = Terminal(folder, cache, argv)
        try:
            times.append(term.until(ready(n, families, 3), timeout=600, since=term.started))
            if run < args.runs - 1:
                continue
            settled(term)
            emit(f"{name}_settled_s", time.perf_counter() - term.started, "s")
            term.key(b"[")
            term.until(at_k(2))
            term.drain(1.0)
            steps = k_steps(term, 2, args.steps)
            emit(f"{name}_k_step_p50_ms", statistics.median(steps), "ms")
            emit(f"{name}_k_step_p99_ms", percentile(steps, 0.99), "ms")
            opened = []
            for row in range(1, len(members)):
                start = term.key(b"\x1b[B")  # the down arrow: the next family
                opened.append(term.until(members[row], since=start, timeout=30) * 1000)
                time.sleep(0.15)
                term.drain(0.1)
            emit(f"{name}_next_family_p50_ms", statistics.median(opened), "ms")
            emit(f"{name}_rss_mb", peak_rss_mb(term.process.pid), "MB")
        finally:
            term.close()
    emit(f"{name}_ready_s", statistics.median(times), "s")
    print(f"{name}_ready_runs_s {' '.join(f'{t:.2f}' for t in times)}", flush=True)
    print(f"machine_load_1min_after {os.getloadavg()[0]:.2f} load", flush=True)


if __name__ == "__main__":
    main()
