"""Figures for the HTML report: time and size for the sample corpus, for 10,000 generated
documents and for generated stand-ins of the real corpora of issue 34, and how soon
Chromium paints the 10k report's family list.

Run from the repository root: ``python benchmarks/bench_report.py [--repeat 3]``.
Prints ``name value unit`` lines (medians over the repeats). The corpus scan (fingerprinting,
no cache) is timed apart from the report itself (index, families, reading and diffing the
documents, rendering, writing).

Whole process (``report_<shape>_process``): ``ditto-tui report`` run as a command on the
stand-ins of tests/report/shapes.py (a folder of licence files, a web site with the html
pipeline, a source tree), the fingerprint cache warm, beside ``ditto-tui cluster`` on the
same folder (``cluster_<shape>_process``). Issue 34's targets on a quiet machine: licences
at most 5 s, web pages at most 10 s.

Browser figures (skipped when no Chromium is installed): the wall time from starting
``chromium --headless --screenshot`` to the first paint of the family list (its first row,
seen by an element-timing observer that a copy of the page carries, allowed by its hash
in the copy's policy, and logs to the console), to the load event and to the screenshot,
for the 10k report and for an empty page. Issue 34: the family list within 2 s of the
empty page's first paint.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import os
import re
import statistics
import subprocess
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
from tests.report.chromium import FLAGS, find_chromium  # noqa: E402
from tests.report.shapes import make_code, make_html, make_licenses  # noqa: E402
from tests.scale.corpus_maker import CorpusShape, make_corpus  # noqa: E402

#: about 10,000 documents: ~1,300 families of 3..9, 2,300 unique texts, copies, mail, HTML
SHAPE_10K = CorpusShape(families=1300, uniques=2300, copies=150, binaries=10)

#: the stand-ins: (name, maker, extra options of the report command)
SHAPES = (
    ("licenses", make_licenses, ()),
    ("html", make_html, ("--pipeline", "html")),
    ("code", make_code, ()),
)

#: logs each first paint (paint timing) and the family list's (element timing), the
#: DOMContentLoaded and load events: "ditto-timing NAME TIME_ORIGIN_MS MS"
PROBE = """
(function(){
var seen={};
function log(key,ms){if(!(key in seen)){seen[key]=1;
  console.log("ditto-timing "+key+" "+Math.round(performance.timeOrigin)+" "+Math.round(ms));}}
function keep(list){list.getEntries().forEach(function(e){
  if(e.entryType==="element"){log(e.identifier,e.renderTime||e.loadTime);}
  else{log(e.name,e.startTime);}});}
try{new PerformanceObserver(keep).observe({type:"element",buffered:true});}catch(x){}
try{new PerformanceObserver(keep).observe({type:"paint",buffered:true});}catch(x){}
document.addEventListener("DOMContentLoaded",function(){log("dom-content-loaded",performance.now());});
window.addEventListener("load",function(){log("load",performance.now());});
})();
"""

BLANK = ('<!DOCTYPE html><html><head><title>blank</title></head><body>'
         '<p elementtiming="family-list">blank</p></body></html>\n')


def instrumented(page: Path, dest: Path) -> Path:
    """A copy of ``page`` with the timing probe (allowed by its hash in the policy, if the
    page has one) and the family list's first row marked for element timing."""
    digest = base64.b64encode(hashlib.sha256(PROBE.encode()).digest()).decode()
    html = page.read_text(encoding="utf-8")
    marker = "script-src &#x27;"
    if "Content-Security-Policy" in html:
        assert marker in html, "the report's policy has changed: update the probe"
        html = html.replace(marker, f"{marker}sha256-{digest}&#x27; &#x27;", 1)
    html = html.replace("</head>", f"<script>{PROBE}</script>\n</head>", 1)
    html = html.replace('<tr class="fam"><td class="num">',
                        '<tr class="fam"><td class="num" elementtiming="family-list">', 1)
    dest.write_text(html, encoding="utf-8")
    return dest


def paint_timings(browser: str, page: Path) -> dict[str, float]:
    """Seconds from starting Chromium to each logged event, and to its exit (the
    screenshot taken)."""
    with tempfile.TemporaryDirectory(prefix="ditto-bench-chromium-") as profile:
        start = time.time()
        done = subprocess.run(
            [browser, *FLAGS, f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
             "--window-size=1280,1600", f"--screenshot={profile}/shot.png",
             page.resolve().as_uri()],
            capture_output=True, text=True, timeout=300, check=False,
            env={**os.environ, "DBUS_SESSION_BUS_ADDRESS": "disabled:"},
        )
        out = {"screenshot": time.time() - start}
    for key, origin, ms in re.findall(r"ditto-timing (\S+) (\d+) (\d+)", done.stderr):
        out[key] = int(origin) / 1000 - start + int(ms) / 1000
    if "family-list" not in out:
        raise RuntimeError(f"the timing probe did not run: {done.stderr[-2000:]}")
    return out


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


def command_time(argv: list[str], env: dict[str, str]) -> float:
    """Wall time of one ``ditto-tui`` command run as its own process."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "ditto_tui", *argv], check=True, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    return time.perf_counter() - start


def run_shapes(work: Path, repeat: int) -> None:
    env = {**os.environ, "XDG_CACHE_HOME": str(work / "cache")}
    for name, maker, options in SHAPES:
        root = maker(work / name)
        dest = work / f"{name}.html"
        cluster = ["cluster", *options, str(root)]
        report = ["report", *options, str(root), "-o", str(dest), "--force"]
        command_time(cluster, env)  # fills the fingerprint cache
        emit(f"cluster_{name}_process", statistics.median(
            command_time(cluster, env) for _ in range(repeat)), "s")
        emit(f"report_{name}_process", statistics.median(
            command_time(report, env) for _ in range(repeat)), "s")
        emit(f"report_{name}_size", dest.stat().st_size / 1e6, "MB")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-shapes", action="store_true",
                        help="skip the stand-ins of the real corpora")
    args = parser.parse_args(argv)
    print(f"# load average {os.getloadavg()[0]:.2f} at the start", flush=True)
    with tempfile.TemporaryDirectory(prefix="ditto-bench-report-") as tmp:
        work = Path(tmp)
        run("report_sample", ROOT / "sample_corpus", work / "sample.html", args.repeat)
        corpus = work / "corpus10k"
        make_corpus(corpus, SHAPE_10K)
        big = run("report_10k", corpus, work / "10k.html", args.repeat)
        if not args.no_shapes:
            run_shapes(work, args.repeat)
        browser = find_chromium()
        if browser is None:
            print("# chromium not found: browser timings skipped", file=sys.stderr)
            return 0
        blank = work / "blank.html"
        blank.write_text(BLANK)
        pages = {"blank_page": instrumented(blank, work / "blank-probe.html"),
                 "report_10k": instrumented(big, work / "10k-probe.html")}
        for name, page in pages.items():
            timings = [paint_timings(browser, page) for _ in range(args.repeat)]
            for key in ("first-contentful-paint", "family-list", "load", "screenshot"):
                emit(f"chromium_{name}_{key.replace('-', '_')}",
                     statistics.median(t[key] for t in timings), "s")
    print(f"# load average {os.getloadavg()[0]:.2f} at the end", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
