"""Where the explorer saves a screenshot, and the saving itself (off the UI thread).

Textual's own palette command saves into ``~/Downloads`` and, when that folder does not
exist, says only "Failed to save screenshot". Here the folder is the first of the user's
downloads folder, the current folder and the user cache folder that exists and is
writable; the notice gives the full path, or the reason it could not be written.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import platformdirs

__all__ = ["screenshot_folder", "screenshot_name", "write_screenshot"]


def _writable_folder(path: Path) -> bool:
    return path.is_dir() and os.access(path, os.W_OK | os.X_OK)


def _downloads() -> str:
    return platformdirs.user_downloads_dir()


def _cache() -> str:
    return platformdirs.user_cache_dir("ditto-tui")


def screenshot_folder(
    *,
    downloads: Callable[[], str] = _downloads,
    cwd: Callable[[], str] = os.getcwd,
    cache: Callable[[], str] = _cache,
) -> Path:
    """The folder a screenshot goes to: downloads if it exists and is writable, else the
    current folder if writable, else the cache folder (created when written to)."""
    for candidate in (downloads, cwd):
        try:
            folder = Path(candidate()).expanduser()
        except (OSError, ValueError, RuntimeError):
            continue
        if _writable_folder(folder):
            return folder
    return Path(cache()).expanduser()


def screenshot_name(title: str, now: float | None = None) -> str:
    """``ditto-tui-2026-12-01T16-30-05.svg`` (no character a shell or a file system minds)."""
    stamp = time.strftime("%Y-%m-%dT%H-%M-%S", time.localtime(now))
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in title) or "screen"
    return f"{safe}-{stamp}.svg"


def write_screenshot(svg: str, folder: Path, name: str) -> Path:
    """Write ``svg`` as ``folder/name`` (the folder created if missing); never overwrites
    (a ``-2``, ``-3``… suffix is added). Returns the absolute path; OSError says why not."""
    folder.mkdir(parents=True, exist_ok=True)
    stem, suffix = os.path.splitext(name)
    path = folder / name
    number = 1
    while True:
        try:
            with open(path, "x", encoding="utf-8") as out:
                out.write(svg)
            return path.resolve()
        except FileExistsError:
            number += 1
            path = folder / f"{stem}-{number}{suffix}"
