"""Figures for the HTML report: time and size for the sample corpus and for 10,000
generated documents, and how long Chromium takes to open the 10k report.

Run from the repository root: ``python benchmarks/bench_report.py [--repeat 3]``.
Prints ``name value unit`` lines (medians over the repeats). The corpus scan (fingerprinting,
no cache) is timed apart from the report itself (index, families, reading and diffing the
documents, rendering, writing).

Browser figures (skipped when no Chromium is installed): the wall time of
``chromium --headless --dump-dom`` on the 10k report and on an empty page (start-up and
serialising the DOM are in both), and the page's own navigation timings, read from a copy
of the report with one extra probe script (allowed by its hash in the copy's policy):
first contentful paint, DOM interactive (the whole file parsed) and the load event,
in seconds from navigation start.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ditto_tui.core import NearIndex, make_pipeline  # noqa: E402
from ditto_tui.corpus.session import CorpusSession  # noqa: E402
from ditto_tui.report import gather_report, render_report, write_report  # noqa: E402
from tests.report.chromium import dump_dom, find_chromium  # noqa: E402
from tests.scale.corpus_maker import CorpusShape, make_corpus  # noqa: E402

#: about 10,000 documents: ~1,300 families of 3..9, 2,300 unique texts, copies, mail, HTML
SHAPE_10K = CorpusShape(families=1300, uniques=2300, copies=150, binaries=10)


PROBE = """
window.addEventListener("load",function(){setTimeout(function(){
var n=performance.getEntriesByType("navigation")[0];
var t={interactive:n.domInteractive,load:n.loadEventStart,fcp:-1};
performance.getEntriesByType("paint").forEach(function(e){
  if(e.name==="first-contentful-paint"){t.fcp=e.startTime;}});
document.documentElement.setAttribute("data-timing",
  [t.fcp,t.interactive,t.load].map(function(v){return Math.round(v);}).join(","));
},0);});
"""


def instrumented(page: Path, dest: Path) -> Path:
    """A copy of ``page`` with the timing probe, allowed by its hash in the policy."""
    digest = base64.b64encode(hashlib.sha256(PROBE.encode()).digest()).decode()
    html = page.read_text(encoding="utf-8")
    marker = "script-src &#x27;"
    assert marker in html, "the report's policy has changed: update the probe"
    html = html.replace(marker, f"{marker}sha256-{digest}&#x27; &#x27;", 1)
    html = html.replace("</head>", f"<script>{PROBE}</script>\n</head>", 1)
    dest.write_text(html, encoding="utf-8")
    return dest


def page_timings(browser: str, page: Path) -> tuple[float, float, float]:
    """(first contentful paint, DOM interactive, load event) in seconds."""
    dom, _ = dump_dom(browser, page)
    found = re.search(r'data-timing="(-?\d+),(\d+),(\d+)"', dom)
    if found is None:
        raise RuntimeError("the timing probe did not run")
    fcp, interactive, load = (int(v) / 1000 for v in found.groups())
    return fcp, interactive, load


def emit(name: str, value: float, unit: str) -> None:
    print(f"{name} {value:.3f} {unit}", flush=True)


def one_report(root: Path, dest: Path, k: int = 3) -> dict[str, float]:
    """Scan ``root`` and write its report to ``dest``; the timings and the size."""
    t0 = time.perf_counter()
    with CorpusSession(root, make_pipeline(), use_cache=False, reconcile_every=None) as session:
        session.scan()
        t1 = time.perf_counter()
        fps = session.fingerprints
        index = NearIndex(max_k=8)
        index.add_many(list(fps), np.fromiter((int(f) for f in fps.values()), np.uint64,
                                              len(fps)))
        t2 = time.perf_counter()
        report = gather_report(session, index, k=k)
        t3 = time.perf_counter()
    page = render_report(report)
    t4 = time.perf_counter()
    dest.unlink(missing_ok=True)
    size = write_report(page, dest)
    t5 = time.perf_counter()
    return {
        "documents": len(fps), "families": len(report.families),
        "scan": t1 - t0, "index": t2 - t1, "gather": t3 - t2, "render": t4 - t3,
        "write": t5 - t4, "report": t5 - t1, "mb": size / 1e6,
    }


def run(name: str, root: Path, dest: Path, repeat: int) -> Path:
    runs = [one_report(root, dest) for _ in range(repeat)]
    first = runs[0]
    emit(f"{name}_documents", first["documents"], "docs")
    emit(f"{name}_families", first["families"], "families")
    for key in ("scan", "index", "gather", "render", "write", "report"):
        emit(f"{name}_{key}", statistics.median(r[key] for r in runs), "s")
    emit(f"{name}_size", first["mb"], "MB")
    return dest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="ditto-bench-report-") as tmp:
        work = Path(tmp)
        run("report_sample", ROOT / "sample_corpus", work / "sample.html", args.repeat)
        corpus = work / "corpus10k"
        make_corpus(corpus, SHAPE_10K)
        big = run("report_10k", corpus, work / "10k.html", args.repeat)
        browser = find_chromium()
        if browser is None:
            print("# chromium not found: browser load time skipped", file=sys.stderr)
            return 0
        blank = work / "blank.html"
        blank.write_text("<!DOCTYPE html><title>blank</title><p>blank</p>\n")
        base = statistics.median(dump_dom(browser, blank)[1] for _ in range(args.repeat))
        load = statistics.median(dump_dom(browser, big)[1] for _ in range(args.repeat))
        emit("chromium_dump_dom_blank_page", base, "s")
        emit("chromium_dump_dom_report_10k", load, "s")
        probe = instrumented(big, work / "10k-probe.html")
        timings = [page_timings(browser, probe) for _ in range(args.repeat)]
        for i, name in enumerate(("first_contentful_paint", "dom_interactive", "load_event")):
            emit(f"chromium_report_10k_{name}", statistics.median(t[i] for t in timings), "s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
