"""Why two documents are (not) near-duplicates: a SimHash distance, explained.

``explain_pair(a, b)`` takes the ``DocumentFeatures`` of two documents (same pipeline)
and tells:

- how many distinct features each has, how many are shared, the cosine similarity of
  the two weighted feature vectors and the distance SimHash expects from it: each bit
  differs with probability angle/pi, so the expected distance is ``64 * angle / pi``
  (with a 90% range from the binomial law), beside the actual distance;
- per bit, both documents' vote totals (``2 * S_i - W``, the bit's margin) and their
  strength (margin over its spread); the differing bits, and the fragile ones (a close
  vote, |strength| < ``FRAGILE``, in either document);
- for each differing bit, the features found in one document only that pushed it most
  towards that document's value, with their text and spans; and how much of the gap
  came from features unique to either side versus shared ones with other counts.

``unique_spans`` gives the merged byte and character ranges of every feature
occurrence absent from the other document: what to highlight in a side-by-side diff.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ditto_tui.core.explain.features import DocumentFeatures, bit_matrix

__all__ = [
    "FRAGILE",
    "BitExplanation",
    "Evidence",
    "PairExplanation",
    "binomial_range",
    "explain_pair",
    "unique_spans",
]

#: A vote whose |strength| (margin over its spread) is below this is fragile: on random
#: feature hashes about one bit in five; a few edited features can flip it.
FRAGILE = 0.25


@dataclass(frozen=True)
class Evidence:
    """A feature present in one document only that pushed a differing bit its way.

    ``side`` is ``"a"`` or ``"b"``; ``weight`` its occurrence count there (each occurrence
    moves the bit's vote by 1); ``text`` the shingle; ``byte_span``/``char_span`` its
    first occurrence in the original document.
    """

    side: str
    feature: int
    weight: int
    text: str
    byte_span: tuple[int, int]
    char_span: tuple[int, int]


@dataclass(frozen=True)
class BitExplanation:
    """One differing bit: each side's value and margin, and the evidence for the gap.

    ``push_a`` is the vote moved towards A's value by features only A has (one per
    occurrence), ``push_b`` towards B's value by features only B has, ``push_shared``
    towards A's value by features both have with different counts; their sum is the
    gap ``d * (margin_a - margin_b)`` with d = +1 when A's bit is 1, else -1. ``evidence`` holds the
    strongest unique features of both sides, strongest first.
    """

    bit: int
    value_a: int
    value_b: int
    margin_a: int
    margin_b: int
    strength_a: float
    strength_b: float
    fragile: bool
    push_a: int
    push_b: int
    push_shared: int
    evidence: tuple[Evidence, ...]


@dataclass(frozen=True)
class PairExplanation:
    """The explanation of one pair of documents (see the module docstring)."""

    pipeline: str
    fingerprint_a: int
    fingerprint_b: int
    features_a: int
    features_b: int
    total_a: int
    total_b: int
    shared: int
    cosine: float
    predicted_distance: float
    predicted_range: tuple[int, int]
    distance: int
    votes_a: tuple[int, ...]
    votes_b: tuple[int, ...]
    strength_a: tuple[float, ...]
    strength_b: tuple[float, ...]
    differing_bits: tuple[int, ...]
    fragile_bits: tuple[int, ...]
    bits: tuple[BitExplanation, ...]

    @property
    def verdict(self) -> str:
        """One line: is the distance what the shared content predicts, lucky or unlucky?"""
        low, high = self.predicted_range
        if self.distance < low:
            return "lucky: fewer bits differ than the shared content predicts"
        if self.distance > high:
            return "unlucky: more bits differ than the shared content predicts"
        return "as expected from the shared content"

    def to_json(self) -> dict[str, object]:
        """A JSON-ready dict (fingerprints as 16 hex digits)."""
        return {
            "pipeline": self.pipeline,
            "a": {"fp": f"{self.fingerprint_a:016x}", "features": self.features_a,
                  "weight": self.total_a, "votes": list(self.votes_a)},
            "b": {"fp": f"{self.fingerprint_b:016x}", "features": self.features_b,
                  "weight": self.total_b, "votes": list(self.votes_b)},
            "shared_features": self.shared,
            "cosine": round(self.cosine, 6),
            "predicted_distance": round(self.predicted_distance, 2),
            "predicted_range": list(self.predicted_range),
            "distance": self.distance,
            "verdict": self.verdict,
            "differing_bits": list(self.differing_bits),
            "fragile_bits": list(self.fragile_bits),
            "bits": [
                {
                    "bit": b.bit, "a": b.value_a, "b": b.value_b,
                    "margin_a": b.margin_a, "margin_b": b.margin_b,
                    "strength_a": round(b.strength_a, 3), "strength_b": round(b.strength_b, 3),
                    "fragile": b.fragile,
                    "push_a": b.push_a, "push_b": b.push_b, "push_shared": b.push_shared,
                    "evidence": [
                        {"side": e.side, "text": e.text, "weight": e.weight,
                         "bytes": list(e.byte_span), "chars": list(e.char_span)}
                        for e in b.evidence
                    ],
                }
                for b in self.bits
            ],
        }


def binomial_range(p: float, n: int = 64, mass: float = 0.90) -> tuple[int, int]:
    """The central ``mass`` range ``[low, high]`` of Binomial(n, p)."""
    p = min(max(p, 0.0), 1.0)
    pmf = [math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]
    tail = (1 - mass) / 2
    cdf = 0.0
    low = 0
    for k in range(n + 1):
        cdf += pmf[k]
        if cdf > tail:
            low = k
            break
    cdf = 0.0
    high = n
    for k in range(n, -1, -1):
        cdf += pmf[k]
        if cdf > tail:
            high = k
            break
    return low, high


def explain_pair(a: DocumentFeatures, b: DocumentFeatures, *, top: int = 3) -> PairExplanation:
    """Explain the distance between two documents' fingerprints (same pipeline).

    ``top`` features per side are kept as evidence for each differing bit. Raises
    ``ValueError`` when the pipelines differ.
    """
    if a.pipeline != b.pipeline:
        raise ValueError(f"different pipelines: {a.pipeline} and {b.pipeline}")
    _, ia, ib = np.intersect1d(a.hashes, b.hashes, assume_unique=True, return_indices=True)
    wa, wb = a.weights.astype(np.float64), b.weights.astype(np.float64)
    norm = math.sqrt(float(wa @ wa)) * math.sqrt(float(wb @ wb))
    cosine = float(wa[ia] @ wb[ib]) / norm if norm else (1.0 if a.fingerprint == b.fingerprint else 0.0)
    cosine = min(max(cosine, -1.0), 1.0)
    angle = math.acos(cosine) / math.pi
    xor = int(a.fingerprint) ^ int(b.fingerprint)
    differing = tuple(i for i in range(64) if xor >> i & 1)
    sa, sb = a.strength, b.strength
    fragile_all = (np.abs(sa) < FRAGILE) | (np.abs(sb) < FRAGILE)
    fragile = tuple(i for i in differing if fragile_all[i])
    bits = _bit_explanations(a, b, ia, ib, differing, fragile_all, top) if differing else ()
    return PairExplanation(
        pipeline=a.pipeline,
        fingerprint_a=int(a.fingerprint),
        fingerprint_b=int(b.fingerprint),
        features_a=len(a.hashes),
        features_b=len(b.hashes),
        total_a=a.total,
        total_b=b.total,
        shared=len(ia),
        cosine=cosine,
        predicted_distance=64 * angle,
        predicted_range=binomial_range(angle),
        distance=len(differing),
        votes_a=tuple(a.votes.tolist()),
        votes_b=tuple(b.votes.tolist()),
        strength_a=tuple(float(x) for x in sa),
        strength_b=tuple(float(x) for x in sb),
        differing_bits=differing,
        fragile_bits=fragile,
        bits=bits,
    )


def _signs(hashes: np.ndarray, columns: list[int]) -> np.ndarray:
    """(n, len(columns)) int8: +1 where the hash has the bit set, -1 where not."""
    return bit_matrix(hashes)[:, columns].astype(np.int8) * 2 - 1


def _bit_explanations(
    a: DocumentFeatures,
    b: DocumentFeatures,
    ia: np.ndarray,
    ib: np.ndarray,
    differing: tuple[int, ...],
    fragile_all: np.ndarray,
    top: int,
) -> tuple[BitExplanation, ...]:
    cols = list(differing)
    # direction[j] = +1 when A's value for bit cols[j] is 1 (a set bit pushes towards A)
    direction = np.array([1 if int(a.fingerprint) >> i & 1 else -1 for i in cols], dtype=np.int64)
    only_a = np.ones(len(a.hashes), dtype=bool)
    only_a[ia] = False
    only_b = np.ones(len(b.hashes), dtype=bool)
    only_b[ib] = False
    # an occurrence moves its document's vote by +1 (bit set) or -1
    push_a_all = (a.weights[only_a]) @ _signs(a.hashes[only_a], cols).astype(np.int64) * direction
    push_b_all = -(b.weights[only_b]) @ _signs(b.hashes[only_b], cols).astype(np.int64) * direction
    diff_w = a.weights[ia] - b.weights[ib]
    changed = diff_w != 0
    push_shared = (diff_w[changed]) @ _signs(a.hashes[ia][changed], cols).astype(np.int64) * direction
    ev_a = _evidence(a, only_a, cols, direction, top, "a")
    ev_b = _evidence(b, only_b, cols, -direction, top, "b")
    sa, sb = a.strength, b.strength
    return tuple(
        BitExplanation(
            bit=i,
            value_a=int(a.fingerprint) >> i & 1,
            value_b=int(b.fingerprint) >> i & 1,
            margin_a=int(a.votes[i]),
            margin_b=int(b.votes[i]),
            strength_a=float(sa[i]),
            strength_b=float(sb[i]),
            fragile=bool(fragile_all[i]),
            push_a=int(push_a_all[j]),
            push_b=int(push_b_all[j]),
            push_shared=int(push_shared[j]),
            evidence=tuple(sorted(ev_a[j] + ev_b[j], key=lambda e: -e.weight)),
        )
        for j, i in enumerate(cols)
    )


def _evidence(
    doc: DocumentFeatures, only: np.ndarray, cols: list[int], direction: np.ndarray, top: int, side: str
) -> list[list[Evidence]]:
    """Per differing bit, the ``top`` heaviest features only ``doc`` has that push the bit
    towards ``doc``'s value (``direction`` +1: a set bit pushes that way)."""
    picked: list[list[Evidence]] = [[] for _ in cols]
    idx = np.flatnonzero(only)
    if not len(idx) or top <= 0:
        return picked
    weights = doc.weights[idx]
    # heaviest first; among equal weights the feature seen first in the document
    first = _first_occurrences(doc.occ_hash, doc.hashes[idx])
    order = np.lexsort((first, -weights))
    idx, weights, first = idx[order], weights[order], first[order]
    towards = _signs(doc.hashes[idx], cols) * direction.astype(np.int8) > 0
    chosen = [np.flatnonzero(towards[:, j])[:top] for j in range(len(cols))]
    rows = np.unique(np.concatenate(chosen)) if chosen else np.zeros(0, np.int64)
    spans = doc.spans(first[rows])
    where = {int(r): k for k, r in enumerate(rows.tolist())}
    for j, picks in enumerate(chosen):
        for r in picks.tolist():
            k = where[r]
            picked[j].append(
                Evidence(
                    side=side,
                    feature=int(doc.hashes[idx[r]]),
                    weight=int(weights[r]),
                    text=doc.text(int(first[r])),
                    byte_span=(int(spans.byte_start[k]), int(spans.byte_end[k])),
                    char_span=(int(spans.char_start[k]), int(spans.char_end[k])),
                )
            )
    return picked


