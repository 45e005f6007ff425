"""UI benchmarks through the real app: keypress to painted frame, live changes, start-up.

Prints ``name value unit`` lines. Runs the real app headless (``App.run_test``) over an
in-memory corpus (:class:`~ditto_tui.explore.MemorySource`, so disk speed does not enter
the figures): synthetic fingerprints in near-duplicate families, synthetic text.

"Painted" means: the family table drew a line of the view that answers the key (the
table's ``render_line`` ran with that view's rows). Latencies include the headless
pilot's own key delivery and polling (1 ms), so they are upper bounds.

The machine's own spread is printed too (``machine_fixed_work_*``): a fixed piece of pure
Python, about as long as one k step's frame, timed 240 times in CPU time. On a shared
virtual machine its p99 can be three times its median; a key's p99 cannot be steadier
than that.

Run: python benchmarks/bench_ui.py [--skip-1m] [--folder N] [--warm-only]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ditto_tui.explore import MemorySource  # noqa: E402
from ditto_tui.ui.app import DittoApp  # noqa: E402
from ditto_tui.ui.screens.compare import CompareScreen  # noqa: E402
from ditto_tui.ui.widgets.family_table import FamilyTable  # noqa: E402

WORDS = [
    "tide", "harbour", "boat", "chart", "port", "sync", "engine", "offline", "club", "price",
    "release", "version", "quay",
]
STEPS = 48


def synthetic_text(rng: random.Random, size: int) -> str:
    lines = []
    total = 0
    while total < size:
        line = " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 14)))
        lines.append(line)
        total += len(line) + 1
    return "\n".join(lines)


def synthetic_fingerprints(n: int, seed: int = 7) -> dict[str, int]:
    """``n`` fingerprints: about a third in families of 2..6 within a few bits."""
    rng = random.Random(seed)
    fps: dict[str, int] = {}
    i = 0
    while len(fps) < n:
        base = rng.getrandbits(64)
        fps[f"docs/{i:07d}.txt"] = base
        i += 1
        if rng.random() < 0.35:
            for _ in range(rng.randint(1, 5)):
                fp = base
                for _ in range(rng.randint(1, 5)):
                    fp ^= 1 << rng.randrange(64)
                if len(fps) < n:  # (the first n of the same sequence, without a copy)
                    fps[f"docs/{i:07d}.txt"] = fp
                i += 1
    return fps


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


class PaintProbe:
    """Records when the family table draws a line, and of which rows."""

    def __init__(self) -> None:
        self.painted: list[tuple[float, int]] = []  # (time, id of the rows drawn)
        self._original = FamilyTable.render_line

    def __enter__(self) -> PaintProbe:
        probe = self
        original = self._original

        def render_line(table, y):  # type: ignore[no-untyped-def]
            probe.painted.append((time.perf_counter(), id(table.rows)))
            return original(table, y)

        FamilyTable.render_line = render_line  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        FamilyTable.render_line = self._original  # type: ignore[method-assign]

    def painted_since(self, start: float, rows: object) -> float | None:
        for stamp, ident in reversed(self.painted):
            if stamp < start:
                return None
            if ident == id(rows):
                return stamp
        return None


async def settle(pilot, app: DittoApp, timeout: float = 600.0, *, warm_all: bool = True) -> None:
    """Until the scan is over, the view is current and (``warm_all``) every k is warm."""
    deadline = time.monotonic() + timeout
    screen = app.main_screen
    while time.monotonic() < deadline:
        await pilot.pause()
        snap = app.snapshot
        ks = range(app.explorer.max_k + 1) if warm_all else [screen.k]
        warm = all(snap.listing(k, screen.mode) is not None for k in ks)
        idle = all(w.is_finished for w in app.workers)
        if not app.scanning and screen.view_current() and warm and idle:
            await pilot.pause()
            return
        await asyncio.sleep(0.01)
    raise TimeoutError("the app did not settle")


async def until_painted(pilot, app: DittoApp, probe: PaintProbe, start: float, check) -> float:
    """Seconds from ``start`` until a view meeting ``check`` is on screen and painted."""
    screen = app.main_screen
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        view = screen.view
        if view is not None and check(view) and screen.view_current():
            stamp = probe.painted_since(start, view.families)
            if stamp is not None:
                return stamp - start
        await asyncio.sleep(0.001)
        await pilot.pause()
    raise TimeoutError("no paint")


async def k_steps(n: int, steps: int = STEPS) -> tuple[list[float], float]:
    """Key-to-paint seconds of ``steps`` k changes ([ and ]) on ``n`` documents, and the
    seconds from start to the first families painted after the scan (warm start)."""
    source = MemorySource(synthetic_fingerprints(n), batch=20_000)
    with PaintProbe() as probe:
        start = time.perf_counter()
        app = DittoApp(source, watch=False, max_k=8, k=3)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = app.main_screen
            while True:  # families of the whole corpus painted
                view = screen.view
                if view is not None and not app.scanning and view.documents == n:
                    stamp = probe.painted_since(start, view.families)
                    if stamp is not None:
                        warm_start = stamp - start
                        break
                await asyncio.sleep(0.002)
                await pilot.pause()
            await settle(pilot, app)
            times = []
            keys = ["right_square_bracket"] * 5 + ["left_square_bracket"] * 8 + [
                "right_square_bracket"
            ] * 3
            for i in range(steps):
                key = keys[i % len(keys)]
                target = max(0, min(8, screen.k + (1 if key == "right_square_bracket" else -1)))
                begin = time.perf_counter()
                await pilot.press(key)
                times.append(
                    await until_painted(pilot, app, probe, begin, lambda v, t=target: v.request.k == t)
                )
    return times, warm_start


async def filter_keys(n: int, steps: int = STEPS) -> list[float]:
    """Key-to-paint seconds of typing in the filter box (and erasing) on ``n`` documents."""
    source = MemorySource(synthetic_fingerprints(n), batch=20_000)
    typed = "docs/00012"
    with PaintProbe() as probe:
        app = DittoApp(source, watch=False)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot, app)
            await pilot.press("slash")
            times = []
            pattern = ""
            i = 0
            while len(times) < steps:
                step = i % (2 * len(typed))
                key = typed[step] if step < len(typed) else "backspace"
                pattern = pattern + key if key != "backspace" else pattern[:-1]
                begin = time.perf_counter()
                await pilot.press(key)
                times.append(
                    await until_painted(
                        pilot, app, probe, begin, lambda v, p=pattern: v.request.pattern == p
                    )
                )
                i += 1
    return times


async def live_changes(n: int, steps: int = 40) -> tuple[list[float], list[float]]:
    """Per live change on ``n`` documents: (UI thread busy seconds for the batch,
    seconds from the write to the changed family painted)."""
    fps = synthetic_fingerprints(n)
    source = MemorySource(fps, batch=20_000)
    busy: list[float] = []
    from ditto_tui.ui.screens.main import MainScreen

    originals = {name: getattr(MainScreen, name) for name in ("show_view", "show_snapshot")}

    def timed(name: str):  # type: ignore[no-untyped-def]
        original = originals[name]

        def wrapper(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            t0 = time.perf_counter()
            try:
                return original(self, *args, **kwargs)
            finally:
                busy.append(time.perf_counter() - t0)

        return wrapper

    ui_thread: list[float] = []
    to_paint: list[float] = []
    rng = random.Random(5)
    ids = list(fps)
    with PaintProbe() as probe:
        app = DittoApp(source, watch=True)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot, app)
            for name in originals:
                setattr(MainScreen, name, timed(name))
            try:
                screen = app.main_screen
                for _ in range(steps):
                    await settle(pilot, app, warm_all=False)
                    before = app.snapshot.generation
                    busy.clear()
                    painted_before = len(probe.painted)
                    doc = ids[rng.randrange(len(ids))]
                    begin = time.perf_counter()
                    source.write({doc: fps[doc] ^ (1 << rng.randrange(64))})
                    to_paint.append(
                        await until_painted(
                            pilot, app, probe, begin, lambda v, g=before: v.generation > g
                        )
                    )
                    await settle(pilot, app, warm_all=False)
                    # UI thread: the handlers of this batch plus the lines painted for it
                    paints = probe.painted[painted_before:]
                    paint_cost = estimate_paint(screen.query_one(FamilyTable), len(paints))
                    ui_thread.append(sum(busy) + paint_cost)
            finally:
                for name, original in originals.items():
                    setattr(MainScreen, name, original)
    return ui_thread, to_paint


def estimate_paint(table: FamilyTable, lines: int) -> float:
    """Seconds to draw ``lines`` lines of ``table`` (measured by drawing them again)."""
    t0 = time.perf_counter()
    height = max(1, table.size.height)
    for i in range(lines):
        table.render_line(i % height)
    return time.perf_counter() - t0


async def first_paint(n: int) -> float:
    """Seconds from constructing the app to the first drawn line of the family list, while a
    scan of ``n`` documents (slowed down: 50 ms per batch) is starting."""
    source = MemorySource(synthetic_fingerprints(n), delay=0.05)
    with PaintProbe() as probe:
        start = time.perf_counter()
        app = DittoApp(source, watch=False)
        async with app.run_test(size=(120, 40)) as pilot:
            while not probe.painted:
                await asyncio.sleep(0.005)
            stamp = probe.painted[0][0]
            app.explorer.close()
            await pilot.pause()
    return stamp - start


async def compare_100kb() -> float:
    """Milliseconds from opening the compare screen to the diff on screen (100 KB each)."""
    rng = random.Random(3)
    a = synthetic_text(rng, 100_000)
    lines = a.split("\n")
    for i in range(0, len(lines), 40):
        lines[i] = lines[i] + " edited"
    b = "\n".join(lines)
    source = MemorySource({"a.txt": 1, "b.txt": 3}, texts={"a.txt": a, "b.txt": b})
    app = DittoApp(source, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        start = time.perf_counter()
        app.main_screen.open_compare("a.txt", "b.txt")
        while not isinstance(app.screen, CompareScreen) or app.screen.diff is None:
            await pilot.pause()
            await asyncio.sleep(0.002)
        await pilot.pause()
        return (time.perf_counter() - start) * 1000


WORK = Path(__file__).resolve().parent / "_work"


def text_folder(n: int) -> Path:
    """A folder of ``n`` small text files under ``benchmarks/_work`` (made once): windows
    of 300-3,000 characters of the Python standard library's sources (real text, so real
    fingerprint distances), about a third in near-duplicate families (a few words edited)."""
    root = WORK / f"folder-{n}"
    done = WORK / f"folder-{n}.complete"
    if done.exists():
        return root
    import shutil
    import sysconfig

    shutil.rmtree(root, ignore_errors=True)
    pool_parts = []
    for path in sorted(Path(sysconfig.get_paths()["stdlib"]).rglob("*.py"))[:6000]:
        try:
            pool_parts.append(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            continue
    pool = "\n".join(pool_parts)
    rng = random.Random(11)
    edits = ["alpha", "beta", "gamma", "delta", "x", "value"]
    i = 0

    def write(text: str) -> None:
        nonlocal i
        folder = root / f"d{i // 1000:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{i:07d}.txt").write_text(text, encoding="utf-8")
        i += 1

    while i < n:
        size = rng.randint(300, 3000)
        at = rng.randrange(len(pool) - size)
        base = pool[at : at + size]
        write(base)
        if rng.random() < 0.35:
            for _ in range(rng.randint(1, 5)):
                if i >= n:
                    break
                words = base.split(" ")
                for _ in range(rng.randint(1, 3)):
                    words[rng.randrange(len(words))] = rng.choice(edits)
                write(" ".join(words))
    done.write_text(str(n))
    return root


async def open_folder(root: Path, n: int, *, settle_after: bool) -> float:
    """Seconds from opening ``root`` (session, app: as ``ditto-tui explore`` does, watching,
    with a review store; fingerprint cache under ``benchmarks/_work``) to its ``n``
    documents' families painted."""
    from ditto_tui.core import make_pipeline
    from ditto_tui.corpus.session import CorpusSession

    with PaintProbe() as probe:
        start = time.perf_counter()
        pipeline = make_pipeline("ditto")
        session = CorpusSession(root, pipeline, cache=WORK / f"cache-{root.name}.sqlite")
        try:
            app = DittoApp(session, root=session.root, pipeline=pipeline, max_k=8, k=3,
                           review=True, review_dir=WORK / f"review-{root.name}")
            async with app.run_test(size=(120, 40)) as pilot:
                screen = app.main_screen
                while True:  # the families of the whole folder, after its scan, painted
                    view, snap = screen.view, app.snapshot
                    if (
                        view is not None
                        and not app.scanning
                        and view.generation == snap.generation
                        and view.documents == len(snap) >= n
                    ):
                        stamp = probe.painted_since(start, view.families)
                        if stamp is not None:
                            break
                    await asyncio.sleep(0.002)
                    await pilot.pause()
                # (the first open waits for the near pairs stored for the next one)
                await settle(pilot, app, warm_all=settle_after)
                app.explorer.close()
        finally:
            session.close()
    return stamp - start


