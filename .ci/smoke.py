"""The installed tool, as a user runs it (CI runs this with the Python of a fresh virtual
environment holding only the built wheel, from a folder outside the source tree).

    python smoke.py SOURCE_TREE

Checks that the wheel holds every file of the package in the source tree, that the
compiled engine was built and is used, that `ditto-tui fingerprint` works, that every
module of the package imports, that the explorer starts on the sample corpus, shows
its families and moves k with `]` (headless, through Textual's pilot), and that
`ditto-tui serve` runs the explorer for a browser session (the session's websocket, as
the page opens it, receives the app's screen).
"""

from __future__ import annotations

import asyncio
import importlib
import pkgutil
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def check_commands(corpus: Path) -> None:
    tool = shutil.which("ditto-tui") or str(Path(sys.executable).with_name("ditto-tui"))
    version = subprocess.run([tool, "version"], capture_output=True, text=True, check=True)
    print(version.stdout.strip())
    assert " engine=compiled (" in version.stdout, "the wheel has no compiled engine"
    listed = subprocess.run([tool, "fingerprint", "--no-cache", str(corpus)],
                            capture_output=True, text=True, check=True).stdout.splitlines()
    assert len(listed) > 50 and all(len(line.split("\t", 1)[0]) == 16 for line in listed)
    print(f"fingerprint: {len(listed)} documents")


def check_files(source: Path) -> None:
    """Every module, stub and data file of the source tree's package is installed."""
    import ditto_tui

    installed = Path(ditto_tui.__file__).resolve().parent
    wanted = {p.relative_to(source / "ditto_tui") for p in (source / "ditto_tui").rglob("*")
              if p.is_file() and "__pycache__" not in p.parts and p.suffix not in (".so", ".pyd")}
    missing = sorted(str(p) for p in wanted if not (installed / p).is_file())
    assert not missing, f"the wheel lacks {missing}"
    print(f"files: all {len(wanted)} of the source package are installed")


def check_imports() -> None:
    import ditto_tui

    names = [m.name for m in pkgutil.walk_packages(ditto_tui.__path__, "ditto_tui.")
             if not m.name.endswith(".__main__")]  # (running it is `ditto-tui` itself)
    for name in names:
        importlib.import_module(name)
    assert Path(ditto_tui.__file__).resolve().parts[-3] == "site-packages", ditto_tui.__file__
    print(f"imports: {len(names)} modules from {Path(ditto_tui.__file__).parent}")


async def check_explorer(corpus: Path) -> None:
    from ditto_tui.core.fingerprint.pipeline import make_pipeline
    from ditto_tui.corpus.session import CorpusSession
    from ditto_tui.ui.app import DittoApp

    with CorpusSession(corpus, make_pipeline(), use_cache=False) as session:
        app = DittoApp(session, root=str(corpus), watch=False)
        async with app.run_test(size=(120, 40)) as pilot:
            pane = app.main_screen.query_one("#families-pane")

            async def until(condition, what: str) -> None:
                deadline = time.monotonic() + 60
                while not condition():
                    assert time.monotonic() < deadline, f"the explorer never showed {what}"
                    await pilot.pause(0.05)

            def families(k: int) -> bool:
                found = re.match(r"Families at k=(\d+) .* · ([\d,]+)", str(pane.border_title))
                return (found is not None and int(found[1]) == k
                        and int(found[2].replace(",", "")) > 0 and not app.scanning)

            await until(lambda: families(3), "families at k=3")
            print(f"explorer: {pane.border_title}")
            await pilot.press("]")
            await until(lambda: families(4), "families at k=4 after ]")
            print(f"explorer after ]: {pane.border_title}")


async def check_serve(corpus: Path) -> None:
    """`ditto-tui serve` from the installed entry point; one session over its websocket
    (aiohttp comes with textual-serve), which must draw the explorer's first screen."""
    import os
    import signal
    import socket

    import aiohttp

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    tool = shutil.which("ditto-tui") or str(Path(sys.executable).with_name("ditto-tui"))
    server = subprocess.Popen([tool, "serve", str(corpus), "--port", str(port), "--no-watch"],
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        received = b""
        async with aiohttp.ClientSession() as session:
            while True:
                assert server.poll() is None, f"ditto-tui serve ended ({server.returncode})"
                try:
                    ws = await session.ws_connect(f"ws://127.0.0.1:{port}/ws?width=120&height=40")
                    break
                except aiohttp.ClientConnectionError:
                    assert time.monotonic() < deadline, "ditto-tui serve never listened"
                    await asyncio.sleep(0.1)
            while b"ditto-tui" not in received:
                message = await asyncio.wait_for(ws.receive(), max(1, deadline - time.monotonic()))
                assert message.type in (aiohttp.WSMsgType.BINARY, aiohttp.WSMsgType.TEXT), message
                if message.type == aiohttp.WSMsgType.BINARY:
                    received += message.data
            await ws.close()
        print(f"serve: a session drew {len(received):,} bytes of the explorer's screen")
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)


def main() -> int:
    source = Path(sys.argv[1]).resolve()
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / "sample_corpus"
        shutil.copytree(source / "sample_corpus", copy)
        check_files(source)
        check_commands(copy)
        check_imports()
        asyncio.run(check_explorer(copy))
        asyncio.run(check_serve(copy))
    print("smoke: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