_SIEVE_BITS = 20  # a bitmap of 2**20 low-bit patterns screens values before the exact test


def _candidates(values: np.ndarray, sorted_set: np.ndarray) -> np.ndarray:
    """Positions of ``values`` that may be in ``sorted_set`` (a superset of the hits):
    one gather in a bitmap of the set's low bits, far cheaper than a binary search each."""
    if len(sorted_set) > len(values) // 8:
        return np.arange(len(values))
    mask = np.uint64((1 << _SIEVE_BITS) - 1)
    sieve = np.zeros(1 << _SIEVE_BITS, dtype=bool)
    sieve[(sorted_set & mask).astype(np.intp)] = True
    return np.flatnonzero(sieve[(values & mask).astype(np.intp)])


def _hits(values: np.ndarray, sorted_set: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(where, index)``: positions of ``values`` found in ``sorted_set`` and where there."""
    if not len(sorted_set) or not len(values):
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    where = _candidates(values, sorted_set)
    pos = np.searchsorted(sorted_set, values[where])
    np.minimum(pos, len(sorted_set) - 1, out=pos)
    found = sorted_set[pos] == values[where]
    return where[found], pos[found]


def _member(values: np.ndarray, sorted_set: np.ndarray) -> np.ndarray:
    """Boolean mask: which of ``values`` are in the sorted array ``sorted_set``."""
    out = np.zeros(len(values), dtype=bool)
    out[_hits(values, sorted_set)[0]] = True
    return out


def _first_occurrences(occ: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """Index in ``occ`` of the first occurrence of each of ``wanted`` (sorted, all present)."""
    where, pos = _hits(occ, wanted)
    first = np.full(len(wanted), len(occ), dtype=np.int64)
    np.minimum.at(first, pos, where)
    return first


def unique_spans(doc: DocumentFeatures, other: DocumentFeatures) -> tuple[np.ndarray, np.ndarray]:
    """Merged spans of ``doc`` covered by features ``other`` lacks: ``(bytes, chars)``,
    two (m, 2) int64 arrays of half-open ranges, sorted and disjoint."""
    # the distinct features ``other`` lacks (few for near-duplicates), then their occurrences
    lacking = doc.hashes[~_member(doc.hashes, other.hashes)]
    spans = doc.spans(np.flatnonzero(_member(doc.occ_hash, lacking)))
    return _merge(spans.byte_start, spans.byte_end), _merge(spans.char_start, spans.char_end)


def _merge(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Union of half-open ranges as sorted disjoint (m, 2) ranges (touching ones merge)."""
    if not len(starts):
        return np.zeros((0, 2), dtype=np.int64)
    order = np.argsort(starts, kind="stable")
    s, e = starts[order], np.maximum.accumulate(ends[order])
    new = np.ones(len(s), dtype=bool)
    new[1:] = s[1:] > e[:-1]
    heads = np.flatnonzero(new)
    tails = np.append(heads[1:] - 1, len(s) - 1)
    return np.stack((s[heads], e[tails]), axis=1).astype(np.int64)
