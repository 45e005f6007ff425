"""The structural features of an HTML page, as Go html-distance's ``genFeatures`` makes them.

Each token of the first ``MAX_TOKENS`` gives one type feature (``A:div`` start tag,
``B:div`` end tag, ``C:br`` self-closing tag, ``D:`` doctype, ``E:`` comment, ``F:``
text; the tag name only when it is an atom of x/net/html) and then one feature per
attribute (``G:a:rel:nofollow`` for class, name and rel, ``G:a:href`` otherwise).

``FeatureTable`` numbers the distinct features of the pages it has seen (0 is the empty
feature that pads the first shingles) and remembers, per token source, which features it
gives: templated pages repeat the same tags, so after the first pages of a site almost
every token is a dictionary hit and a page's features cost little more than its regular
expression pass.
"""

from __future__ import annotations

import threading
from itertools import chain

import numpy as np

from ditto_tui.core.fingerprint import datafiles
from ditto_tui.core.html.tokenizer import (
    ERROR_INFO,
    TagInfo,
    describe_key,
    scan_classes,
    token_keys,
)

__all__ = ["MAX_TOKENS", "FeatureTable", "token_features"]

#: Tokens read from the start of a page; the rest of the page is ignored (as in Go).
MAX_TOKENS = 5000

# Go's TokenType numbering (as in html_tokenizer) -> feature prefix.
_PREFIX = {1: b"F:", 2: b"A:", 3: b"B:", 4: b"C:", 5: b"E:", 6: b"D:"}
_VALUED_KEYS = frozenset((b"class", b"name", b"rel"))
_TEXT_FEATURE = b"F:"


_ATOMS = frozenset(datafiles.html_atoms())


def token_features(info: TagInfo) -> list[bytes]:
    """The features of one token ``(type, name, attrs)``, in Go's order."""
    kind, name, attrs = info
    atom = name if name in _ATOMS else b""
    result = [_PREFIX[kind] + atom]
    if attrs:
        head = b"G:" + atom + b":"
        for key, value in attrs:
            result.append(head + key + b":" + value if key in _VALUED_KEYS else head + key)
    return result


