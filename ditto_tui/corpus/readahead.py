"""Reading the large files named on a command line while the program still loads.

``ditto-tui fingerprint MAIL.mbox`` spends its first 0.15-0.2 s importing numpy and the
program on one core, then reads the file (0.04 s for 58 MB, mostly the kernel copying
it and faulting in fresh memory). The program's entry point (``launch``) calls
:func:`start` before those imports: one thread reads each large regular file named on
the command line (a read releases the GIL, so it runs on another core meanwhile).
When the walk later opens the same file, :func:`~ditto_tui.corpus.early_bytes.take`
hands over those bytes instead of
a second read, if the file is the same one (device and inode) and unchanged (size and
modification time, checked before and after the early read and again at the open). Both
readers take them: the one of ``--no-cache`` runs (``read_walked``) and the careful one
(``read_document_bytes``).

The early read goes through the same gate as every read (``RootDir``, ``O_NOFOLLOW``,
never a FIFO or a device: ``read_document_bytes``); a symlink named on the command line
is not read early. Bytes nobody takes (a file the cache already knows, or one the
options leave out) stay in memory until the process ends, so only files of ``MIN_SIZE``
to ``MAX_SIZE`` bytes, ``BUDGET`` bytes in all, are read early.
"""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Iterable

from ditto_tui.corpus import early_bytes
from ditto_tui.corpus.early_bytes import Early
from ditto_tui.corpus.reading import SkipFile, read_document_bytes
from ditto_tui.corpus.rootdir import RootDir

__all__ = ["BUDGET", "MAX_SIZE", "MIN_SIZE", "start"]

#: Files smaller than this are read when needed (their read is short).
MIN_SIZE = 8 << 20
#: Larger files are read when needed (the command's default ``--max-size``).
MAX_SIZE = 64 << 20
#: At most this many bytes are read early in all.
BUDGET = 128 << 20


def start(paths: Iterable[str]) -> int:
    """Read, in a background thread, each of ``paths`` that is a regular file (not a
    symlink) of ``MIN_SIZE`` to ``MAX_SIZE`` bytes, within ``BUDGET``; how many."""
    chosen: dict[tuple[int, int], Early] = {}
    total = 0
    for path in paths:
        try:
            st = os.lstat(path)
        except (OSError, ValueError):
            continue
        key = (st.st_dev, st.st_ino)
        if (not stat.S_ISREG(st.st_mode) or not MIN_SIZE <= st.st_size <= MAX_SIZE
                or total + st.st_size > BUDGET or key in chosen or early_bytes.known(key)):
            continue
        total += st.st_size
        chosen[key] = Early(path)
    if chosen:
        reader = threading.Thread(target=_read, args=(list(chosen.values()),),
                                  name="ditto-tui read-ahead", daemon=True)
        early_bytes.register(chosen, reader)
        reader.start()
    return len(chosen)


def _read(chosen: list[Early]) -> None:
    for early in chosen:
        try:
            root = RootDir.for_file(early.path)
            with root:
                data, st, _binary = read_document_bytes(root, root.file_rel(""), max_size=MAX_SIZE)
            early.data, early.size, early.mtime_ns = data, st.st_size, st.st_mtime_ns
        except (SkipFile, OSError, ValueError):
            pass
        finally:
            early.done.set()
