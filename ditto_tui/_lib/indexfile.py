"""The index file format, version 1 (documented in docs/library.md, "The index file").

Layout, all integers little-endian::

    offset  size      what
    0       8         magic b"DITTOIX\\n"
    8       4         header length H (uint32)
    12      H         header: UTF-8 JSON object, keys below
    12+H    8*n       fingerprints, uint64
    ...     8*(n+1)   id offsets into the id blob, uint64, starting at 0
    ...     B         id blob: every id encoded UTF-8 ("surrogatepass"), concatenated
    ...     4         CRC-32 (zlib) of every byte before it, uint32

Header keys: ``format`` (1), ``pipeline`` (identity string), ``k`` (int), ``count`` (n),
``id_bytes`` (B). A reader checks the magic, the format number, the exact file length
and the checksum (which covers the header too) before it trusts any of it. Documents are stored sorted by id, so the same content always gives
the same bytes.

Reading never trusts the file's size or kind: only a regular file is read (a FIFO, a
device, a folder are refused without reading), the 12-byte prefix and the header come
first, the size the header announces is compared with the file's (``fstat``), and only
then is exactly that much read. Writing encodes all the ids at once (one more encode
per id that is not ASCII, for its length); reading decodes an all-ASCII blob at once.
"""

from __future__ import annotations

import contextlib
import errno
import io
import json
import os
import stat
import struct
import tempfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

import numpy as np

__all__ = ["FORMAT_VERSION", "MAGIC", "IndexFileError", "StoredIndex", "read_index", "write_index"]

MAGIC = b"DITTOIX\n"
FORMAT_VERSION = 1
_LEN = struct.Struct("<I")
_CRC = struct.Struct("<I")
_PREFIX = len(MAGIC) + _LEN.size
_MAX_HEADER = 1 << 20
_MAX_NESTING = 32  # the header is one flat JSON object; deeper nesting is damage
_BRACKETS = np.zeros(256, np.int8)
_BRACKETS[[ord("["), ord("{")]] = 1
_BRACKETS[[ord("]"), ord("}")]] = -1
# errors of os.open that say the path is not a file to read (a symlink loop, a socket,
# a device without a driver), as opposed to missing or forbidden
_NOT_A_FILE = {errno.ELOOP, errno.ENXIO, errno.ENODEV, errno.EOPNOTSUPP}


class IndexFileError(ValueError):
    """A file is not a readable index: not a regular file (a folder, a FIFO, a device,
    a symlink loop), wrong magic, unknown format version, truncated, corrupted (checksum
    mismatch) or inconsistent. The message names the file and the problem; nothing is
    loaded."""


@dataclass(frozen=True)
class StoredIndex:
    """What an index file holds: pipeline identity, k, ids and their fingerprints."""

    pipeline: str
    k: int
    ids: list[str]
    fingerprints: np.ndarray  # uint64, same length as ids


def _encode_ids(ids: list[str]) -> tuple[bytes, np.ndarray]:
    """The id blob (every id in UTF-8, "surrogatepass", concatenated) and the ``n + 1``
    byte offsets of the ids in it: the text is encoded once; an id's length in bytes is
    its length in characters unless it is not ASCII (then it is encoded alone)."""
    text = "".join(ids)
    blob = text.encode("utf-8", "surrogatepass")
    offsets = np.zeros(len(ids) + 1, "<u8")
    if len(blob) == len(text):  # all ASCII: a character is a byte
        lengths = np.fromiter(map(len, ids), np.int64, len(ids))
    else:
        lengths = np.fromiter(
            (len(i) if i.isascii() else len(i.encode("utf-8", "surrogatepass")) for i in ids),
            np.int64, len(ids),
        )
    np.cumsum(lengths, out=offsets[1:])
    return blob, offsets


