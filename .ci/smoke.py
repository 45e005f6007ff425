"""The installed tool, as a user runs it (CI runs this with the Python of a fresh virtual
environment holding only the built wheel, from a folder outside the source tree).

    python smoke.py SOURCE_TREE

Checks that the wheel holds every file of the package in the source tree, that the
compiled engine was built and is used, that `ditto-tui fingerprint` works, that every
module of the package imports, and that the explorer starts on the sample corpus, shows
its families and moves k with `]` (headless, through Textual's pilot).
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


def main() -> int:
    source = Path(sys.argv[1]).resolve()
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / "sample_corpus"
        shutil.copytree(source / "sample_corpus", copy)
        check_files(source)
        check_commands(copy)
        check_imports()
        asyncio.run(check_explorer(copy))
    print("smoke: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
