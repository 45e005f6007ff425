"""Start-up of ``ditto-tui serve`` on ``sample_corpus``: from starting the server to the
families drawn in a browser tab (issue 36: at most 5 s on a quiet machine).

Run from the repository root: ``python benchmarks/bench_serve.py [--repeat 5]``. Needs
Debian's chromium (as the browser tests do). A headless Chromium is started first, as a
user's browser is already open; each repeat then starts ``ditto-tui serve`` on a copy of
``sample_corpus`` with an empty cache folder, waits for the port, loads the page and reads
the terminal's text until the status line counts the families (the scan is over and the
family list drawn). Prints ``name value unit`` lines, medians over the repeats:

- ``serve_listening``: the server answers on its port;
- ``serve_first_draw``: the app's first screen is in the page (the empty list, "loading");
- ``serve_families_drawn``: the families are on the page (the figure of the issue);
- ``serve_second_tab``: a second tab on the same server, the cache warm, to its families.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.report.chromium import find_chromium  # noqa: E402
from tests.serve.browser import Page, chromium_page  # noqa: E402
from tests.serve.conftest import free_port, wait_listening  # noqa: E402


def families_drawn(text: str) -> bool:
    return "families · k=" in text and " 0 docs" not in text and "loading" not in text


async def tab(page: Page, url: str, start: float) -> tuple[float, float]:
    """Load ``url``; seconds since ``start`` to the first screen and to the families."""
    await page.open(url, size=(1400, 900))
    await page.wait_text(lambda t: "ditto-tui" in t, timeout=60)
    first = time.perf_counter() - start
    await page.wait_text(families_drawn, timeout=60)
    return first, time.perf_counter() - start


async def run(browser: str, repeat: int) -> dict[str, list[float]]:
    figures: dict[str, list[float]] = {}
    async with chromium_page(browser) as page, chromium_page(browser) as second:
        for _ in range(repeat):
            with tempfile.TemporaryDirectory(prefix="ditto-bench-serve-") as tmp:
                root = Path(tmp) / "sample_corpus"
                shutil.copytree(ROOT / "sample_corpus", root, symlinks=True)
                port = free_port()
                env = {**os.environ, "XDG_CACHE_HOME": str(Path(tmp) / "xdg")}
                start = time.perf_counter()
                server = subprocess.Popen(
                    [sys.executable, "-m", "ditto_tui", "serve", str(root), "--port", str(port)],
                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL, env=env, start_new_session=True)
                try:
                    wait_listening(port, server)
                    figures.setdefault("serve_listening", []).append(time.perf_counter() - start)
                    first, drawn = await tab(page, f"http://127.0.0.1:{port}/", start)
                    figures.setdefault("serve_first_draw", []).append(first)
                    figures.setdefault("serve_families_drawn", []).append(drawn)
                    again = time.perf_counter()
                    _first, drawn = await tab(second, f"http://127.0.0.1:{port}/", again)
                    figures.setdefault("serve_second_tab", []).append(drawn)
                    await page.open("about:blank")
                    await second.open("about:blank")
                finally:
                    for sig in (signal.SIGTERM, signal.SIGKILL):
                        try:
                            os.killpg(server.pid, sig)
                        except ProcessLookupError:
                            break
                        time.sleep(0.5)
                    server.wait(timeout=10)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    browser = find_chromium()
    if browser is None:
        sys.exit("chromium is not installed (apt-get install chromium)")
    figures = asyncio.run(run(browser, args.repeat))
    for name, values in figures.items():
        print(f"{name} {statistics.median(values):.2f} s")


if __name__ == "__main__":
    main()
