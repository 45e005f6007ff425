"""Deduplicate crawled pages by structure with the html-distance Oracle, as gryffin does.

    python oracle_crawl.py START [RADIUS]

A crawler of local files (no network): it starts from the page START (or from every
HTML page in the folder START, in name order) and follows links to other local pages
under START's folder. Each page is fingerprinted with the
html-distance structure pipeline; a page whose structure is within RADIUS bits of one
already crawled (html-distance's Seen: distance < RADIUS, default 4, "similarity above
95%") is skipped: its links are not followed, as a scanner would skip a thousand
product pages built from one template.
"""

from __future__ import annotations

import sys
from collections import deque
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import ditto_tui as dt


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self.hrefs.extend(v for k, v in attrs if k == "href" and v)


def local_links(page: Path, html: bytes, root: Path) -> list[Path]:
    """Links of ``page`` that name an existing HTML file under ``root``."""
    parser = _Links()
    parser.feed(html.decode("utf-8", "replace"))
    out = []
    for href in parser.hrefs:
        parts = urlsplit(href)
        if parts.scheme or parts.netloc or not parts.path:
            continue
        path = unquote(parts.path)
        target = (root / path.lstrip("/")) if path.startswith("/") else (page.parent / path)
        target = target.resolve()
        if target.is_file() and target.is_relative_to(root) and dt.html_distance().accepts(target.name):
            out.append(target)
    return out


def main() -> int:
    start = Path(sys.argv[1]).resolve()
    radius = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    pipeline = dt.html_distance()
    oracle = dt.Oracle()
    if start.is_dir():
        root = start
        queue = deque(sorted(p for p in root.rglob("*") if p.is_file() and pipeline.accepts(p.name)))
    else:
        root, queue = start.parent, deque([start])
    visited: set[Path] = set()
    kept = skipped = 0
    while queue:
        page = queue.popleft()
        if page in visited:
            continue
        visited.add(page)
        html = page.read_bytes()
        fp = pipeline.fingerprint(html)
        name = page.relative_to(root).as_posix()
        if oracle.seen(fp, radius):
            skipped += 1
            print(f"skip   {fp}  {name}")
            continue
        oracle.see(fp)
        kept += 1
        print(f"crawl  {fp}  {name}")
        queue.extend(local_links(page, html, root))
    print(f"{kept + skipped} pages: {kept} crawled, {skipped} skipped as structural duplicates")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
