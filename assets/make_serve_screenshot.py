"""Screenshot of ``ditto-tui serve sample_corpus`` in headless Chromium: assets/serve.png.

Run from the repository root: python assets/make_serve_screenshot.py
Needs Debian's chromium (apt-get install chromium). The server runs on a free loopback
port with a cache folder of its own; the page is loaded at 1400x860 and the picture is
taken once the families are drawn, after ``]`` (k=4) and a move to the second family.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.report.chromium import find_chromium  # noqa: E402
from tests.serve.browser import chromium_page  # noqa: E402
from tests.serve.conftest import free_port, wait_listening  # noqa: E402

PNG = ROOT / "assets" / "serve.png"


async def shoot(browser: str, url: str) -> None:
    async with chromium_page(browser) as page:
        await page.open(url, size=(1400, 860))
        await page.wait_text(lambda t: "families · k=3" in t and "loading" not in t, 60)
        await page.press("]")
        await page.wait_text(lambda t: "families · k=4" in t, 30)
        await page.press_key("ArrowDown")
        await asyncio.sleep(1.5)  # the preview of the family's first member
        await page.screenshot(PNG)


def main() -> int:
    browser = find_chromium()
    if browser is None:
        print("chromium not found (apt-get install chromium)", file=sys.stderr)
        return 1
    # served from a copy at a neutral place: the title shows the folder's absolute path
    corpus = Path(tempfile.gettempdir()) / "sample_corpus"
    shutil.rmtree(corpus, ignore_errors=True)
    shutil.copytree(ROOT / "sample_corpus", corpus, symlinks=True)
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        server = subprocess.Popen(
            [sys.executable, "-m", "ditto_tui", "serve", str(corpus), "--port", str(port)],
            cwd=ROOT, env={**os.environ, "XDG_CACHE_HOME": tmp}, start_new_session=True,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        try:
            wait_listening(port, server)
            asyncio.run(shoot(browser, f"http://127.0.0.1:{port}/"))
        finally:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
            shutil.rmtree(corpus, ignore_errors=True)
    print(PNG)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
