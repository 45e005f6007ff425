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

With the compiled engine (``engine``), ``fingerprint`` runs the whole path in C. Otherwise speed comes from memoising across pages (in bounded memory):
the features of each distinct token source (``html_features.FeatureTable``), and the
FNV-1 hash of each distinct shingle, counted per page on packed feature numbers with numpy.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from ditto_tui.core.fingerprint import engine
from ditto_tui.core.fingerprint.simhash import Fingerprint
from ditto_tui.core.html.features import MAX_TOKENS, FeatureTable
from ditto_tui.core.html.sniff import has_html_name, sniff_html

__all__ = ["HTML_PIPELINE_VERSION", "MAX_TOKENS", "HtmlStructure", "fnv1_64"]

#: Bump whenever fingerprints of this pipeline could change; part of ``identity``.
HTML_PIPELINE_VERSION = "html-distance/1"
_FNV_OFFSET = 0xCBF29CE484222325
_FNV_PRIME = 0x100000001B3
_MASK64 = (1 << 64) - 1
# Below this many strings still being hashed, a numpy step costs more than finishing
# the strings byte by byte in Python.
_TAIL_STRINGS = 24

# Shingles of at most _PACKED_SHINGLE features numbered below 2**_PACK_BITS are packed
# into one int64 (the first feature in the high bits) to be counted and memoised.
_PACK_BITS = 20
_PACKED_SHINGLE = 3
# A memo holding more than this many features, token sources or shingle hashes is
# dropped for a fresh one before the next page (a few tens of MB at most).
_MEMO_LIMIT = 1 << 17


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
    if count <= _TAIL_STRINGS:  # too few for numpy to pay
        return np.array([fnv1_64(s) for s in strings], dtype=np.uint64)
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
    bits = np.unpackbits(hashes.astype("<u8", copy=False).view(np.uint8), bitorder="little")
    # Float sums are exact here (below 2**24, resp. 2**53) and much faster than int ones.
    dtype = np.float32 if total < 1 << 24 else np.float64
    ones = counts.astype(dtype) @ bits.reshape(-1, 64).astype(dtype)
    keep = 2 * ones >= total
    return int(np.packbits(keep, bitorder="little").view("<u8")[0])


class _Memo:
    """What a pipeline remembers across pages: feature numbers and shingle hashes.

    ``hashes[s]`` maps a packed shingle of ``s`` features to its FNV-1 64 hash. Pickling
    gives an empty memo. Safe to share between threads: entries are only ever added,
    and each is a pure function of its key.
    """

    def __init__(self) -> None:
        self.table = FeatureTable()
        self.hashes: dict[int, dict[int, int]] = {}

    def __reduce__(self) -> tuple[type[_Memo], tuple[()]]:
        return _Memo, ()

    @property
    def size(self) -> int:
        return self.table.size + sum(map(len, self.hashes.values()))

    def shingle_hashes(self, ids: np.ndarray, shingle: int) -> tuple[np.ndarray, np.ndarray]:
        """(hashes, counts): the FNV-1 64 hash of each distinct shingle of the feature
        sequence ``ids`` (not empty) and how often it occurs."""
        names = self.table.names
        n = ids.size
        padded = np.zeros(n + shingle - 1, dtype=np.int64)
        padded[shingle - 1 :] = ids
        if shingle > _PACKED_SHINGLE or len(names) > 1 << _PACK_BITS:
            windows = np.lib.stride_tricks.sliding_window_view(padded, shingle)
            distinct, counts = np.unique(windows, axis=0, return_counts=True)
            strings = [b" ".join([names[i] for i in row]) for row in distinct.tolist()]
            return _fnv1_64_many(strings), counts.astype(np.int64)
        key = padded[:n].copy()
        for column in range(1, shingle):
            key <<= _PACK_BITS
            key |= padded[column : column + n]
        packed, counts = np.unique(key, return_counts=True)
        packed_list = packed.tolist()
        memo = self.hashes.setdefault(shingle, {})
        known = list(map(memo.get, packed_list))
        if None in known:
            self._hash_new(packed_list, known, memo, shingle)
        return np.array(known, dtype=np.uint64), counts.astype(np.int64)

    def _hash_new(
        self, packed: list[int], known: list[int | None], memo: dict[int, int], shingle: int
    ) -> None:
        """Fill the holes of ``known`` with the hashes of those ``packed`` shingles."""
        names = self.table.names
        mask = (1 << _PACK_BITS) - 1
        shifts = [_PACK_BITS * (shingle - 1 - j) for j in range(shingle)]
        holes = [i for i, h in enumerate(known) if h is None]
        strings = [
            b" ".join([names[(packed[i] >> shift) & mask] for shift in shifts]) for i in holes
        ]
        for i, h in zip(holes, _fnv1_64_many(strings).tolist(), strict=True):
            known[i] = memo[packed[i]] = h


