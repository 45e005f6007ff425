"""Find in a 2.6 MB document (the preview's and the comparison's find bar).

Prints ``name value unit`` lines: the median of 5 searches over generated text of about
2.6 MB (60,000 lines) for a rare word, a common word and a single letter (the worst case:
every line matches many times), plus the line layout the preview does for the same text.

Run: python benchmarks/bench_find.py
"""

from __future__ import annotations

import random
import statistics
import time

from ditto_tui.core.text.display import wrap_points
from ditto_tui.core.text.find import find_in_lines

WORDS = ["the", "harbour", "tide", "boat", "chart", "port", "sync", "engine", "offline", "club", "price", "release", "version", "quay"]


def document(lines: int = 60_000, seed: int = 1) -> list[str]:
    rng = random.Random(seed)
    out = [" ".join(rng.choice(WORDS) for _ in range(rng.randrange(4, 12))) for _ in range(lines)]
    out[lines // 2] += " needle"
    return out


def median_ms(fn, runs: int = 5) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    lines = document()
    size = sum(len(line) + 1 for line in lines)
    print(f"find_document_mb {size / 1e6:.2f} MB")
    for name, query in (("rare", "needle"), ("common", "harbour"), ("letter", "e")):
        count = len(find_in_lines(lines, query))
        print(f"find_2_6mb_{name}_ms {median_ms(lambda q=query: find_in_lines(lines, q)):.1f} ms")
        print(f"find_2_6mb_{name}_matches {count} matches")

    def layout(width: int = 58) -> None:
        for line in lines:
            if len(line) > width:
                wrap_points(line, width)

    print(f"preview_layout_2_6mb_ms {median_ms(layout):.1f} ms")


if __name__ == "__main__":
    main()