class FeatureTable:
    """Feature numbers and per-token-source features, shared by the pages of one pipeline.

    ``names[i]`` is the feature numbered i; numbers are stable for the table's life and
    a feature is numbered once (but for raw text, see ``_raw_text``). ``page_ids`` is
    safe to call from several threads. The table only grows: its owner drops it for a
    new one when ``size`` gets too large. Pickling gives an empty table.
    """

    def __init__(self) -> None:
        self.names: list[bytes] = [b""]
        self._number: dict[bytes, int] = {b"": 0}
        self._lock = threading.Lock()
        text = self._intern(_TEXT_FEATURE)
        # The text of a raw-text element gets a number of its own (for the same feature),
        # so that counting it in a page's feature numbers counts the keys that hold two
        # tokens. Equal features with two numbers hash alike: Charikar's sum is the same.
        self._raw_text = len(self.names)
        self.names.append(_TEXT_FEATURE)
        # token key -> key number k, whose feature numbers are
        # features[starts[k] : starts[k] + lengths[k]] (for a raw-text start tag followed
        # by text, two tokens' worth, the last one _raw_text). The arrays have spare room
        # and are replaced, never shrunk, when full; a key is numbered only once its
        # features are in the arrays, so readers take the arrays after the numbers.
        self._keys: dict[bytes, int] = {}
        self._arrays = (
            np.zeros(1024, np.int64),
            np.zeros(1024, np.int64),
            np.zeros(4096, np.int64),
        )
        self._key_count = self._feature_count = 0
        self._key_bytes = 0
        self._add_keys([b""], [[text]])

    def __reduce__(self) -> tuple[type[FeatureTable], tuple[()]]:
        return FeatureTable, ()

    @property
    def size(self) -> int:
        """How much the table holds: features plus remembered token sources."""
        return len(self.names) + self._key_count + self._key_bytes // 64

    def page_ids(self, data: bytes) -> np.ndarray:
        """The feature numbers (int64) of the first ``MAX_TOKENS`` tokens of ``data``."""
        keys = token_keys(data, MAX_TOKENS)
        try:
            numbers = np.fromiter(map(self._keys.__getitem__, keys), np.int64, len(keys))
        except KeyError:
            learned = self._learn(keys)
            if learned is None:
                return self._scanned_ids(data)
            keys = learned
            numbers = np.fromiter(map(self._keys.__getitem__, keys), np.int64, len(keys))
        if not keys:
            return np.zeros(0, np.int64)
        starts, lengths, features = self._arrays
        sizes = lengths[numbers]
        ends = np.cumsum(sizes)
        flat = features[np.arange(ends[-1]) + np.repeat(starts[numbers] - (ends - sizes), sizes)]
        # Tokens: one per key, two for a key holding raw text; never more than features.
        if flat.size > MAX_TOKENS:
            raw_texts = int(np.count_nonzero(flat == self._raw_text))
            if len(keys) + raw_texts > MAX_TOKENS:
                tokens = np.cumsum(1 + (features[starts[numbers] + sizes - 1] == self._raw_text))
                last = int(np.searchsorted(tokens, MAX_TOKENS))  # the key of the last token
                # The cut may fall between a raw-text tag and its text.
                flat = flat[: int(ends[last]) - int(tokens[last] > MAX_TOKENS)]
        kept: np.ndarray = flat
        return kept

    def _intern(self, feature: bytes) -> int:
        i = self._number.get(feature)
        if i is None:
            i = self._number[feature] = len(self.names)
            self.names.append(feature)
        return i

    def _learn(self, keys: list[bytes]) -> list[bytes] | None:
        """Remember the features of the unknown keys; return the keys up to the stream's
        end, or None when a key needs the full tokenizer."""
        known = self._keys
        unknown = set(keys).difference(known)
        with self._lock:
            new_keys, new_ids = [], []
            for key in unknown:
                if key in known:
                    continue
                described = describe_key(key)
                if described is None:
                    return None
                info, text_follows = described
                if info is ERROR_INFO:  # the stream ends here: the last key
                    if keys[-1] != key:
                        return None
                    keys = keys[:-1]
                    continue
                ids = [self._intern(f) for f in token_features(info)]
                if text_follows:
                    ids.append(self._raw_text)
                new_keys.append(key)
                new_ids.append(ids)
            self._add_keys(new_keys, new_ids)
        return keys

    def _add_keys(self, keys: list[bytes], ids: list[list[int]]) -> None:
        """Number ``keys``, whose features are ``ids`` (with the lock held)."""
        sizes = np.fromiter(map(len, ids), np.int64, len(ids))
        k, f = self._key_count, self._feature_count
        k_end, f_end = k + len(keys), f + int(sizes.sum())
        starts, lengths, features = self._arrays
        if k_end > starts.size or f_end > features.size:
            grown = []
            for old, need in zip(self._arrays, (k_end, k_end, f_end), strict=True):
                new = np.zeros(max(2 * old.size, need), np.int64)
                new[: old.size] = old
                grown.append(new)
            starts, lengths, features = self._arrays = (grown[0], grown[1], grown[2])
        starts[k:k_end] = f + np.cumsum(sizes) - sizes
        lengths[k:k_end] = sizes
        features[f:f_end] = np.fromiter(chain.from_iterable(ids), np.int64, f_end - f)
        self._key_count, self._feature_count = k_end, f_end
        self._keys.update(zip(keys, range(k, k_end), strict=True))
        self._key_bytes += sum(map(len, keys))

    def _scanned_ids(self, data: bytes) -> np.ndarray:
        """``page_ids`` through ``scan_classes``, for pages whose keys need it."""
        classes, infos, _ends = scan_classes(data, MAX_TOKENS)
        with self._lock:
            per_class = [[self._intern(f) for f in token_features(i)] for i in infos]
        return np.fromiter(chain.from_iterable(map(per_class.__getitem__, classes)), np.int64)
