"""The html-distance pipeline: a SimHash of an HTML page's structure, not its words.

Bit-identical to ``Fingerprint(r, shingle)`` of github.com/yahoo/gryffin/html-distance
(checked on the 130 pages of tests/data/html-distance-vectors.jsonl): the first
``MAX_TOKENS`` tokens of Go's x/net/html tokenizer (``html_tokenizer``) become features,
one per token (``A:div``, ``B:div``, ``C:br``, ``D:``, ``E:``, ``F:``; the tag name only
when it is an atom of x/net/html) plus one per attribute of start and self-closing tags
(``G:a:rel:nofollow`` for class, name and rel, ``G:a:href`` otherwise; end tags carry no
attributes in x/net/html, whatever their source says). A window of ``shingle`` features
(starting with empty ones) joined by spaces is hashed with FNV-1 64, and Charikar's sum
gives bit i = 1 iff at least as many shingle hashes have bit i set as not; a page with
no tokens gives ``ffffffffffffffff``. Fingerprints of this pipeline are only comparable
with each other, never with the ditto text pipeline.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources
from itertools import chain
from typing import ClassVar

import numpy as np

from ditto_tui.core.html_tokenizer import TagInfo, scan_classes
from ditto_tui.core.simhash import Fingerprint

__all__ = ["HTML_PIPELINE_VERSION", "MAX_TOKENS", "HtmlStructure", "fnv1_64"]

#: Bump whenever fingerprints of this pipeline could change; part of ``identity``.
HTML_PIPELINE_VERSION = "html-distance/1"
#: Tokens read from the start of a page; the rest of the page is ignored (as in Go).
MAX_TOKENS = 5000

_FNV_OFFSET = 0xCBF29CE484222325
_FNV_PRIME = 0x100000001B3
_MASK64 = (1 << 64) - 1
# Below this many strings still being hashed, a numpy step costs more than finishing
# the strings byte by byte in Python.
_TAIL_STRINGS = 24

# Go's TokenType numbering (as in html_tokenizer) -> feature prefix.
_PREFIX = {1: b"F:", 2: b"A:", 3: b"B:", 4: b"C:", 5: b"E:", 6: b"D:"}
_VALUED_KEYS = frozenset((b"class", b"name", b"rel"))
_EXTENSIONS = (".html", ".htm", ".xhtml")


def _load_atoms() -> frozenset[bytes]:
    text = resources.files("ditto_tui.core.data").joinpath("html-distance-atoms.txt")
    names = text.read_text(encoding="utf-8").splitlines()
    return frozenset(n.strip().encode("ascii") for n in names if n.strip() and n[0] != "#")


_ATOMS = _load_atoms()


def fnv1_64(data: bytes) -> int:
    """FNV-1 64 of ``data`` (multiply, then XOR each byte), as Go's ``hash/fnv.New64``."""
    h = _FNV_OFFSET
    for b in data:
        h = ((h * _FNV_PRIME) & _MASK64) ^ b
    return h


def _fnv1_64_many(strings: list[bytes]) -> np.ndarray:
    """FNV-1 64 of each string as a uint64 array, vectorised over the strings.

    Strings are sorted longest first, so the ones still being hashed at byte j are a
    prefix of the batch: numpy hashes column j of a padded byte matrix for all of them
    at once while many remain, and the few long tails finish in plain Python.
    """
    count = len(strings)
    if count == 0:
        return np.zeros(0, dtype=np.uint64)
    lengths = np.fromiter(map(len, strings), dtype=np.int64, count=count)
    order = np.argsort(-lengths, kind="stable")
    ordered = [strings[i] for i in order.tolist()]
    active = np.searchsorted(-lengths[order], -np.arange(int(lengths[order[0]])), side="left")
    # Columns worth a numpy step: while more than _TAIL_STRINGS strings are still going.
    width = int(np.searchsorted(-active, -_TAIL_STRINGS, side="left"))
    h = np.full(count, _FNV_OFFSET, dtype=np.uint64)
    if width:
        matrix = np.frombuffer(
            b"".join([s[:width].ljust(width, b"\0") for s in ordered]), dtype=np.uint8
        ).reshape(count, width)
        columns = np.ascontiguousarray(matrix.T)
        prime = np.uint64(_FNV_PRIME)
        for j in range(width):
            head = h[: int(active[j])]
            head *= prime
            head ^= columns[j, : head.size]
    if width < active.size:
        tails = h[: int(active[width])].tolist()
        for i, state in enumerate(tails):
            for b in ordered[i][width:]:
                state = ((state * _FNV_PRIME) & _MASK64) ^ b
            tails[i] = state
        h[: len(tails)] = tails
    out = np.empty(count, dtype=np.uint64)
    out[order] = h
    return out


