"""Debian's ``chromium --headless`` driven over the DevTools protocol, for the served page.

:mod:`tests.report.chromium` finds the browser (and skips a test without one, unless
``DITTO_TUI_REQUIRE_BROWSER=1``); here it is started with ``--remote-debugging-port=0``
and a fresh profile, and one page is driven through a websocket (aiohttp's client, which
textual-serve brings): load a URL, evaluate JavaScript, type keys, take a screenshot.

The page's terminal (xterm.js in textual-serve's script) is not reachable from outside,
so a script run before the page's own (:data:`CAPTURE_TERMINAL`) keeps the ``Terminal``
the page creates as ``window.__dittoTerminal``; :meth:`Page.screen_text` reads its rows,
the text a user sees, whatever renders it (WebGL, canvas or DOM).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import itertools
import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import aiohttp

from tests.report.chromium import FLAGS

#: Run before the page's scripts: the first object given a ``terminal`` property that is
#: an xterm.js Terminal is kept as ``window.__dittoTerminal`` (the property then becomes an
#: ordinary one of that object).
CAPTURE_TERMINAL = """
Object.defineProperty(Object.prototype, 'terminal', {
  configurable: true,
  set(value) {
    Object.defineProperty(this, 'terminal', {
      value, writable: true, configurable: true, enumerable: true});
    if (value && value.buffer && typeof value.onData === 'function'
        && !window.__dittoTerminal) {
      window.__dittoTerminal = value;
    }
  },
});
"""

SCREEN_TEXT = """(() => {
  const t = window.__dittoTerminal;
  if (!t) return null;
  const b = t.buffer.active, rows = [];
  for (let i = 0; i < t.rows; i++) {
    const line = b.getLine(b.viewportY + i);
    rows.push(line ? line.translateToString(true) : '');
  }
  return rows.join('\\n');
})()"""


class Page:
    """One page of a running Chromium, driven over its DevTools websocket."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self._ws = ws
        self._ids = itertools.count(1)
        self._waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        async for message in self._ws:
            if message.type != aiohttp.WSMsgType.TEXT:
                continue
            data = json.loads(message.data)
            future = self._waiting.pop(data.get("id", -1), None)
            if future is not None and not future.done():
                future.set_result(data)
        for future in self._waiting.values():
            if not future.done():
                future.set_exception(ConnectionError("the browser went away"))

    async def send(self, method: str, timeout: float = 20.0, **params: Any) -> dict[str, Any]:
        """Call a DevTools method; its result (RuntimeError for a protocol error)."""
        number = next(self._ids)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[number] = future
        await self._ws.send_str(json.dumps({"id": number, "method": method, "params": params}))
        answer = await asyncio.wait_for(future, timeout)
        if "error" in answer:
            raise RuntimeError(f"{method}: {answer['error']}")
        return dict(answer.get("result", {}))

    async def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (None for undefined)."""
        result = await self.send("Runtime.evaluate", expression=expression, returnByValue=True)
        return result.get("result", {}).get("value")

    async def open(self, url: str, size: tuple[int, int] = (1280, 800)) -> None:
        """Load ``url`` in a ``size`` viewport, the terminal capture installed first."""
        await self.send("Page.enable")
        await self.send("Emulation.setDeviceMetricsOverride", width=size[0], height=size[1],
                        deviceScaleFactor=1, mobile=False)
        await self.send("Page.addScriptToEvaluateOnNewDocument", source=CAPTURE_TERMINAL)
        await self.send("Page.navigate", url=url)

    async def screen_text(self) -> str:
        """The terminal's rows as text ("" before the page made its terminal)."""
        return str(await self.evaluate(SCREEN_TEXT) or "")

    async def wait_text(self, check: Callable[[str], bool], timeout: float = 20.0) -> str:
        """Poll :meth:`screen_text` until ``check`` holds; AssertionError with the last
        screen after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        text = ""
        while time.monotonic() < deadline:
            text = await self.screen_text()
            if check(text):
                return text
            await asyncio.sleep(0.1)
        raise AssertionError(f"the page did not show what was expected in {timeout} s:\n{text}")

    async def press(self, text: str) -> None:
        """Type ``text`` (printable characters) into the focused terminal, key by key."""
        await self.evaluate("window.__dittoTerminal && window.__dittoTerminal.focus()")
        for char in text:
            await self.send("Input.dispatchKeyEvent", type="keyDown", key=char, text=char,
                            unmodifiedText=char)
            await self.send("Input.dispatchKeyEvent", type="keyUp", key=char)

    async def press_key(self, key: str) -> None:
        """Press one named key (``ArrowDown``, ``ArrowUp``, ``Enter``, ``Escape``, ``Tab``)."""
        codes = {"ArrowDown": 40, "ArrowUp": 38, "Enter": 13, "Escape": 27, "Tab": 9}
        await self.evaluate("window.__dittoTerminal && window.__dittoTerminal.focus()")
        for kind in ("rawKeyDown", "keyUp"):
            await self.send("Input.dispatchKeyEvent", type=kind, key=key, code=key,
                            windowsVirtualKeyCode=codes[key], nativeVirtualKeyCode=codes[key])

    async def screenshot(self, png: Path) -> Path:
        """Write a PNG of the viewport to ``png``."""
        result = await self.send("Page.captureScreenshot", format="png")
        png.write_bytes(base64.b64decode(result["data"]))
        return png

    async def close(self) -> None:
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._reader
        await self._ws.close()


@contextlib.asynccontextmanager
async def chromium_page(binary: str, timeout: float = 20.0) -> AsyncIterator[Page]:
    """A blank page of a new headless Chromium (a fresh profile; killed and removed on
    exit)."""
    profile = Path(tempfile.mkdtemp(prefix="ditto-cdp-"))
    process = subprocess.Popen(
        [binary, *FLAGS, f"--user-data-dir={profile}", "--remote-debugging-port=0",
         "--remote-debugging-address=127.0.0.1", "about:blank"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env={**os.environ, "DBUS_SESSION_BUS_ADDRESS": "disabled:"},
    )
    session: aiohttp.ClientSession | None = None
    page: Page | None = None
    try:
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + timeout
        while not (port_file.exists() and port_file.read_text().count("\n") >= 1):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"chromium did not start (exit {process.poll()})")
            await asyncio.sleep(0.05)
        port = int(port_file.read_text().split()[0])
        session = aiohttp.ClientSession()
        targets: list[dict[str, Any]] = []
        while not any(t.get("type") == "page" for t in targets):
            if time.monotonic() > deadline:
                raise RuntimeError("chromium opened no page")
            async with session.get(f"http://127.0.0.1:{port}/json/list") as answer:
                targets = await answer.json()
            await asyncio.sleep(0.05)
        target = next(t for t in targets if t.get("type") == "page")
        ws = await session.ws_connect(target["webSocketDebuggerUrl"], max_msg_size=0)
        page = Page(ws)
        yield page
    finally:
        if page is not None:
            await page.close()
        if session is not None:
            await session.close()
        process.kill()
        process.wait(timeout=10)
        shutil.rmtree(profile, ignore_errors=True)
