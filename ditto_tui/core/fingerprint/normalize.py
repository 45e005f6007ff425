"""The ditto/2 normalizer: Go-style decoding, tag stripping, lowercasing, whitespace collapse.

``normalize`` must produce, code point for code point, what Go ditto's ``Normalize``
produces for the same bytes: any difference changes fingerprints. The rules (see
``docs/spec/ditto2.md`` in the repository) are applied in this order:

1. decode UTF-8 the Go way: every byte that does not start a valid shortest-form scalar
   value becomes one U+FFFD;
2. strip tags: ``<`` followed by an ASCII letter or ``/ ! ?`` opens a (nestable) tag, ``>``
   inside a tag closes one level and emits a space, everything inside a tag is dropped;
3. lowercase each code point with the Unicode 13 simple mapping shipped in
   ``data/ditto2-lowercase.tsv`` (never the running Python's database);
4. split on the 25 code points of ``data/ditto2-whitespace.txt``, drop empty fields and
   join with one space.

Tags are stripped, and ASCII letters and whitespace mapped, on the raw bytes: ``<`` and
``>`` are ASCII, and an ASCII byte always decodes to itself, so working before decoding
gives the same result and lets ASCII documents skip the decoder entirely. Valid UTF-8
whose mappings keep every code point's byte length is also mapped in place; anything
else goes through a code point array.
"""

from __future__ import annotations

import re
from functools import cache

import numpy as np

from ditto_tui.core.fingerprint import datafiles

__all__ = ["decode_go", "lowercase_table", "normalize", "normalize_utf8", "strip_tags", "whitespace"]


_DECODE_BLOCK = 1 << 16  # bytes decoded per numpy pass (small arrays stay in cache)


