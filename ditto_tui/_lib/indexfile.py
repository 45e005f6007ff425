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
"""

from __future__ import annotations

import contextlib
import json
import os
import struct
import tempfile
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["FORMAT_VERSION", "MAGIC", "IndexFileError", "StoredIndex", "read_index", "write_index"]

MAGIC = b"DITTOIX\n"
FORMAT_VERSION = 1
_LEN = struct.Struct("<I")
_CRC = struct.Struct("<I")
_MAX_HEADER = 1 << 20


class IndexFileError(ValueError):
    """A file is not a readable index: wrong magic, unknown format version, truncated,
    corrupted (checksum mismatch) or inconsistent. The message names the file and the
    problem; nothing is loaded."""


@dataclass(frozen=True)
class StoredIndex:
    """What an index file holds: pipeline identity, k, ids and their fingerprints."""

    pipeline: str
    k: int
    ids: list[str]
    fingerprints: np.ndarray  # uint64, same length as ids


def write_index(path: str | os.PathLike[str], stored: StoredIndex) -> int:
    """Write ``stored`` to ``path`` atomically (a temporary file in the same folder, then
    a rename), so a crash never leaves a half-written index under ``path``. Returns the
    number of bytes written."""
    fps = np.ascontiguousarray(stored.fingerprints, dtype="<u8")
    encoded = [i.encode("utf-8", "surrogatepass") for i in stored.ids]
    lengths = np.fromiter((len(e) for e in encoded), dtype=np.uint64, count=len(encoded))
    offsets = np.zeros(len(encoded) + 1, dtype="<u8")
    np.cumsum(lengths, out=offsets[1:])
    blob = b"".join(encoded)
    header = json.dumps(
        {
            "format": FORMAT_VERSION,
            "pipeline": stored.pipeline,
            "k": stored.k,
            "count": len(encoded),
            "id_bytes": len(blob),
        },
        sort_keys=True,
    ).encode("utf-8")
    parts = [MAGIC, _LEN.pack(len(header)), header, fps.tobytes(), offsets.tobytes(), blob]
    crc = 0
    for part in parts:
        crc = zlib.crc32(part, crc)
    parts.append(_CRC.pack(crc))
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent or ".")
    try:
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                out.write(part)
            size = out.tell()
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return size


def read_index(path: str | os.PathLike[str]) -> StoredIndex:
    """Read and verify an index file; :class:`IndexFileError` on any defect, ``OSError``
    when it cannot be read at all."""
    with open(path, "rb") as f:
        data = f.read()
    name = os.fspath(path)

    def bad(problem: str) -> IndexFileError:
        return IndexFileError(f"{name}: {problem}")

    if len(data) < len(MAGIC) + _LEN.size:
        if MAGIC.startswith(data[: len(MAGIC)]):
            raise bad(f"truncated: {len(data)} bytes, shorter than the file header")
        raise bad("not a ditto-tui index file (bad magic)")
    if data[: len(MAGIC)] != MAGIC:
        raise bad("not a ditto-tui index file (bad magic)")
    (hlen,) = _LEN.unpack_from(data, len(MAGIC))
    start = len(MAGIC) + _LEN.size
    if hlen > _MAX_HEADER:
        raise bad(f"corrupted: header length {hlen} is implausible")
    if len(data) < start + hlen:
        raise bad(f"truncated: {len(data)} bytes, the header alone needs {start + hlen}")
    try:
        header = json.loads(data[start : start + hlen].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise bad(f"corrupted header ({exc})") from None
    if not isinstance(header, dict):
        raise bad("corrupted header (not an object)")
    version = header.get("format")
    if version != FORMAT_VERSION:
        raise bad(
            f"index file format {version!r} is not supported (this version reads "
            f"format {FORMAT_VERSION}); rebuild the index with this version"
        )
    try:
        pipeline, k = str(header["pipeline"]), int(header["k"])
        count, id_bytes = int(header["count"]), int(header["id_bytes"])
    except (KeyError, TypeError, ValueError) as exc:
        raise bad(f"corrupted header (missing or bad field {exc})") from None
    if count < 0 or id_bytes < 0:
        raise bad("corrupted header (negative sizes)")
    body = start + hlen
    end = body + 8 * count + 8 * (count + 1) + id_bytes
    expected = end + _CRC.size
    if len(data) < expected:
        raise bad(f"truncated: {len(data)} bytes, expected {expected} for {count} documents")
    if len(data) > expected:
        raise bad(f"corrupted: {len(data) - expected} unexpected bytes after the data")
    (crc,) = _CRC.unpack_from(data, end)
    if zlib.crc32(memoryview(data)[:end]) != crc:
        raise bad("corrupted: checksum mismatch")
    if not 0 <= k <= 64:
        raise bad(f"corrupted header (k={k} outside 0..64)")
    view = memoryview(data)[body:end]
    fps = np.frombuffer(view, dtype="<u8", count=count).astype(np.uint64)
    offsets = np.frombuffer(view, dtype="<u8", count=count + 1, offset=8 * count)
    if offsets[0] != 0 or offsets[-1] != id_bytes or np.any(offsets[1:] < offsets[:-1]):
        raise bad("corrupted: id offsets are inconsistent")
    blob = bytes(view[8 * (2 * count + 1) :])
    bounds = offsets.tolist()
    try:
        if blob.isascii():  # byte offsets are character offsets: decode once, slice
            text = blob.decode("ascii")
            ids = [text[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]
        else:
            ids = [
                blob[a:b].decode("utf-8", "surrogatepass")
                for a, b in zip(bounds, bounds[1:], strict=False)
            ]
    except UnicodeDecodeError:
        raise bad("corrupted: an id is not valid UTF-8") from None
    return StoredIndex(pipeline, k, ids, fps)
