"""Drive Debian's ``chromium`` headless: dump the rendered DOM of a page, take a screenshot.

No WebDriver: ``--dump-dom`` prints the DOM after the page loaded and its scripts ran;
``--screenshot`` writes a PNG. Each run gets a fresh profile folder, no network services.
Used by the browser tests, ``benchmarks/bench_report.py`` and ``assets/make_report_screenshot.py``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-extensions", "--hide-scrollbars", "--mute-audio",
)


def find_chromium() -> str | None:
    """Path of a Chromium binary, or None (``DITTO_TUI_CHROMIUM`` overrides the search)."""
    override = os.environ.get("DITTO_TUI_CHROMIUM")
    if override:
        return shutil.which(override)
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


def chromium_or_skip() -> str:
    """The Chromium binary for a test; skip the test when there is none, unless
    ``DITTO_TUI_REQUIRE_BROWSER=1`` (CI), where a missing browser fails it."""
    import pytest

    found = find_chromium()
    if found is None:
        if os.environ.get("DITTO_TUI_REQUIRE_BROWSER") == "1":
            pytest.fail("DITTO_TUI_REQUIRE_BROWSER=1 but no chromium is installed")
        pytest.skip("chromium is not installed (apt-get install chromium)")
    return found


def _run(binary: str, args: list[str], timeout: float) -> subprocess.CompletedProcess[str]:
    with tempfile.TemporaryDirectory(prefix="ditto-chromium-") as profile:
        return subprocess.run(
            [binary, *FLAGS, f"--user-data-dir={profile}", *args],
            capture_output=True, text=True, timeout=timeout, check=False,
            env={**os.environ, "DBUS_SESSION_BUS_ADDRESS": "disabled:"},
        )


def _url(page: Path, query: str, fragment: str) -> str:
    return (page.resolve().as_uri() + (f"?{query}" if query else "")
            + (f"#{fragment}" if fragment else ""))


def dump_dom(binary: str, page: Path, *, query: str = "", fragment: str = "",
             timeout: float = 120.0) -> tuple[str, float]:
    """The DOM Chromium rendered for ``page`` (serialized HTML) and the wall time it took.

    (``--blink-settings=scriptEnabled=false`` makes ``--dump-dom`` print nothing, so a page
    is shown "without scripts" by a policy that allows none, see the tests.)"""
    args = ["--dump-dom"]
    url = _url(page, query, fragment)
    start = time.perf_counter()
    done = _run(binary, [*args, url], timeout)
    elapsed = time.perf_counter() - start
    if done.returncode != 0 or "<html" not in done.stdout:
        raise RuntimeError(f"chromium failed ({done.returncode}): {done.stderr[-2000:]}")
    return done.stdout, elapsed


def screenshot(binary: str, page: Path, png: Path, *, query: str = "",
               size: tuple[int, int] = (1280, 1600), dark: bool = False,
               timeout: float = 120.0) -> Path:
    """Write a PNG of ``page`` in a ``size`` window (width, height) to ``png``.

    Headless screenshots of a scrolled page come out blank, so there is no fragment here:
    open a folded part with ``query="open=ID"`` instead (the page's script handles it).
    ``dark`` makes the page see ``prefers-color-scheme: dark``."""
    url = _url(page, query, "")
    theme = ["--force-dark-mode", "--blink-settings=preferredColorScheme=0"] if dark else []
    done = _run(binary, [*theme, f"--window-size={size[0]},{size[1]}", f"--screenshot={png}",
                         url], timeout)
    if done.returncode != 0 or not png.exists():
        raise RuntimeError(f"chromium screenshot failed ({done.returncode}): {done.stderr[-2000:]}")
    return png