def go_decode_window(padded: np.ndarray, low: int, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Go-style decoding of ``padded[low : low + size]`` (``padded`` has 3 zero bytes after
    the data): ``(codes, inside)``, the code point a sequence starting at each byte gives
    (U+FFFD for a byte that starts none) and whether each byte is a continuation byte of a
    valid sequence (length ``size + 3``; bytes past the window are flagged too)."""
    b0, b1, b2, b3 = (padded[low + k : low + k + size] for k in range(4))
    c1, c2, c3 = ((b & 0xC0) == 0x80 for b in (b1, b2, b3))
    two = (b0 >= 0xC2) & (b0 <= 0xDF) & c1
    three = c1 & c2 & (
        ((b0 == 0xE0) & (b1 >= 0xA0))
        | ((b0 >= 0xE1) & (b0 <= 0xEF) & (b0 != 0xED))
        | ((b0 == 0xED) & (b1 <= 0x9F))
    )
    four = c1 & c2 & c3 & (
        ((b0 == 0xF0) & (b1 >= 0x90)) | ((b0 >= 0xF1) & (b0 <= 0xF3)) | ((b0 == 0xF4) & (b1 <= 0x8F))
    )
    x0, x1, x2, x3 = (b.astype(np.uint32) for b in (b0, b1, b2, b3))
    codes = np.where(b0 < 0x80, x0, 0xFFFD).astype(np.uint32)
    codes = np.where(two, (x0 & 0x1F) << 6 | (x1 & 0x3F), codes)
    codes = np.where(three, (x0 & 0x0F) << 12 | (x1 & 0x3F) << 6 | (x2 & 0x3F), codes)
    codes = np.where(four, (x0 & 0x07) << 18 | (x1 & 0x3F) << 12 | (x2 & 0x3F) << 6 | (x3 & 0x3F), codes)
    inside = np.zeros(size + 3, dtype=bool)  # continuation bytes of valid sequences
    inside[1 : size + 1] |= two | three | four
    inside[2 : size + 2] |= three | four
    inside[3 : size + 3] |= four
    return codes, inside


def _go_code_points(data: bytes) -> np.ndarray:
    """Go-style decoding as a uint32 code point array, vectorised over byte positions.

    A byte starting a valid shortest-form sequence gives its code point; the sequence's
    continuation bytes give nothing; every other byte gives U+FFFD. This is what a
    left-to-right decoder does, because no continuation byte can start a sequence, so
    each block is decoded on its own, looking 3 bytes back and 3 bytes ahead.
    """
    raw = np.frombuffer(data, dtype=np.uint8)
    padded = np.append(raw, np.zeros(3, dtype=np.uint8))
    blocks = []
    for low in range(0, len(raw), _DECODE_BLOCK):
        high = min(low + _DECODE_BLOCK, len(raw))
        back = min(low, 3)  # sequences starting there may cover the block's first bytes
        size = high - low + back
        codes, inside = go_decode_window(padded, low - back, size)
        blocks.append(codes[back:][~inside[back:size]])
    return np.concatenate(blocks) if blocks else np.zeros(0, dtype=np.uint32)


def decode_go(data: bytes) -> str:
    """Decode UTF-8 as Go does: each invalid, truncated, overlong or surrogate byte -> U+FFFD.

    ``b"\xe2\x82abcd"`` gives two U+FFFD (Python's ``errors="replace"`` would give one).
    Never raises.
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:  # keep the valid prefix, decode the rest by hand
        rest = _go_code_points(data[exc.start :]).tobytes().decode("utf-32-le")
        return data[: exc.start].decode("utf-8") + rest


def _data_lines(name: str) -> list[str]:
    text = datafiles.read_text(name, encoding="ascii")
    return [line for line in text.splitlines() if line and not line.startswith("#")]


@cache
def lowercase_table() -> dict[int, int]:
    """The ditto/2 simple lowercase mapping (code point -> code point); others map to themselves."""
    pairs = (line.split("\t") for line in _data_lines("ditto2-lowercase.tsv"))
    return {int(src, 16): int(dst, 16) for src, dst in pairs}


@cache
def whitespace() -> frozenset[int]:
    """The 25 code points that separate words in ditto/2 (Go's ``unicode.IsSpace``)."""
    return frozenset(int(line, 16) for line in _data_lines("ditto2-whitespace.txt"))


@cache
def _code_point_table() -> np.ndarray:
    """uint32 lookup: lowercase mapping, with every whitespace code point mapped to U+0020.

    Covers ``[0, len)``; code points at or above the length map to themselves.
    """
    lower, spaces = lowercase_table(), whitespace()
    table = np.arange(max(max(lower), max(spaces)) + 1, dtype=np.uint32)
    table[list(lower)] = list(lower.values())
    table[list(spaces)] = 0x20
    return table


@cache
def _ascii_table() -> bytes:
    """bytes.translate table doing steps 3 and 4's mapping for ASCII: A-Z -> a-z, whitespace -> space."""
    table = bytearray(range(256))
    for src, dst in lowercase_table().items():
        if src < 0x80:
            table[src] = dst
    for cp in whitespace():
        if cp < 0x80:
            table[cp] = 0x20
    return bytes(table)


_OPENER = re.compile(rb"<[A-Za-z/!?]")
_FLAT_TAG = re.compile(rb"<[A-Za-z/!?][^<>]*>")


def strip_tags(data: bytes) -> bytes:
    """Rule 2 on raw bytes: drop tags, one space per closing ``>``; other bytes untouched.

    Only ``<`` followed by an ASCII letter or ``/ ! ?`` opens a tag (depth += 1); ``>`` at
    depth > 0 closes one level; an unclosed tag swallows the rest of the document. The
    result can contain extra spaces, which whitespace collapsing removes.
    """
    if b"<" not in data:
        return data
    # Usual HTML has flat tags only: replacing each "opener, no < or >, >" by a space is
    # the depth walk exactly when no opener survives (a '<' before a replaced tag is
    # followed by '<' before and by ' ' after, an opener in neither case).
    flat = _FLAT_TAG.sub(b" ", data)
    if _OPENER.search(flat) is None:
        return flat
    return _strip_nested_tags(data)


def _strip_nested_tags(data: bytes) -> bytes:
    """``strip_tags`` for any input: the depth walk, vectorised over '<' and '>' positions."""
    arr = np.frombuffer(data, dtype=np.uint8)
    lt = np.flatnonzero(arr[:-1] == 0x3C)
    follower = arr[lt + 1]
    letter = (follower | 0x20) - np.uint8(ord("a")) < 26
    opens = lt[letter | (follower == 0x2F) | (follower == 0x21) | (follower == 0x3F)]
    closes = np.flatnonzero(arr == 0x3E)
    positions = np.concatenate((opens, closes))
    steps = np.concatenate((np.ones(len(opens), np.int64), np.full(len(closes), -1, np.int64)))
    order = np.argsort(positions, kind="stable")
    positions, steps = positions[order], steps[order]
    # depth clamped at 0 (a stray '>' is text): reflect the running sum at its minimum
    running = np.cumsum(steps)
    depth = running - np.minimum(np.minimum.accumulate(running), 0)
    before = np.concatenate(([0], depth[:-1]))
    ends = positions[(steps > 0) & (before == 0)]
    starts = positions[(steps < 0) & (before == 1)] + 1
    bounds_start = [0, *starts.tolist()]
    bounds_end = ends.tolist()
    if depth[-1] == 0:
        bounds_end.append(len(data))
    return b" ".join([data[a:b] for a, b in zip(bounds_start, bounds_end, strict=True)])


def _collapse_spaces(arr: np.ndarray) -> np.ndarray:
    """Drop leading, trailing and repeated U+0020 from a 1-D code array (uint8 or uint32)."""
    space = arr == 0x20
    keep = ~space
    keep[1:] |= keep[:-1].copy()  # a space is kept only right after a non-space
    out: np.ndarray = arr[keep]
    if len(out) and out[-1] == 0x20:
        out = out[:-1]
    return out


def _map_code_points(codes: np.ndarray) -> np.ndarray:
    """Rules 3 and 4's mapping of a code point array: lowercase, whitespace -> U+0020."""
    table = _code_point_table()
    mapped = np.take(table, codes, mode="clip")
    if len(codes) and codes.max() >= len(table):  # code points past the table map to themselves
        beyond = codes >= len(table)
        mapped[beyond] = codes[beyond]
    return mapped


def _map_multibyte(utf8: np.ndarray) -> np.ndarray | None:
    """Map the multibyte code points of valid UTF-8 in place of their bytes, if possible.

    A whitespace code point becomes as many spaces as it has bytes (collapsing makes
    that one space); a lowercase mapping is written over the original bytes. Returns
    None when some mapping changes the UTF-8 length (e.g. U+0130 -> "i"), which needs
    a full re-encode.
    """
    leads = np.flatnonzero(utf8 >= 0xC0)
    padded = np.append(utf8, np.zeros(3, dtype=np.uint8))
    b0, b1, b2, b3 = (padded[leads + k].astype(np.uint32) for k in range(4))
    size = 2 + (b0 >= 0xE0) + (b0 >= 0xF0)
    codes = np.where(
        size == 2,
        (b0 & 0x1F) << 6 | (b1 & 0x3F),
        np.where(size == 3, (b0 & 0x0F) << 12 | (b1 & 0x3F) << 6 | (b2 & 0x3F),
                 (b0 & 0x07) << 18 | (b1 & 0x3F) << 12 | (b2 & 0x3F) << 6 | (b3 & 0x3F)),
    )
    mapped = _map_code_points(codes)
    changed = np.flatnonzero(mapped != codes)
    if len(changed) == 0:
        return utf8
    leads, size, mapped = leads[changed], size[changed], mapped[changed]
    space = mapped == 0x20
    new_size = 1 + (mapped >= 0x80) + (mapped >= 0x800) + (mapped >= 0x10000)
    if np.any((new_size != size) & ~space):
        return None
    out = utf8.copy()
    for k in range(4):
        blank = leads[space & (size > k)]
        out[blank + k] = 0x20
    cased = ~space
    leads, size, mapped = leads[cased], size[cased], mapped[cased]
    # UTF-8 encode: lead byte marker by size, then 6 payload bits per continuation byte
    marker = np.array([0, 0, 0xC0, 0xE0, 0xF0], dtype=np.uint32)[size]
    out[leads] = marker | (mapped >> (6 * (size - 1)).astype(np.uint32))
    for k in range(1, 4):
        more = size > k
        out[leads[more] + k] = 0x80 | (mapped[more] >> (6 * (size[more] - 1 - k)).astype(np.uint32)) & 0x3F
    return out


def normalize_utf8(data: bytes) -> bytes:
    """The normalized document as UTF-8 bytes (what the shingles are hashed from).

    Any bytes-like object is accepted (a non-``bytes`` one is copied first).
    """
    if not isinstance(data, bytes):
        data = bytes(data)
    text = strip_tags(data).translate(_ascii_table())  # ASCII bytes decode to themselves
    if text.isascii():
        if b"  " not in text:
            return text.strip(b" ")
        return _collapse_spaces(np.frombuffer(text, dtype=np.uint8)).tobytes()
    try:
        decoded = text.decode("utf-8")
    except UnicodeDecodeError:
        decoded = decode_go(text)
    else:  # valid UTF-8: usually mapped without leaving the bytes
        mapped_bytes = _map_multibyte(np.frombuffer(text, dtype=np.uint8))
        if mapped_bytes is not None:
            return _collapse_spaces(mapped_bytes).tobytes()
    codes = np.frombuffer(decoded.encode("utf-32-le"), dtype=np.uint32)
    return _collapse_spaces(_map_code_points(codes)).tobytes().decode("utf-32-le").encode("utf-8")


def normalize(data: bytes | str) -> str:
    """Normalize a document (bytes, or text that is UTF-8 encoded first) to ditto/2 text.

    The result is lowercase, tag-free, has single spaces between words and none at
    either end. A ``str`` holding lone surrogates is encoded with ``surrogatepass``, so
    each of their bytes becomes U+FFFD, as Go would do with those bytes.
    """
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    return normalize_utf8(data).decode("utf-8")
