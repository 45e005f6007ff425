"""Fingerprint throughput: the in-process engine and the ``ditto-tui fingerprint`` command.

Builds (once, deterministically from a seed) a realistic mixed corpus in
``benchmarks/_work/`` or uses ``--corpus DIR``: mostly ASCII prose and code-like text,
some UTF-8 (accented European text, Cyrillic/Greek, CJK), some HTML pages; sizes are
log-uniform between 1 KB and 5 MB. Prints one figure a line as ``name value unit``
(MB = 10**6 bytes):

- ``fingerprint_1proc_mbps`` / ``fingerprint_1proc_docs_per_s``: ``Featurizer().fingerprint``
  over the files' bytes in this process (reading the files is not timed), wall time;
  ``fingerprint_1proc_cpu_mbps``: the same over CPU time (stable on a busy machine);
- ``fingerprint_worst_<case>_mbps``: CPU-time MB/s on pathological 5 MB documents
  (random bytes, endlessly nested tags, one giant word with word shingles, CJK);
- ``fingerprint_cli_mbps`` / ``fingerprint_cli_docs_per_s`` / ``fingerprint_cli_peak_rss_mb``:
  ``ditto-tui fingerprint --no-cache DIR > /dev/null`` as a subprocess, wall time, and the
  peak RSS of the largest process among the command and its workers. If the command
  fails, ``fingerprint_cli_mbps n/a`` is printed with the error.

    python benchmarks/bench_fingerprint.py            # ~300 MB corpus
    python benchmarks/bench_fingerprint.py --mb 30    # quick run
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

from ditto_tui.core import Featurizer

HERE = Path(__file__).resolve().parent
WORK = HERE / "_work"
CORPUS_VERSION = 2  # bump when the generator changes, so stale corpora are not reused
MIN_SIZE, MAX_SIZE = 1_000, 5_000_000
KINDS = (("ascii", 0.55), ("code", 0.15), ("utf8", 0.15), ("html", 0.15))

_LETTERS = "etaoinshrdlucmfwypvbgkjqxz"
_ACCENTED = "éèêàâçôûüöäßñåøœ"
_CYRILLIC = "абвгдежзийклмнопрстуфхцчшщыэюяАБВГДЕЖЗИКЛМНОПРСТУФ"
_GREEK = "αβγδεζηθικλμνξοπρστυφχψωΣΑΒΓΔΩ"
_HTML_TAGS = ("p", "div", "span", "a", "li", "td", "em", "strong", "h2", "section")


def _vocabulary(rng: random.Random, count: int, alphabet: str, weights: list[float] | None = None) -> list[str]:
    words = []
    for _ in range(count):
        length = min(1 + int(rng.expovariate(0.22)), 18)
        words.append("".join(rng.choices(alphabet, weights=weights, k=length)))
    return words


def _prose(rng: random.Random, size: int, vocab: list[str]) -> str:
    """Sentences of Zipf-ish words with capitals, punctuation, line breaks and paragraphs."""
    cumulative = list(itertools.accumulate(1 / (i + 1) for i in range(len(vocab))))
    parts: list[str] = []
    length = 0
    while length < size:
        words = rng.choices(vocab, cum_weights=cumulative, k=rng.randint(5, 25))
        words[0] = words[0].capitalize()
        sentence = " ".join(words) + rng.choice(".....?!") + rng.choice("  \n\n\n ")
        if rng.random() < 0.15:
            sentence += "\n"
        parts.append(sentence)
        length += len(sentence)
    return "".join(parts)


def _code(rng: random.Random, size: int, vocab: list[str]) -> str:
    """Code-like lines: indentation, identifiers, operators, comparisons with '<' and '>'."""
    templates = (
        "{i}if ({a} < {b} && {c} > 0) {{\n",
        "{i}{a}_{b} = {c}({a}, {b}) + 1;\n",
        "{i}for (int {a} = 0; {a} < {b}.size(); ++{a}) {{\n",
        "{i}std::vector<{a}> {b} = {c}<int>();\n",
        "{i}// {a} {b} {c}: see {a}.{b}\n",
        "{i}return {a} -> {b};\n",
        "{i}}}\n",
        "\n",
    )
    parts: list[str] = []
    length = 0
    while length < size:
        indent = " " * (4 * rng.randint(0, 4))
        a, b, c = rng.choices(vocab[:400], k=3)
        line = rng.choice(templates).format(i=indent, a=a, b=b, c=c)
        parts.append(line)
        length += len(line)
    return "".join(parts)


def _cjk(rng: random.Random, size: int) -> str:
    chars = [chr(rng.randint(0x4E00, 0x4FFF)) for _ in range(800)] + list("、。「」のはをにがとで")
    parts: list[str] = []
    length = 0
    while length < size:
        sentence = "".join(rng.choices(chars, k=rng.randint(8, 40))) + "。"
        if rng.random() < 0.2:
            sentence += "\n"
        parts.append(sentence)
        length += 3 * len(sentence)
    return "".join(parts)


def _html(rng: random.Random, size: int, body_text: str) -> str:
    """A page: head with style and script, then nested elements with attributes around text."""
    head = (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<title>Report</title><style>body { margin: 0 } .x > p { color: #333 }</style>"
        "<script>if (a < b) { run(); }</script></head>\n<body>\n"
    )
    out = [head]
    pos = 0
    while pos < len(body_text):
        chunk = rng.randint(20, 200)
        tag = rng.choice(_HTML_TAGS)
        attrs = f' class="c{rng.randint(0, 99)}"' if rng.random() < 0.6 else ""
        out.append(f"<{tag}{attrs}>{body_text[pos:pos + chunk]}</{tag}>")
        if rng.random() < 0.3:
            out.append("\n<br/>\n")
        pos += chunk
    out.append("\n<!-- end -->\n</body></html>\n")
    return "".join(out)[: max(size, len(head))]


def _document(rng: random.Random, kind: str, size: int, vocabs: dict[str, list[str]]) -> bytes:
    if kind == "ascii":
        return _prose(rng, size, vocabs["en"]).encode()[:size]
    if kind == "code":
        return _code(rng, size, vocabs["en"]).encode()[:size]
    if kind == "utf8":
        flavour = rng.random()
        if flavour < 0.5:
            text = _prose(rng, size, vocabs["fr"])
        elif flavour < 0.8:
            text = _prose(rng, size // 2, vocabs["ru"])
        else:
            text = _cjk(rng, size)
        return text.encode()[:size]  # a cut may split a code point: a realistic stray byte
    body = _prose(rng, size, vocabs["fr" if rng.random() < 0.3 else "en"])
    return _html(rng, size, body).encode()[:size]


def build_corpus(folder: Path, megabytes: float, seed: int) -> None:
    """Write the corpus into ``folder`` (deterministic for a given size and seed)."""
    rng = random.Random(seed)
    vocabs = {
        "en": _vocabulary(rng, 5000, _LETTERS, [26 - i for i in range(26)]),
        "fr": _vocabulary(rng, 5000, _LETTERS * 12 + _ACCENTED),  # ~5% accented letters
        "ru": _vocabulary(rng, 3000, _CYRILLIC + _GREEK),
    }
    folder.mkdir(parents=True, exist_ok=True)
    budget = int(megabytes * 1e6)
    written = 0
    index = 0
    while written < budget:
        size = min(int(MIN_SIZE * (MAX_SIZE / MIN_SIZE) ** rng.random()), max(budget - written, MIN_SIZE))
        kind = rng.choices([k for k, _ in KINDS], weights=[w for _, w in KINDS])[0]
        data = _document(rng, kind, size, vocabs)
        suffix = ".html" if kind == "html" else ".txt"
        sub = folder / f"d{index % 16:02d}"
        sub.mkdir(exist_ok=True)
        (sub / f"{index:05d}-{kind}{suffix}").write_bytes(data)
        written += len(data)
        index += 1


def corpus_folder(megabytes: float, seed: int) -> Path:
    """The generated corpus for (size, seed), built on first use and reused afterwards."""
    folder = WORK / f"corpus-v{CORPUS_VERSION}-{megabytes:g}mb-seed{seed}"
    done = WORK / f"{folder.name}.complete"
    if not done.exists():
        shutil.rmtree(folder, ignore_errors=True)
        build_corpus(folder, megabytes, seed)
        done.write_text(json.dumps({"mb": megabytes, "seed": seed}))
    return folder


def bench_in_process(files: list[Path]) -> tuple[float, float, float]:
    """(MB/s, docs/s, MB/s of CPU time) of Featurizer().fingerprint, file reading excluded.

    The CPU-time figure is the one to compare between runs on a busy machine.
    """
    featurizer = Featurizer()
    elapsed = cpu = 0.0
    total = 0
    for path in files:
        data = path.read_bytes()
        start, start_cpu = time.perf_counter(), time.process_time()
        featurizer.fingerprint(data)
        elapsed += time.perf_counter() - start
        cpu += time.process_time() - start_cpu
        total += len(data)
    return total / elapsed / 1e6, len(files) / elapsed, total / cpu / 1e6


def worst_cases(size: int = 5_000_000) -> dict[str, tuple[Featurizer, bytes]]:
    """Pathological 5 MB documents: binary noise, tags nested without end, one giant word."""
    rng = random.Random(7)
    return {
        "binary": (Featurizer(), rng.randbytes(size)),
        "nested_tags": (Featurizer(), b"<a <b " * (size // 6)),
        "one_word_word1": (Featurizer(char_n=0, word_n=1), b"x" * size),
        "cjk": (Featurizer(), _cjk(rng, size).encode()[: size - size % 3]),
    }


def bench_worst_cases() -> list[str]:
    """MB/s (CPU time) of each pathological document, so the worst case is measured."""
    lines = []
    for name, (featurizer, data) in worst_cases().items():
        start = time.process_time()
        featurizer.fingerprint(data)
        lines.append(f"fingerprint_worst_{name}_mbps {len(data) / (time.process_time() - start) / 1e6:.1f} MB/s")
    return lines


def bench_cli(folder: Path, total_bytes: int, docs: int) -> list[str]:
    """Figures for ``ditto-tui fingerprint --no-cache`` over the folder, or an n/a line."""
    script = shutil.which("ditto-tui") or str(Path(sys.executable).with_name("ditto-tui"))
    start = time.perf_counter()
    try:
        run = subprocess.run([script, "fingerprint", "--no-cache", str(folder)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    except OSError as exc:
        return [f"fingerprint_cli_mbps n/a ({exc})"]
    elapsed = time.perf_counter() - start
    if run.returncode != 0:
        error = run.stderr.decode(errors="replace").strip().splitlines()
        return [f"fingerprint_cli_mbps n/a (exit {run.returncode}: {error[-1] if error else 'no message'})"]
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # largest reaped process
    return [
        f"fingerprint_cli_mbps {total_bytes / elapsed / 1e6:.1f} MB/s",
        f"fingerprint_cli_docs_per_s {docs / elapsed:.1f} docs/s",
        f"fingerprint_cli_peak_rss_mb {peak_kib / 1024:.1f} MB",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, help="use this folder instead of a generated corpus")
    parser.add_argument("--mb", type=float, default=300, help="size of the generated corpus (default 300)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-cli", action="store_true", help="skip the command-line figures")
    args = parser.parse_args(argv)
    folder = args.corpus or corpus_folder(args.mb, args.seed)
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    total_bytes = sum(p.stat().st_size for p in files)
    print(f"corpus_docs {len(files)} docs")
    print(f"corpus_size {total_bytes / 1e6:.1f} MB")
    mbps, docs_per_s, cpu_mbps = bench_in_process(files)
    print(f"fingerprint_1proc_mbps {mbps:.1f} MB/s")
    print(f"fingerprint_1proc_docs_per_s {docs_per_s:.1f} docs/s")
    print(f"fingerprint_1proc_cpu_mbps {cpu_mbps:.1f} MB/s")
    for line in bench_worst_cases():
        print(line)
    if not args.no_cli:
        for line in bench_cli(folder, total_bytes, len(files)):
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
