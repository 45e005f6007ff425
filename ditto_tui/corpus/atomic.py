"""Writing whole: an output file whole or not at all, never over an existing file unless
asked (:func:`output_file`), and every byte of a buffer to a descriptor (:func:`write_all`)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

__all__ = ["output_file", "write_all"]


@contextmanager
def output_file(
    dest: str | os.PathLike[str], *, overwrite: bool = False, prefix: str = ".ditto-", **mode: Any
) -> Iterator[IO[Any]]:
    """Open ``dest`` for writing (``mode`` are :func:`open`'s keyword arguments besides the
    mode: ``encoding``, ``errors``, ``newline``; none means binary).

    A new file is created exclusively: an existing ``dest`` raises ``FileExistsError``
    unless ``overwrite``. Then the data goes to a temporary file beside ``dest`` that
    replaces it atomically when the block ends, with the permissions a new file gets. If
    the block fails, no new file is left behind and an old ``dest`` stays as it was.
    """
    path = Path(dest)
    text = "t" if mode else "b"
    if not overwrite:
        with open(path, "x" + text, **mode) as handle:
            try:
                yield handle
            except BaseException:
                handle.close()
                path.unlink(missing_ok=True)
                raise
        return
    fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w" + text, **mode) as handle:
            yield handle
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_all(fd: int, data: bytes) -> None:
    """Write every byte of ``data`` to ``fd``, however short each ``os.write`` is; an
    OSError from a write propagates (what was written before it stays written)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
