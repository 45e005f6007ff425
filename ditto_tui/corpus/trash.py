"""A trash that can be restored from: the freedesktop.org Trash specification, written here.

send2trash (BSD licence) moves files to the system trash but cannot put them back and does
not say where a file went, so ditto-tui implements the spec itself: each trashed file gets a
``info/<name>.trashinfo`` (original path, deletion date) written *before* the file is
renamed into ``files/<name>``, exactly as the spec asks, so desktop file managers list and
restore ditto-tui's deletions too, and ditto-tui's undo can rename them back.

Where: ``DITTO_TUI_TRASH_DIR`` (or an explicit folder) overrides everything (tests, or
platforms without a freedesktop trash); otherwise the home trash ``$XDG_DATA_HOME/Trash``
when the file is on the same filesystem, else the volume's ``$topdir/.Trash/$uid`` (when it
exists, is a real folder and is sticky) or ``$topdir/.Trash-$uid``. Files are only ever
renamed into a trash on their own filesystem; the override folder may be elsewhere, and a
file is then copied (fsync'ed, checked) before its original is removed.

Only where the system trash *is* this freedesktop trash (Linux, the BSDs, illumos and
Solaris: :func:`system_trash_refusal`). On macOS and Windows the trash the file managers
show is another thing, reached only by handing a path to a system call, which ditto-tui's
undo could not reverse, so there the ``trash`` action is refused with a one-line reason pointing to a
quarantine folder (``--action move DIR``) unless an explicit trash folder is given, which
works everywhere (ditto-tui's own folder, with undo): :func:`check_trash`.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import time
import urllib.parse
from pathlib import Path

from ditto_tui.corpus.atomic import write_all
from ditto_tui.corpus.rootdir import NEW_FILE_FLAGS

__all__ = [
    "FREEDESKTOP_PLATFORMS",
    "TRASH_ENV",
    "TrashUnavailable",
    "check_trash",
    "system_trash_refusal",
    "trash_folder_for",
    "trash_refusal",
    "trashinfo_text",
    "write_trashinfo",
]

TRASH_ENV = "DITTO_TUI_TRASH_DIR"
NAME_MAX = 255

#: ``sys.platform`` prefixes of the systems whose desktops (GNOME, KDE, Xfce, ...) use the
#: freedesktop.org trash: Linux, FreeBSD, OpenBSD, NetBSD, DragonFly, GNU (Hurd,
#: kFreeBSD), Solaris and illumos (``sunos5``).
FREEDESKTOP_PLATFORMS = ("linux", "freebsd", "openbsd", "netbsd", "dragonfly", "gnu", "sunos")

#: How the refusal names the other platforms (by ``sys.platform`` prefix).
PLATFORM_NAMES = {
    "darwin": "macOS",
    "win32": "Windows",
    "cygwin": "Windows (Cygwin)",
    "msys": "Windows (MSYS2)",
    "ios": "iOS",
    "android": "Android",
    "emscripten": "Emscripten",
    "wasi": "WASI",
    "aix": "AIX",
    "haiku": "Haiku",
}


class TrashUnavailable(ValueError):  # noqa: N818 - a refusal with a reason, not a bug
    """The ``trash`` action cannot be used here (see :func:`system_trash_refusal`)."""


def platform_name(platform: str) -> str:
    """A readable name for a ``sys.platform`` value (``"darwin"`` -> ``"macOS"``)."""
    for prefix, name in PLATFORM_NAMES.items():
        if platform.startswith(prefix):
            return name
    return platform


def system_trash_refusal(platform: str | None = None) -> str | None:
    """None where the system trash is the freedesktop.org trash this module writes and
    undo can take files back from; elsewhere the one-line reason the ``trash`` action is
    refused. ``platform`` defaults to ``sys.platform``, read at each call.

    Freedesktop: every ``sys.platform`` starting with one of :data:`FREEDESKTOP_PLATFORMS`
    (``linux``, ``freebsd14``, ``openbsd7``, ``netbsd10``, ``dragonfly6``, ``gnu0``,
    ``sunos5``, ...). Not: ``darwin`` (macOS: the Finder's trash, ``~/.Trash`` and each
    volume's ``.Trashes``, filled through a Foundation call), ``win32``, ``cygwin`` and ``msys`` (the Recycle Bin, filled
    through a shell call), ``ios`` and ``android`` (no user-visible trash folder of this
    kind), ``emscripten`` and ``wasi`` (no desktop at all), and any platform not listed,
    where a file sent to ``~/.local/share/Trash`` would land in a folder no file manager
    shows. Trashing there would mean handing a path to the system (send2trash), which
    neither goes through folder descriptors opened inside the corpus nor can be undone,
    so ditto-tui refuses and points to a quarantine folder or an explicit trash folder.
    """
    platform = sys.platform if platform is None else platform
    if platform.startswith(FREEDESKTOP_PLATFORMS):
        return None
    return (f"the system trash on {platform_name(platform)} is not the freedesktop trash "
            "ditto-tui can undo: use --action move DIR (a quarantine folder), or "
            f"--trash-dir DIR (or {TRASH_ENV}) for a trash folder of its own")


def trash_refusal(override: str | os.PathLike[str] | None = None) -> str | None:
    """Why the ``trash`` action cannot be used, or None when it can: an explicit trash
    folder (``override``, else ``DITTO_TUI_TRASH_DIR``) works on every platform; without
    one, the system trash must be the freedesktop trash (:func:`system_trash_refusal`)."""
    if override is not None or os.environ.get(TRASH_ENV):
        return None
    return system_trash_refusal()


def check_trash(override: str | os.PathLike[str] | None = None) -> None:
    """Raise :class:`TrashUnavailable` (with :func:`trash_refusal`'s reason) when the
    ``trash`` action cannot be used with ``override``."""
    reason = trash_refusal(override)
    if reason is not None:
        raise TrashUnavailable(reason)


def _uid() -> int:
    return os.getuid() if hasattr(os, "getuid") else 0


def _home_trash() -> Path:
    data = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(data) / "Trash"


def _topdir(path: str) -> str:
    """The mount point holding ``path`` (the highest ancestor on the same device)."""
    cur = os.path.realpath(path)
    dev = os.lstat(cur).st_dev
    while True:
        parent = os.path.dirname(cur)
        if parent == cur:
            return cur
        try:
            if os.lstat(parent).st_dev != dev:
                return cur
        except OSError:
            return cur
        cur = parent


def trash_folder_for(path: str, override: str | os.PathLike[str] | None = None) -> Path:
    """The trash folder (holding ``files/`` and ``info/``) a file at ``path`` goes to;
    :class:`TrashUnavailable` where only the system trash would do and it is not the
    freedesktop trash (:func:`check_trash`)."""
    chosen = override if override is not None else os.environ.get(TRASH_ENV) or None
    if chosen is not None:
        return Path(os.path.abspath(chosen))
    check_trash()
    home = _home_trash()
    dev = os.lstat(path).st_dev
    probe = home
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if os.stat(probe).st_dev == dev:
        return home
    top = _topdir(path)
    shared = os.path.join(top, ".Trash")
    try:
        st = os.lstat(shared)
        if stat.S_ISDIR(st.st_mode) and st.st_mode & stat.S_ISVTX:
            return Path(shared) / str(_uid())
    except OSError:
        pass
    return Path(top) / f".Trash-{_uid()}"


def ensure_trash(folder: Path) -> None:
    """Create ``files/`` and ``info/`` (mode 0700) if missing; refuse symlinked folders."""
    for sub in (folder, folder / "files", folder / "info"):
        with contextlib.suppress(FileExistsError):
            os.makedirs(sub, mode=0o700, exist_ok=True)
        if os.path.islink(sub) or not os.path.isdir(sub):
            raise OSError(f"{sub}: the trash folder is not a real folder")


def trash_name(tag: str, original: str) -> str:
    """A unique name in the trash: ``<tag>-<file name>``, shortened to fit ``NAME_MAX``
    bytes with its ``.trashinfo`` suffix (the extension is kept)."""
    base = os.path.basename(original)
    name = f"{tag}-{base}"
    limit = NAME_MAX - len(".trashinfo")
    if len(os.fsencode(name)) <= limit:
        return name
    stem, ext = os.path.splitext(base)
    raw_ext = os.fsencode(ext)[:40]
    room = limit - len(os.fsencode(tag)) - 1 - len(raw_ext)
    short = os.fsencode(stem)[: max(room, 1)]
    return os.fsdecode(os.fsencode(tag) + b"-" + short + raw_ext)


def trashinfo_text(original: str, when: float | None = None) -> bytes:
    """The ``.trashinfo`` body for an absolute original path (percent-encoded bytes)."""
    quoted = urllib.parse.quote(os.fsencode(original), safe="/")
    date = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(when))
    return f"[Trash Info]\nPath={quoted}\nDeletionDate={date}\n".encode("ascii")


def write_trashinfo(info_path: str, original: str, *, dir_fd: int | None = None) -> None:
    """Create ``info_path`` exclusively (O_EXCL: the name is reserved, never through a
    symlink) for ``original``; with ``dir_fd`` it is a name in that open folder."""
    fd = os.open(info_path, NEW_FILE_FLAGS, 0o600, dir_fd=dir_fd)
    try:
        write_all(fd, trashinfo_text(original))
    finally:
        os.close(fd)
