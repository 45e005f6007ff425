"""UI benchmarks: first paint, k change at 10,000 documents, compare of two 100 KB documents.

Prints ``name value unit`` lines. Runs the real app headless (``App.run_test``) over an
in-memory corpus that behaves like ``CorpusSession`` (so disk speed does not enter the
figures): synthetic fingerprints in near-duplicate families, synthetic text.

Run: python benchmarks/bench_ui.py [--docs 10000]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ditto_tui.corpus.documents import ChangeBatch, Document, ScanProgress  # noqa: E402
from ditto_tui.ui.app import DittoApp  # noqa: E402
from ditto_tui.ui.screens.compare import CompareScreen  # noqa: E402
from ditto_tui.ui.widgets.family_table import FamilyTable  # noqa: E402
from ditto_tui.ui.widgets.k_slider import KSlider  # noqa: E402

WORDS = [
    "tide",
    "harbour",
    "boat",
    "chart",
    "port",
    "sync",
    "engine",
    "offline",
    "club",
    "price",
    "release",
    "version",
    "quay",
]


def synthetic_text(rng: random.Random, size: int) -> str:
    lines = []
    total = 0
    while total < size:
        line = " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 14)))
        lines.append(line)
        total += len(line) + 1
    return "\n".join(lines)


@dataclass
class MemoryCorpus:
    """Just enough of CorpusSession for the app, held in memory."""

    fps: dict[str, int]
    texts: dict[str, str] = field(default_factory=dict)
    batch: int = 2000
    delay: float = 0.0
    root: str = "memory"
    pipeline: object = None
    skipped: list = field(default_factory=list)

    def __post_init__(self) -> None:
        self._docs: dict[str, Document] = {}
        self._fps: dict[str, int] = {}
        self._lock = threading.Lock()

    @property
    def documents(self):
        return self._docs

    @property
    def fingerprints(self):
        return self._fps

    watch_state = "off"

    def scan(self, *, on_progress=None, on_batch=None, cancelled=lambda: False):
        start = time.perf_counter()
        ids = list(self.fps)
        everything = ChangeBatch()
        for offset in range(0, len(ids), self.batch):
            if cancelled():
                break
            chunk = ids[offset : offset + self.batch]
            added = {}
            for i, doc_id in enumerate(chunk, start=offset):
                self._docs[doc_id] = Document(doc_id, "/" + doc_id, "text", 1000, i * 10**9, i)
                self._fps[doc_id] = self.fps[doc_id]
                added[doc_id] = self.fps[doc_id]
            if self.delay:
                time.sleep(self.delay)
            batch = ChangeBatch(added=added)
            everything.extend(batch)
            if on_batch:
                on_batch(batch)
            if on_progress:
                done = offset + len(chunk)
                on_progress(ScanProgress(done, len(ids), done * 1000, time.perf_counter() - start))
        return everything

    def read_text(self, doc_id: str, *, limit: int | None = None) -> str:
        text = self.texts.get(doc_id, f"document {doc_id}\nsome words about tides and harbours\n")
        return text if limit is None else text[:limit]

    def mail_info(self, doc_id: str):
        return None


def synthetic_fingerprints(n: int, seed: int = 7) -> dict[str, int]:
    """``n`` fingerprints: about a third in families of 2..6 within a few bits."""
    rng = random.Random(seed)
    fps: dict[str, int] = {}
    i = 0
    while len(fps) < n:
        base = rng.getrandbits(64)
        fps[f"docs/{i:06d}.txt"] = base
        i += 1
        if rng.random() < 0.35:
            for _ in range(rng.randint(1, 5)):
                fp = base
                for _ in range(rng.randint(1, 5)):
                    fp ^= 1 << rng.randrange(64)
                fps[f"docs/{i:06d}.txt"] = fp
                i += 1
    return dict(list(fps.items())[:n])


async def settle(pilot, app) -> None:
    while app.scanning or any(not w.is_finished for w in app.workers):
        await pilot.pause()
        await asyncio.sleep(0.01)
    await pilot.pause()


async def first_paint(n: int) -> float:
    """Seconds from constructing the app to the first drawn line of the family list, while a
    scan of ``n`` documents (slowed down: 50 ms per batch) is starting."""
    corpus = MemoryCorpus(synthetic_fingerprints(n), delay=0.05)
    painted: list[float] = []
    original = FamilyTable.render_line

    def render_line(self, y):
        if not painted:
            painted.append(time.perf_counter())
        return original(self, y)

    FamilyTable.render_line = render_line
    try:
        start = time.perf_counter()
        app = DittoApp(corpus, watch=False)
        async with app.run_test(size=(120, 40)) as pilot:
            while not painted:
                await asyncio.sleep(0.005)
            app.workers.cancel_all()
            await pilot.pause()
    finally:
        FamilyTable.render_line = original
    return painted[0] - start


async def k_change(n: int) -> tuple[float, float, float, int]:
    """(cold ms, warm ms, warm handler+paint ms, families shown at k=4) for moving k.

    cold/warm are end to end through the headless pilot (key to settled screen, including
    the pilot's own polling); handler+paint is the re-cluster, list update and the drawing
    of every visible line of the family list, measured directly."""
    corpus = MemoryCorpus(synthetic_fingerprints(n))
    app = DittoApp(corpus, watch=False)
    cold: list[float] = []
    warm: list[float] = []
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        slider = app.main_screen.query_one(KSlider)
        table = app.main_screen.query_one(FamilyTable)
        screen = app.main_screen

        async def move(k: int) -> float:
            start = time.perf_counter()
            slider.value = k
            await pilot.pause()
            while screen._computing or screen.all_families is not app.live.peek(k, "chain"):
                await asyncio.sleep(0.001)
                await pilot.pause()
            table.render_line(5)  # the first rows are drawn
            return time.perf_counter() - start

        app.live._cache.clear()
        for k in (4, 5, 6, 7, 8):  # cold: first visit since the index changed (worker)
            cold.append(await move(k))
        app.live.warm(range(9), "chain")
        for k in (3, 4, 2, 5, 1, 6, 4, 3):  # warm: listings precomputed after the scan
            warm.append(await move(k))
        direct = []
        for k in (3, 4, 2, 5, 1, 6, 4, 3):
            await pilot.pause()
            start = time.perf_counter()
            screen.k = k
            screen.refresh_families()
            for y in range(table.size.height):
                table.render_line(y)
            direct.append(time.perf_counter() - start)
        slider.value = 4
        await pilot.pause()
        shown = len(table.families)
    median = sorted(warm)[len(warm) // 2] * 1000
    return max(cold) * 1000, median, sorted(direct)[len(direct) // 2] * 1000, shown


async def compare_100kb() -> float:
    """Milliseconds from opening the compare screen to the diff on screen (100 KB each)."""
    rng = random.Random(3)
    a = synthetic_text(rng, 100_000)
    lines = a.split("\n")
    for i in range(0, len(lines), 40):
        lines[i] = lines[i] + " edited"
    b = "\n".join(lines)
    corpus = MemoryCorpus({"a.txt": 1, "b.txt": 3}, texts={"a.txt": a, "b.txt": b})
    app = DittoApp(corpus, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        start = time.perf_counter()
        app.open_compare("a.txt", "b.txt")
        while not isinstance(app.screen, CompareScreen) or app.screen.diff is None:
            await pilot.pause()
            await asyncio.sleep(0.002)
        await pilot.pause()
        return (time.perf_counter() - start) * 1000


def import_seconds() -> float:
    """Wall time of a fresh interpreter importing the UI (paid before the first paint)."""
    import subprocess

    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import ditto_tui.ui.app"], check=True)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--docs", type=int, default=10_000)
    args = parser.parse_args()
    print(f"python_start_and_import_ui {import_seconds():.3f} s")
    paints = [asyncio.run(first_paint(100_000)) for _ in range(3)]
    print(f"first_paint_100k_docs {min(paints):.3f} s")  # best of 3: the machine is shared
    cold, warm, direct, shown = asyncio.run(k_change(args.docs))
    print(f"k_change_cold_e2e_{args.docs}_docs {cold:.1f} ms")
    print(f"k_change_warm_e2e_{args.docs}_docs {warm:.1f} ms")
    print(f"k_change_warm_handler_paint_{args.docs}_docs {direct:.1f} ms")
    print(f"families_shown_k4_{args.docs}_docs {shown} families")
    print(f"compare_2x100KB {asyncio.run(compare_100kb()):.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