def _charikar(hashes: np.ndarray, counts: np.ndarray) -> int:
    """Bit i is 1 iff the hashes (with multiplicities) with bit i set are >= half."""
    total = int(counts.sum())
    bits = np.unpackbits(
        hashes.astype("<u8").view(np.uint8).reshape(-1, 8), axis=1, bitorder="little"
    )
    ones = counts @ bits
    keep = (2 * ones >= total).astype(np.uint8)
    return int(np.packbits(keep, bitorder="little").view("<u8")[0])


@dataclass(frozen=True)
class HtmlStructure:
    """The html-distance pipeline with a shingle (window) of ``shingle`` features.

    ``shingle`` values below 1 mean 1, as in Go, and are stored as 1 so that equal
    pipelines compare equal and share one ``identity``. Large values cost time linear
    in ``shingle`` per feature. Instances are immutable and picklable.
    """

    shingle: int = 3
    name: ClassVar[str] = "html"

    def __post_init__(self) -> None:
        if isinstance(self.shingle, bool) or not isinstance(self.shingle, int):
            raise TypeError(f"shingle must be an int, not {type(self.shingle).__name__}")
        if self.shingle < 1:
            object.__setattr__(self, "shingle", 1)

    @property
    def identity(self) -> str:
        """``"html-distance/1;shingle=S"``: store it beside every persisted fingerprint."""
        return f"{HTML_PIPELINE_VERSION};shingle={self.shingle}"

    def accepts(self, name: str) -> bool:
        """True for names ending in .html, .htm or .xhtml (any case)."""
        return name.lower().endswith(_EXTENSIONS)

    def features(self, data: bytes | str) -> list[str]:
        """The page's structural features in order (``"A:div"``, ``"G:a:href"``, ...).

        For inspection: bytes that are not UTF-8 (from attribute values) are kept as
        surrogate escapes, so ``f.encode("utf-8", "surrogateescape")`` is the exact
        feature that was hashed.
        """
        return [f.decode("utf-8", "surrogateescape") for f in _features(_as_bytes(data))]

    def shingles(self, data: bytes | str) -> dict[int, int]:
        """FNV-1 64 hash of each distinct shingle -> how many times it occurs."""
        strings, counts = _distinct_shingles(*_feature_ids(_as_bytes(data)), self.shingle)
        hashes = _fnv1_64_many(strings)
        return dict(zip(hashes.tolist(), counts.tolist(), strict=True))

    def fingerprint(self, data: bytes | str) -> Fingerprint:
        """The page's structure fingerprint, bit-identical to Go html-distance."""
        ids, table = _feature_ids(_as_bytes(data))
        strings, counts = _distinct_shingles(ids, table, self.shingle)
        if not strings:
            return Fingerprint(0xFFFFFFFFFFFFFFFF)
        hashes = _fnv1_64_many(strings)
        if not hashes.all():
            # Go stops summing at the first shingle whose hash is 0 (a 2**-64 chance per
            # shingle, never seen in practice). Mirror it on the ordered shingles.
            ordered = _shingles([table[i] for i in ids.tolist()], self.shingle)
            first_zero = next(i for i, s in enumerate(ordered) if fnv1_64(s) == 0)
            strings, counts = _distinct_shingles(ids[:first_zero], table, self.shingle)
            if not strings:
                return Fingerprint(0xFFFFFFFFFFFFFFFF)
            hashes = _fnv1_64_many(strings)
        return Fingerprint(_charikar(hashes, counts))

    def fingerprint_many(self, docs: Iterable[bytes]) -> np.ndarray:
        """Fingerprints of several pages as a uint64 array, in order."""
        return np.array([int(self.fingerprint(d)) for d in docs], dtype=np.uint64)


