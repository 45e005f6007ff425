"""Explanations: a distance between two large documents, a chain path, the k sweep.

Prints one figure a line as ``name value unit`` (medians of ``--repeat`` runs, wall time;
a trailing comment gives the median CPU time, steadier on a shared machine):

- ``explain_1mb_first_view_ms``: both documents' features and votes plus the pair
  explanation (counts, cosine, prediction, margins, differing bits with their evidence)
  for two 1 MB ASCII documents 1% apart: what the explain panel shows first;
  ``explain_1mb_spans_ms``: then the merged spans only each document has (highlights);
- ``explain_1mb_utf8_first_view_ms``: the same for 1 MB of mixed UTF-8 text;
- ``chain_snapshot_100k_ms``: ``NearIndex.near_graph()`` (pairs and merge order) for them;
- ``chain_path_100k_ms``: the minimax path between the two ends of one chain family of
  100,000 documents (a random walk, ~70,000 hops), from that snapshot (see
  ``core/families/paths``); ``chain_path_100k_again_ms``: another path in the same family
  (its links are cached); ``chain_bridges_100k_ms``: its split points (Python DFS);
- ``k_sweep_ms``: families and documents in families for every k of an index of 100,000.

    python benchmarks/bench_explain.py
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from ditto_tui.core import Featurizer
from ditto_tui.core.explain.explanation import explain_pair, unique_spans
from ditto_tui.core.explain.features import document_features


def _words(rng: random.Random, alphabet: str, count: int) -> list[str]:
    return ["".join(rng.choices(alphabet, k=rng.randint(2, 9))) for _ in range(count)]


def _document(rng: random.Random, vocab: list[str], size: int) -> str:
    parts: list[str] = []
    n = 0
    while n < size:
        sentence = " ".join(rng.choices(vocab, k=rng.randint(6, 18))).capitalize() + ". "
        parts.append(sentence)
        n += len(sentence.encode())
        if rng.random() < 0.1:
            parts.append("\n\n")
    return "".join(parts)


def _edited(rng: random.Random, text: str, vocab: list[str], fraction: float) -> str:
    words = text.split(" ")
    for i in rng.sample(range(len(words)), int(len(words) * fraction)):
        words[i] = rng.choice(vocab)
    return " ".join(words)


def _median_ms(fn: Callable[[], object], repeat: int) -> str:
    """"<wall> ms" (median) and, in a comment, the median CPU time (steadier when shared)."""
    wall, cpu = [], []
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        fn()
        wall.append((time.perf_counter() - t) * 1000)
        cpu.append((time.process_time() - c) * 1000)
    return f"{statistics.median(wall):.1f} ms  # cpu {statistics.median(cpu):.1f} ms"


def bench_pair(name: str, a: bytes, b: bytes, repeat: int) -> None:
    pipeline = Featurizer()

    def first_view() -> tuple[object, object]:
        fa, fb = document_features(pipeline, a), document_features(pipeline, b)
        explain_pair(fa, fb)
        return fa, fb

    fa, fb = first_view()
    print(f"explain_{name}_first_view_ms {_median_ms(first_view, repeat)}")
    if name == "1mb":
        spans = _median_ms(lambda: (unique_spans(fa, fb), unique_spans(fb, fa)), repeat)  # type: ignore[arg-type]
        print(f"explain_{name}_spans_ms {spans}")


def _chain_family(rng: random.Random, n: int) -> list[int]:
    """n fingerprints on a random walk (1 to 3 bits per step): one chain family at k=3."""
    fp = rng.getrandbits(64)
    out = []
    for _ in range(n):
        for b in rng.sample(range(64), rng.randint(1, 3)):
            fp ^= 1 << b
        out.append(fp)
    return out


def bench_family(n: int, repeat: int) -> None:
    from ditto_tui.core.families.paths import chain_path, family_nodes, k_sweep, split_points
    from ditto_tui.core.index.near_index import NearIndex

    rng = random.Random(7)
    fps = _chain_family(rng, n)
    ids = [f"doc{i:06d}" for i in range(n)]
    index = NearIndex(max_k=3)
    index.add_many(ids, fps)
    print(f"chain_snapshot_100k_ms {_median_ms(index.near_graph, repeat)}")
    graph = index.near_graph()
    src, dst = graph.node_of(ids[0]), graph.node_of(ids[-1])
    size = len(family_nodes(graph, src, 3))
    path = chain_path(graph, src, dst)
    print(f"chain_family_size {size} documents  # path of {len(path.hops)} hops, max {path.bottleneck}")
    def first() -> None:
        graph._graphs.clear()  # as after a change: the family's links are gathered again
        chain_path(graph, src, dst)

    print(f"chain_path_100k_ms {_median_ms(first, repeat)}")
    print(f"chain_path_100k_again_ms {_median_ms(lambda: chain_path(graph, src, dst), repeat)}")
    nodes = family_nodes(graph, src, 3)
    print(f"chain_bridges_100k_ms {_median_ms(lambda: split_points(graph, nodes, 3), 1)}")
    print(f"k_sweep_100k_ms {_median_ms(lambda: k_sweep(graph), repeat)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--only", choices=("pair", "family"), default=None)
    args = parser.parse_args()
    if args.only != "pair":
        bench_family(100_000, args.repeat)
    if args.only == "family":
        return
    rng = random.Random(15)
    vocab = _words(rng, "abcdefghijklmnopqrstuvwxyz", 8000)
    text = _document(rng, vocab, 1_000_000)
    bench_pair("1mb", text.encode(), _edited(rng, text, vocab, 0.01).encode(), args.repeat)
    mixed = _words(rng, "abcdeéèàçøñßαβγδжзик日本語", 8000)
    utext = _document(rng, mixed, 1_000_000)
    bench_pair("1mb_utf8", utext.encode(), _edited(rng, utext, mixed, 0.01).encode(), args.repeat)


if __name__ == "__main__":
    main()
