"""Screenshots of the real app on sample_corpus/: main screen and compare screen, SVG + PNG.

Run from the repository root: python assets/make_screenshots.py
Writes assets/main-screen.svg/.png and assets/compare-screen.svg/.png (PNG needs
rsvg-convert: apt-get install librsvg2-bin). The compare screen shows a find in progress
(/ then a word: every match highlighted, the current one distinct, "1 of N").

The README's "before" pictures (assets/before-*.png) were made by this script as it was
at commit 9103e84, run from a worktree of that commit.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ditto_tui.core.fingerprint.pipeline import make_pipeline  # noqa: E402
from ditto_tui.corpus.session import CorpusSession  # noqa: E402
from ditto_tui.ui.app import DittoApp  # noqa: E402
from ditto_tui.ui.widgets.family_table import FamilyTable  # noqa: E402
from ditto_tui.ui.widgets.member_table import MemberTable  # noqa: E402

ASSETS = ROOT / "assets"
SIZE = (120, 40)


async def settle(pilot) -> None:
    app = pilot.app
    quiet = 0
    while quiet < 3:
        await pilot.pause()
        busy = app.scanning or any(not w.is_finished for w in app.workers)
        quiet = 0 if busy else quiet + 1
        await asyncio.sleep(0.02)


def to_png(svg: Path) -> None:
    if shutil.which("rsvg-convert") is None:
        print("rsvg-convert not found: PNG skipped", file=sys.stderr)
        return
    subprocess.run(["rsvg-convert", str(svg), "-o", str(svg.with_suffix(".png"))], check=True)


async def shoot() -> list[Path]:
    pipeline = make_pipeline()
    written = []
    with CorpusSession(ROOT / "sample_corpus", pipeline, use_cache=False) as session:
        app = DittoApp(session, pipeline=pipeline, watch=False, root="sample_corpus")
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            screen = app.main_screen
            table = screen.query_one(FamilyTable)
            # show the family of press releases, if the corpus has one
            row = next(
                (
                    i
                    for i, family in enumerate(table.families)
                    if "press/tidewell-release-v1.txt" in family.members
                ),
                None,
            )
            if row is not None:
                table.move_cursor(row=row)
            await settle(pilot)
            path = ASSETS / "main-screen.svg"
            app.save_screenshot(path.name, str(ASSETS))
            written.append(path)

            members = screen.query_one(MemberTable)
            members.focus()
            if len(members.members) >= 2:
                await pilot.press("space", "down", "down", "down", "space", "c")
            else:
                await pilot.press("c")
            await settle(pilot)
            await pilot.press("n")
            await settle(pilot)
            await pilot.press("slash", *"tidewell", "enter")  # find: matches in both sides
            await settle(pilot)
            path = ASSETS / "compare-screen.svg"
            app.save_screenshot(path.name, str(ASSETS))
            written.append(path)
    for svg in written:
        to_png(svg)
    return written


def main() -> int:
    for path in asyncio.run(shoot()):
        print(path.relative_to(ROOT), "and", path.with_suffix(".png").name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
