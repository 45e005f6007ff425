"""Put a rendered report on disk: never over an existing file unless asked, never half."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["write_report"]


def write_report(page: str, dest: str | os.PathLike[str], *, overwrite: bool = False) -> int:
    """Write ``page`` (UTF-8) to ``dest``; return the number of bytes written.

    An existing ``dest`` raises ``FileExistsError`` unless ``overwrite``; then it is
    replaced atomically (a failure leaves the old file as it was). A failure while writing
    a new file leaves no file behind.
    """
    data = page.encode("utf-8")
    path = Path(dest)
    if not overwrite:
        with open(path, "xb") as handle:
            try:
                handle.write(data)
            except BaseException:
                handle.close()
                path.unlink(missing_ok=True)
                raise
        return len(data)
    fd, tmp = tempfile.mkstemp(prefix=".ditto-report-", suffix=".html", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return len(data)