def _as_bytes(data: bytes | str) -> bytes:
    if isinstance(data, str):
        return data.encode("utf-8", "surrogateescape")
    return bytes(data)


def _features(data: bytes) -> list[bytes]:
    """Go's genFeatures over the first MAX_TOKENS tokens, as byte strings in order."""
    ids, table = _feature_ids(data)
    return [table[i] for i in ids.tolist()]


def _feature_ids(data: bytes) -> tuple[np.ndarray, list[bytes]]:
    """The features of ``data`` in order, as indexes (int64) into a table of distinct ones.

    Features are derived once per token class (tokens with the same source text).
    """
    classes, infos, _ends = scan_classes(data, MAX_TOKENS)
    table: list[bytes] = []
    index: dict[bytes, int] = {}
    per_class: list[list[int]] = []
    for info in infos:
        ids = []
        for feature in _token_features(info):
            i = index.get(feature)
            if i is None:
                i = index[feature] = len(table)
                table.append(feature)
            ids.append(i)
        per_class.append(ids)
    flat = chain.from_iterable(map(per_class.__getitem__, classes))
    return np.fromiter(flat, dtype=np.int64), table


def _distinct_shingles(
    ids: np.ndarray, table: list[bytes], shingle: int
) -> tuple[list[bytes], np.ndarray]:
    """The distinct shingles of the feature sequence ``ids`` and how often each occurs.

    Windows are counted on feature indexes with numpy; only the distinct ones are
    joined into byte strings.
    """
    n = ids.size
    if n == 0:
        return [], np.zeros(0, dtype=np.int64)
    pad = len(table)  # index of the empty feature that fills the first windows
    names = [*table, b""]
    base = pad + 1
    padded = np.empty(n + shingle - 1, dtype=np.int64)
    padded[: shingle - 1] = pad
    padded[shingle - 1 :] = ids
    if base.bit_length() * shingle <= 62:  # one int64 key per window
        key = padded[:n].copy()
        for column in range(1, shingle):
            key *= base
            key += padded[column : column + n]
        distinct, counts = np.unique(key, return_counts=True)
        columns = []
        for _ in range(shingle):
            columns.append(distinct % base)
            distinct = distinct // base
        rows = zip(*[c.tolist() for c in reversed(columns)], strict=True)
    else:
        windows = np.lib.stride_tricks.sliding_window_view(padded, shingle)
        distinct, counts = np.unique(windows, axis=0, return_counts=True)
        rows = distinct.tolist()
    if shingle == 1:
        strings = [names[a] for (a,) in rows]
    elif shingle == 3:
        strings = [names[a] + b" " + names[b] + b" " + names[c] for a, b, c in rows]
    else:
        strings = [b" ".join([names[i] for i in row]) for row in rows]
    return strings, counts.astype(np.int64)


def _token_features(info: TagInfo) -> list[bytes]:
    kind, name, attrs = info
    atom = name if name in _ATOMS else b""
    result = [_PREFIX[kind] + atom]
    if attrs:
        head = b"G:" + atom + b":"
        for key, value in attrs:
            result.append(head + key + b":" + value if key in _VALUED_KEYS else head + key)
    return result


def _shingles(features: list[bytes], shingle: int) -> list[bytes]:
    """One shingle per feature: it and the ``shingle - 1`` before it (b"" before the
    first), joined by single spaces."""
    if shingle == 1:
        return features
    padded = [b""] * (shingle - 1) + features
    if shingle == 2:
        return [a + b" " + b for a, b in zip(padded, features, strict=False)]
    if shingle == 3:
        return [
            a + b" " + b + b" " + c for a, b, c in zip(padded, padded[1:], features, strict=False)
        ]
    return [b" ".join(padded[i : i + shingle]) for i in range(len(features))]
