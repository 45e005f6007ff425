"""The compiled kernels as the pipelines call them (the C entries of ``_compiled``, plus
what is easier in Python: spans cut between threads, an mbox split and fingerprinted).

Every entry releases the GIL while it runs, so threads fingerprint in parallel.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import ModuleType

import numpy as np

from ditto_tui.core.fingerprint._mbox_parts import MboxParts
from ditto_tui.core.fingerprint._mbox_parts import mbox_parts as drive_mbox

__all__ = ["CompiledDitto", "CompiledHtml"]


class CompiledDitto:
    """The ditto/2 kernel: ``fingerprint(data, char_n, word_n) -> int`` of a document's raw
    bytes (any bytes-like object), and the batch forms below."""

    def __init__(self, module: ModuleType) -> None:
        self.fingerprint: Callable[[bytes, int, int], int] = module.ditto_fingerprint
        self._spans: Callable[..., None] = module.ditto_fingerprint_spans
        self._normalize: Callable[[bytes], bytes] = module.ditto_normalize
        self.mbox_split_into: Callable[..., int] = module.mbox_split_into

    def fingerprint_array(self, buf: object, offsets: np.ndarray, sizes: np.ndarray,
                          char_n: int, word_n: int) -> np.ndarray:
        """Fingerprints (uint64) of ``buf[offsets[i] : offsets[i] + sizes[i]]`` (int64
        arrays), in one call."""
        out = np.empty(len(offsets), dtype=np.uint64)
        self._spans(buf, np.ascontiguousarray(offsets, dtype=np.int64),
                    np.ascontiguousarray(sizes, dtype=np.int64), out, char_n, word_n)
        return out

    def fingerprint_spans(self, data: bytes, spans: Sequence[tuple[int, int]], char_n: int,
                          word_n: int, threads: int = 1) -> list[int]:
        """Fingerprints of ``data[offset : offset + size]`` for each (offset, size) span;
        ``threads`` > 1 cuts the spans into that many groups of about equal bytes,
        fingerprinted in parallel threads."""
        if not spans:
            return []
        table = np.array(spans, dtype=np.int64).reshape(-1, 2)
        offsets, sizes = table[:, 0].copy(), table[:, 1].copy()
        threads = max(1, min(threads, len(spans)))
        if threads == 1:
            found: list[int] = self.fingerprint_array(data, offsets, sizes, char_n, word_n).tolist()
            return found
        from concurrent.futures import ThreadPoolExecutor  # (costs a command's start 0.03 s)

        ends = np.cumsum(sizes)
        cuts = [0, *np.searchsorted(ends, ends[-1] * np.arange(1, threads) / threads).tolist(),
                len(spans)]

        def run(lo: int, hi: int) -> np.ndarray:
            return self.fingerprint_array(data, offsets[lo:hi], sizes[lo:hi], char_n, word_n)

        with ThreadPoolExecutor(max_workers=threads) as pool:
            parts = list(pool.map(run, cuts[:-1], cuts[1:]))
        joined: list[int] = np.concatenate(parts).tolist()
        return joined

    def mbox_parts(self, data: bytes, char_n: int, word_n: int, threads: int = 1) -> MboxParts:
        """The messages of the mbox ``data`` (as ``corpus.mail.split_mbox`` finds them) and
        their fingerprints, in up to ``threads`` threads."""

        def run(buf: np.ndarray, offsets: np.ndarray, sizes: np.ndarray) -> np.ndarray:
            return self.fingerprint_array(buf, offsets, sizes, char_n, word_n)

        return drive_mbox(np.frombuffer(data, dtype=np.uint8), threads, self.mbox_split_into, run)

    def normalize_utf8(self, data: bytes) -> bytes:
        """The ditto/2 normalized text of a document's raw bytes, as UTF-8."""
        return self._normalize(data)


class CompiledHtml:
    """The html-distance kernel: ``fingerprint(data, shingle, max_tokens) -> int | None``
    of a page (None: a rare page the Python pipeline must do, see ``html_structure``)."""

    def __init__(self, module: ModuleType) -> None:
        self.fingerprint: Callable[[bytes, int, int], int | None] = module.html_fingerprint
        self._features: Callable[[bytes, int], list[bytes] | None] = module.html_features

    def feature_list(self, data: bytes, max_tokens: int) -> list[bytes] | None:
        """The page's features in order (for tests), or None when Python must do it."""
        return self._features(data, max_tokens)
