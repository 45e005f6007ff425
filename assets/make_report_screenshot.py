"""Screenshot of the HTML report of sample_corpus/ in headless Chromium: assets/report.png.

Run from the repository root: python assets/make_report_screenshot.py
Needs Debian's chromium (apt-get install chromium). The report is built as the CLI builds
it (k = 3, chain grouping); the first diff of the first family is opened through the
page's ``?open=`` parameter, so that the picture shows a side-by-side diff.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ditto_tui.cli.main import main as cli_main  # noqa: E402
from tests.report.chromium import find_chromium, screenshot  # noqa: E402

ASSETS = ROOT / "assets"


def main() -> int:
    browser = find_chromium()
    if browser is None:
        print("chromium not found (apt-get install chromium)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "report.html"
        code = cli_main(["report", str(ROOT / "sample_corpus"), "-o", str(page), "--no-cache"])
        if code:
            return code
        png = screenshot(browser, page, ASSETS / "report.png", query="open=f1-d1",
                         size=(1280, 2000))
    print(png)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