def folder_warm_start(n: int) -> float:
    """Seconds from launching on a folder of ``n`` files already opened once (fingerprints
    and near pairs in the cache) to its families painted: the median of 3 re-opens."""
    root = text_folder(n)
    asyncio.run(open_folder(root, n, settle_after=True))  # the first open fills the cache
    return statistics.median(asyncio.run(open_folder(root, n, settle_after=False)) for _ in range(3))


def import_seconds() -> float:
    """Wall time of a fresh interpreter importing the UI (paid before the first paint)."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import ditto_tui.ui.app"], check=True)
    return time.perf_counter() - start


def rss_mb() -> float:
    """Peak resident memory of this process in MB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_1m() -> dict[str, float]:
    """The 1M-document figures, in this process (run in a child for a clean RSS)."""
    times, warm = asyncio.run(k_steps(1_000_000, steps=40))
    return {
        "k_step_1m_p50_ms": percentile(times, 0.5) * 1000,
        "k_step_1m_p99_ms": percentile(times, 0.99) * 1000,
        "warm_start_1m_to_families_s": warm,
        "explorer_1m_rss_mb": rss_mb(),
    }


def fixed_work_ms(rounds: int = 240, target_ms: float = 16.0) -> list[float]:
    """Thread CPU milliseconds of one fixed piece of pure Python (sized to about
    ``target_ms`` here), each of ``rounds`` times: the machine's own spread."""

    def work(n: int) -> int:
        total = 0
        for i in range(n):
            total += i * i % 7
        return total

    n = 20_000
    fastest = float("inf")
    for _ in range(5):  # (the least disturbed of five sizes the piece)
        start = time.thread_time()
        work(n)
        fastest = min(fastest, time.thread_time() - start)
    n = max(1, int(n * target_ms / 1000 / max(fastest, 1e-6)))
    times = []
    for _ in range(rounds):
        start = time.thread_time()
        work(n)
        times.append((time.thread_time() - start) * 1000)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--docs", type=int, default=100_000, help="corpus size of the 100k figures")
    parser.add_argument("--skip-1m", action="store_true", help="leave out the 1M-document figures")
    parser.add_argument("--only-1m", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument(
        "--folder", type=int, default=0, metavar="N",
        help="also re-open a folder of N small files (made under benchmarks/_work)",
    )
    parser.add_argument(
        "--warm-only", action="store_true",
        help="only the warm start figures (the in-memory one, and --folder's)",
    )
    args = parser.parse_args()
    if args.only_1m:
        print(json.dumps(run_1m()))
        return 0
    n = args.docs
    tag = f"{n // 1000}k" if n % 1000 == 0 else str(n)
    if args.folder:
        f = args.folder
        ftag = f"{f // 1000}k" if f % 1000 == 0 else str(f)
        print(f"warm_reopen_folder_{ftag}_to_families_s {folder_warm_start(f):.2f} s", flush=True)
    if args.warm_only:
        _times, warm = asyncio.run(k_steps(n, steps=1))
        print(f"warm_start_{tag}_to_families_s {warm:.2f} s", flush=True)
        return 0
    print(f"python_start_and_import_ui {import_seconds():.3f} s", flush=True)
    paints = [asyncio.run(first_paint(100_000)) for _ in range(3)]
    print(f"first_paint_100k_docs {min(paints):.3f} s", flush=True)  # best of 3: shared machine
    times, warm = asyncio.run(k_steps(n))
    print(f"k_step_{tag}_p50_ms {percentile(times, 0.5) * 1000:.1f} ms", flush=True)
    print(f"k_step_{tag}_p99_ms {percentile(times, 0.99) * 1000:.1f} ms", flush=True)
    print(f"warm_start_{tag}_to_families_s {warm:.2f} s", flush=True)
    times = asyncio.run(filter_keys(n))
    print(f"filter_key_{tag}_p50_ms {percentile(times, 0.5) * 1000:.1f} ms", flush=True)
    print(f"filter_key_{tag}_p99_ms {percentile(times, 0.99) * 1000:.1f} ms", flush=True)
    ui_thread, to_paint = asyncio.run(live_changes(n))
    print(f"live_change_{tag}_ui_thread_ms {percentile(ui_thread, 0.5) * 1000:.1f} ms", flush=True)
    print(f"live_change_{tag}_ui_thread_p99_ms {percentile(ui_thread, 0.99) * 1000:.1f} ms", flush=True)
    print(f"live_change_{tag}_to_paint_ms {percentile(to_paint, 0.5) * 1000:.1f} ms", flush=True)
    print(f"live_change_{tag}_to_paint_p99_ms {percentile(to_paint, 0.99) * 1000:.1f} ms", flush=True)
    print(f"compare_2x100KB {asyncio.run(compare_100kb()):.1f} ms", flush=True)
    spread = fixed_work_ms()
    print(f"machine_fixed_work_p50_ms {percentile(spread, 0.5):.1f} ms", flush=True)
    print(f"machine_fixed_work_p99_ms {percentile(spread, 0.99):.1f} ms", flush=True)
    if not args.skip_1m:
        out = subprocess.run(
            [sys.executable, __file__, "--only-1m"], check=True, capture_output=True, text=True
        ).stdout
        figures = json.loads(out.strip().splitlines()[-1])
        for name, value in figures.items():
            unit = "MB" if name.endswith("_mb") else "s" if name.endswith("_s") else "ms"
            print(f"{name} {value:.1f} {unit}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