def _decode_ids(blob: bytes, offsets: np.ndarray) -> list[str] | None:
    """The ids of an id blob cut at ``offsets`` (validated: from 0 to ``len(blob)``,
    non-decreasing), or None when one is not valid UTF-8 ("surrogatepass")."""
    bounds = offsets.tolist()
    if blob.isascii():  # byte offsets are character offsets: decode once, slice
        text = blob.decode("ascii")
        return [text[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]
    try:
        return [
            blob[a:b].decode("utf-8", "surrogatepass")
            for a, b in zip(bounds, bounds[1:], strict=False)
        ]
    except UnicodeDecodeError:
        return None


def _naming(exc: OSError, path: str) -> OSError:
    """``exc`` again, naming ``path`` (not the temporary file the error came from)."""
    if exc.errno is None:
        return type(exc)(f"{path}: {exc}")
    return type(exc)(exc.errno, exc.strerror, path)


def write_index(path: str | os.PathLike[str], stored: StoredIndex) -> int:
    """Write ``stored`` to ``path`` atomically (a temporary file in the same folder, then
    a rename), so a crash never leaves a half-written index under ``path``. Returns the
    number of bytes written. An ``OSError`` (a missing folder, no permission, a full
    disk, ``path`` a folder) names ``path``, never the temporary file."""
    fps = np.ascontiguousarray(stored.fingerprints, dtype="<u8")
    blob, offsets = _encode_ids(stored.ids)
    header = json.dumps(
        {
            "format": FORMAT_VERSION,
            "pipeline": stored.pipeline,
            "k": stored.k,
            "count": len(stored.ids),
            "id_bytes": len(blob),
        },
        sort_keys=True,
    ).encode("utf-8")
    parts = [MAGIC, _LEN.pack(len(header)), header, fps.tobytes(), offsets.tobytes(), blob]
    crc = 0
    for part in parts:
        crc = zlib.crc32(part, crc)
    parts.append(_CRC.pack(crc))
    target = os.fsdecode(os.fspath(path))
    folder = os.path.dirname(target) or "."
    try:
        fd, tmp = tempfile.mkstemp(
            prefix=f".{os.path.basename(target)}.", suffix=".tmp", dir=folder
        )
    except OSError as exc:
        raise _naming(exc, target) from None
    try:
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                out.write(part)
            size = out.tell()
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise _naming(exc, target) from None
        raise
    return size


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _read_exact(f: io.RawIOBase, size: int) -> bytearray:
    """Exactly ``size`` bytes, or fewer when the file ends first."""
    buf = bytearray(size)
    view = memoryview(buf)
    got = 0
    while got < size:
        n = f.readinto(view[got:])
        if not n:
            del view
            del buf[got:]
            break
        got += n
    return buf


def read_index(path: str | os.PathLike[str]) -> StoredIndex:
    """Read and verify an index file: :class:`IndexFileError` for anything but a regular
    file holding an index; ``FileNotFoundError``, ``PermissionError`` (``OSError``) when
    it cannot be opened."""
    name = os.fsdecode(os.fspath(path))

    def bad(problem: str) -> IndexFileError:
        return IndexFileError(f"{name}: {problem}")

    try:  # O_NONBLOCK: opening a FIFO must not wait for a writer
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        if exc.errno in _NOT_A_FILE:
            raise bad(f"not an index file ({exc.strerror})") from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise bad(f"{_kind(info.st_mode)}, not an index file (Index.save writes a regular file)")
        f = os.fdopen(fd, "rb", buffering=0)
    except BaseException:
        os.close(fd)
        raise
    with f:
        return _read_open(f, info.st_size, bad)


def _read_open(f: io.RawIOBase, size: int, bad: Callable[[str], IndexFileError]) -> StoredIndex:
    """The index in ``f``, a regular file of ``size`` bytes (see :func:`read_index`)."""
    prefix = _read_exact(f, min(size, _PREFIX))
    if len(prefix) < _PREFIX:
        if MAGIC.startswith(bytes(prefix[: len(MAGIC)])):
            raise bad(f"truncated: {len(prefix)} bytes, shorter than the file header")
        raise bad("not a ditto-tui index file (bad magic)")
    if prefix[: len(MAGIC)] != MAGIC:
        raise bad("not a ditto-tui index file (bad magic)")
    (hlen,) = _LEN.unpack_from(prefix, len(MAGIC))
    if hlen > _MAX_HEADER:
        raise bad(f"corrupted: header length {hlen} is implausible")
    if size < _PREFIX + hlen:
        raise bad(f"truncated: {size} bytes, the header alone needs {_PREFIX + hlen}")
    raw = _read_exact(f, hlen)
    if len(raw) < hlen:
        raise bad(f"truncated: the header ends after {len(raw)} of its {hlen} bytes")
    header = _parse_header(bytes(raw), bad)
    version = header.get("format")
    if version != FORMAT_VERSION:
        raise bad(
            f"index file format {version!r} is not supported (this version reads "
            f"format {FORMAT_VERSION}); rebuild the index with this version"
        )
    for key, kind in (("pipeline", str), ("k", int), ("count", int), ("id_bytes", int)):
        if type(header.get(key)) is not kind:  # (a bool is no int here)
            raise bad(f"corrupted header (missing or bad field {key!r}: {header.get(key)!r})")
    pipeline, k = cast(str, header["pipeline"]), cast(int, header["k"])
    count, id_bytes = cast(int, header["count"]), cast(int, header["id_bytes"])
    if count < 0 or id_bytes < 0:
        raise bad("corrupted header (negative sizes)")
    data_size = 8 * count + 8 * (count + 1) + id_bytes
    expected = _PREFIX + hlen + data_size + _CRC.size
    if size < expected:
        raise bad(f"truncated: {size} bytes, expected {expected} for {count} documents")
    if size > expected:
        raise bad(f"corrupted: {size - expected} unexpected bytes after the data")
    body = _read_exact(f, data_size + _CRC.size)
    if len(body) < data_size + _CRC.size:  # the file shrank since fstat
        raise bad(f"truncated: it ended while being read ({len(body)} of {data_size + 4} bytes)")
    if f.read(1):  # it grew since fstat
        raise bad("corrupted: more bytes than the header announces (still being written?)")
    (crc,) = _CRC.unpack_from(body, data_size)
    view = memoryview(body)[:data_size]
    if zlib.crc32(view, zlib.crc32(raw, zlib.crc32(prefix))) != crc:
        raise bad("corrupted: checksum mismatch")
    if not 0 <= k <= 64:
        raise bad(f"corrupted header (k={k} outside 0..64)")
    fps = np.frombuffer(view, dtype="<u8", count=count).astype(np.uint64)
    offsets = np.frombuffer(view, dtype="<u8", count=count + 1, offset=8 * count)
    if offsets[0] != 0 or offsets[-1] != id_bytes or np.any(offsets[1:] < offsets[:-1]):
        raise bad("corrupted: id offsets are inconsistent")
    ids = _decode_ids(bytes(view[8 * (2 * count + 1) :]), offsets)
    if ids is None:
        raise bad("corrupted: an id is not valid UTF-8")
    return StoredIndex(pipeline, k, ids, fps)  # (a repeated id: load_index finds it)


def _parse_header(raw: bytes, bad: Callable[[str], IndexFileError]) -> dict[str, object]:
    """The header's JSON object; never deep recursion (a header of 100,000 ``[`` is
    refused by a count, not by Python's recursion limit)."""
    depth = np.cumsum(_BRACKETS[np.frombuffer(raw, np.uint8)], dtype=np.int64)
    if len(depth) and int(depth.max()) > _MAX_NESTING:
        raise bad(f"corrupted header (nested {int(depth.max())} deep)")
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:  # ValueError: JSON, huge ints
        raise bad(f"corrupted header ({type(exc).__name__}: {str(exc)[:100]})") from None
    if not isinstance(header, dict):
        raise bad("corrupted header (not an object)")
    return header