class _MemoSlot:
    """The memo a pipeline currently uses; replaced by an empty one when it gets too big."""

    def __init__(self) -> None:
        self.memo = _Memo()

    def __reduce__(self) -> tuple[type[_MemoSlot], tuple[()]]:
        return _MemoSlot, ()

    def get(self) -> _Memo:
        memo = self.memo
        if memo.size > _MEMO_LIMIT:
            memo = self.memo = _Memo()
        return memo


@dataclass(frozen=True)
class HtmlStructure:
    """The html-distance pipeline with a shingle (window) of ``shingle`` features.

    ``shingle`` values below 1 mean 1, as in Go, and are stored as 1 so that equal
    pipelines compare equal and share one ``identity``. Large values cost time linear
    in ``shingle`` per feature. Instances are immutable as far as results go and
    picklable; each remembers (within bounded memory) the token sources, features and
    shingle hashes of the pages it has seen, which makes pages from the same templates
    cheap. Safe to use from several threads.
    """

    shingle: int = 3
    name: ClassVar[str] = "html"
    _memo: _MemoSlot = field(default_factory=_MemoSlot, init=False, repr=False, compare=False)

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
        """True for names ending in .html, .htm, .xhtml or .shtml (any case)."""
        return has_html_name(name)

    def accepts_head(self, head: bytes) -> bool:
        """For a file refused by name: True when its first bytes look like an HTML page
        (WHATWG sniffing signatures, :func:`~ditto_tui.core.html.sniff.sniff_html`)."""
        return sniff_html(head)

    def features(self, data: bytes | str) -> list[str]:
        """The page's structural features in order (``"A:div"``, ``"G:a:href"``, ...).

        For inspection: bytes that are not UTF-8 (from attribute values) are kept as
        surrogate escapes, so ``f.encode("utf-8", "surrogateescape")`` is the exact
        feature that was hashed.
        """
        table = self._memo.get().table
        names = table.names
        return [
            names[i].decode("utf-8", "surrogateescape")
            for i in table.page_ids(_as_bytes(data)).tolist()
        ]

    def shingles(self, data: bytes | str) -> dict[int, int]:
        """FNV-1 64 hash of each distinct shingle -> how many times it occurs."""
        memo = self._memo.get()
        ids = memo.table.page_ids(_as_bytes(data))
        if not ids.size:
            return {}
        hashes, counts = memo.shingle_hashes(ids, self.shingle)
        result: dict[int, int] = {}
        for h, c in zip(hashes.tolist(), counts.tolist(), strict=True):
            result[h] = result.get(h, 0) + c  # distinct shingles may share a hash
        return result

    def fingerprint(self, data: bytes | str) -> Fingerprint:
        """The page's structure fingerprint, bit-identical to Go html-distance."""
        if type(data) is not bytes:
            data = _as_bytes(data)
        compiled = engine.html()
        if compiled is not None:
            fp = compiled.fingerprint(data, self.shingle, MAX_TOKENS)
            if fp is not None:
                return Fingerprint(fp)
        memo = self._memo.get()
        ids = memo.table.page_ids(data)
        if not ids.size:
            return Fingerprint(0xFFFFFFFFFFFFFFFF)
        hashes, counts = memo.shingle_hashes(ids, self.shingle)
        if not hashes.all():
            # Go stops summing at the first shingle whose hash is 0 (a 2**-64 chance per
            # shingle, never seen in practice). Mirror it on the ordered shingles.
            ordered = _shingles([memo.table.names[i] for i in ids.tolist()], self.shingle)
            first_zero = next(i for i, s in enumerate(ordered) if fnv1_64(s) == 0)
            if first_zero == 0:
                return Fingerprint(0xFFFFFFFFFFFFFFFF)
            hashes, counts = memo.shingle_hashes(ids[:first_zero], self.shingle)
        return Fingerprint(_charikar(hashes, counts))

    def fingerprint_many(self, docs: Iterable[bytes]) -> np.ndarray:
        """Fingerprints of several pages as a uint64 array, in order."""
        return np.array([int(self.fingerprint(d)) for d in docs], dtype=np.uint64)


def _as_bytes(data: bytes | str) -> bytes:
    if isinstance(data, str):
        return data.encode("utf-8", "surrogateescape")
    return bytes(data)


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
