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

- ``fingerprint_1proc_ascii_mbps`` / ``fingerprint_1proc_nonascii_mbps``: the in-process
  figure over the ASCII (prose, code) and the UTF-8 (accented, Cyrillic/Greek, CJK) files
  only (the median of three passes), with the compiled engine and the best instruction set
  this CPU runs (``_avx2`` / ``_portable`` twins: the compiled kernels of that instruction
  set; ``_numpy`` twins: the numpy engine, for comparison);
- ``fingerprint_cli_small_files_docs_per_s``: ``ditto-tui fingerprint --no-cache`` over
  20,000 files of 1-4 KB, whole process, wall time;
- ``fingerprint_cli_mbox_mbps``: the same over one mbox of 20,000 messages (headers and
  bodies of realistic sizes, ~2.9 KB a message);
- ``fingerprint_cli_one_file_s``: the command on one small file (median of 5, warm compile
  cache: the start-up cost);
- ``fingerprint_cli_fixed_cpu_s``: CPU seconds of the command on one small file with the
  compiled engine (``DITTO_TUI_KERNEL=compiled``): the fixed cost of a process that
  fingerprints (start-up, imports); ``fingerprint_cli_fixed_numpy_cpu_s`` the same with
  the numpy engine. (The first run on a machine, from a built wheel: ``bench_install.py``.)

Each command figure has a CPU-time twin (user + system of the command and its workers:
``_docs_per_cpu_s``, ``_cpu_mbps``, ``_cpu_s``), the one to compare on a busy machine.

The peak RSS is the largest over every command run, each started by a small launcher
process: Linux counts a new process's peak RSS from the one that started it, and this
benchmark holds a few hundred MB by then. The engine is the one the command would use
(``DITTO_TUI_KERNEL`` unset: the compiled engine when it is installed).

    python benchmarks/bench_fingerprint.py            # ~300 MB corpus
    python benchmarks/bench_fingerprint.py --mb 30    # quick run
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ditto_tui.core import Featurizer
from ditto_tui.core.fingerprint import engine

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


def bench_kinds(files: list[Path]) -> list[str]:
    """In-process MB/s (wall, reading excluded) over the ASCII and the UTF-8 files, per kernel:
    the median of three passes."""
    groups = {
        "ascii": [p for p in files if p.stem.endswith(("-ascii", "-code"))],
        "nonascii": [p for p in files if p.stem.endswith("-utf8")],
    }
    lines = []
    isas = engine.isas()
    if not isas:
        lines.append(f"fingerprint_1proc_ascii_mbps n/a ({engine.describe()})")
    for name in (*isas, "numpy"):
        if name == "numpy":
            engine.select("numpy")
        else:
            engine.select("compiled")
            engine.use_isa(name)
        suffix = "" if name == isas[0] else f"_{name}"
        for label, group in groups.items():
            if group:  # the median of three passes: one stall of a shared machine moves one
                passes = [bench_in_process(group) for _ in range(3)]
                mbps = statistics.median(p[0] for p in passes)
                cpu_mbps = statistics.median(p[2] for p in passes)
                lines.append(f"fingerprint_1proc_{label}{suffix}_mbps {mbps:.1f} MB/s")
                lines.append(f"fingerprint_1proc_{label}{suffix}_cpu_mbps {cpu_mbps:.1f} MB/s")
    engine.select(None)
    if isas:
        engine.use_isa(isas[0])
    return lines


def _command() -> str:
    return shutil.which("ditto-tui") or str(Path(sys.executable).with_name("ditto-tui"))


_PEAK_RSS_KIB = [0]  # the largest peak RSS of a command run (with its workers)
_CPU_S: list[float] = []  # CPU seconds (user + system, workers included) of each run

# Starts the command and reports its wall time and what Linux counted for it (JSON, to the
# file named first). A small process of its own starts it: Linux gives a process the peak
# RSS of the one that started it (what its memory held when it forked), so a command
# started by this benchmark, which holds a few hundred MB by then, would report that.
_LAUNCHER = """
import json, os, subprocess, sys, time
start = time.perf_counter()
proc = subprocess.Popen(sys.argv[2:])
_pid, status, usage = os.wait4(proc.pid, 0)
with open(sys.argv[1], "w") as report:
    json.dump({"seconds": time.perf_counter() - start, "status": os.waitstatus_to_exitcode(status),
               "peak_kib": usage.ru_maxrss, "cpu_s": usage.ru_utime + usage.ru_stime}, report)
"""


def _run_cli(args: list[str], env: dict[str, str] | None = None, lines: int | None = None) -> float:
    """Wall seconds of one ``ditto-tui`` run; raises on failure or on a wrong line count."""
    # An installed program runs from compiled bytecode: a PYTHONDONTWRITEBYTECODE left in
    # the environment would compile every module from source in every run (~0.1 s).
    env = {k: v for k, v in (os.environ if env is None else env).items()
           if k != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "run.json"
        subprocess.run([sys.executable, "-c", _LAUNCHER, str(report), _command(), *args],
                       stdout=out, stderr=err, env=env, check=True)
        run = json.loads(report.read_text())
        _PEAK_RSS_KIB[0] = max(_PEAK_RSS_KIB[0], run["peak_kib"])
        _CPU_S.append(run["cpu_s"])
        if run["status"] != 0:
            err.seek(0)
            error = err.read().decode(errors="replace").strip().splitlines()
            raise RuntimeError(f"exit {run['status']}: {error[-1] if error else 'no message'}")
        out.seek(0)
        got = sum(1 for _ in out)
    if lines is not None and got != lines:
        raise RuntimeError(f"{got} fingerprints, expected {lines}: {args}")
    return float(run["seconds"])


def small_files_folder(count: int = 20_000, seed: int = 2) -> Path:
    """``count`` text files of 1-4 KB in 100 folders (built once in benchmarks/_work)."""
    folder = WORK / f"small-v1-{count}-seed{seed}"
    done = WORK / f"{folder.name}.complete"
    if not done.exists():
        shutil.rmtree(folder, ignore_errors=True)
        rng = random.Random(seed)
        vocab = _vocabulary(rng, 5000, _LETTERS, [26 - i for i in range(26)])
        for i in range(count):
            sub = folder / f"d{i % 100:02d}"
            sub.mkdir(parents=True, exist_ok=True)
            size = rng.randint(1000, 4000)
            (sub / f"{i:05d}.txt").write_bytes(_prose(rng, size, vocab).encode()[:size])
        done.write_text("ok")
    return folder


def mbox_file(count: int = 20_000, seed: int = 3) -> Path:
    """One mbox of ``count`` messages (~2.7 KB each, 20,000 of them stay below the default
    64 MiB size limit): 0.5-1 KB of headers and a log-uniform 0.3-6 KB body."""
    path = WORK / f"mail-v2-{count}-seed{seed}.mbox"
    if not path.exists():
        rng = random.Random(seed)
        vocab = _vocabulary(rng, 5000, _LETTERS, [26 - i for i in range(26)])
        WORK.mkdir(parents=True, exist_ok=True)
        with open(path.with_suffix(".tmp"), "wb") as out:
            for i in range(count):
                hops = "".join(
                    f"Received: from mx{h}.example.net (mx{h}.example.net [192.0.2.{h}])\n"
                    f"\tby relay.example.org with ESMTPS id {rng.getrandbits(64):x}\n"
                    f"\tfor <list@example.org>; Mon, 5 Jan 2026 10:{h:02d}:00 +0000\n"
                    for h in range(rng.randint(2, 6))
                )
                body = _prose(rng, int(300 * 20 ** rng.random()), vocab)
                body = "\n".join(">" + line[1:] if line.startswith("From ") else line
                                  for line in body.split("\n"))
                out.write(
                    f"From sender{i}@example.org Mon Jan  5 10:00:00 2026\n{hops}"
                    f"Message-ID: <{rng.getrandbits(96):x}@example.org>\n"
                    f"From: Sender {i} <sender{i}@example.org>\nTo: list@example.org\n"
                    f"Subject: Re: note {rng.randint(0, 999)}\n"
                    f"Date: Mon, 5 Jan 2026 10:00:00 +0000\nContent-Type: text/plain\n\n"
                    f"{body}\n\n".encode()
                )
        path.with_suffix(".tmp").rename(path)
    return path


def bench_cli_cases() -> list[str]:
    """Small files, one mbox, one file: whole-process figures."""
    lines = []
    small = small_files_folder()
    docs = sum(1 for p in small.rglob("*") if p.is_file())
    seconds = statistics.median(
        _run_cli(["fingerprint", "--no-cache", str(small)], lines=docs) for _ in range(3)
    )
    lines.append(f"fingerprint_cli_small_files_docs_per_s {docs / seconds:.0f} docs/s")
    cpu = statistics.median(_CPU_S[-3:])
    lines.append(f"fingerprint_cli_small_files_docs_per_cpu_s {docs / cpu:.0f} docs/s")
    mbox = mbox_file()
    seconds = statistics.median(
        _run_cli(["fingerprint", "--no-cache", str(mbox)], lines=20_000) for _ in range(3)
    )
    lines.append(f"fingerprint_cli_mbox_mbps {mbox.stat().st_size / seconds / 1e6:.1f} MB/s")
    cpu = statistics.median(_CPU_S[-3:])
    lines.append(f"fingerprint_cli_mbox_cpu_mbps {mbox.stat().st_size / cpu / 1e6:.1f} MB/s")
    one = next(iter(sorted(small.rglob("*.txt"))))
    seconds = statistics.median(
        _run_cli(["fingerprint", "--no-cache", str(one)], lines=1) for _ in range(5)
    )
    lines.append(f"fingerprint_cli_one_file_s {seconds:.3f} s")
    lines.append(f"fingerprint_cli_one_file_cpu_s {statistics.median(_CPU_S[-5:]):.3f} s")
    for name, label in (("compiled", ""), ("numpy", "_numpy")):
        env = dict(os.environ, DITTO_TUI_KERNEL=name)
        for _ in range(3):
            _run_cli(["fingerprint", "--no-cache", str(one)], env, lines=1)
        lines.append(f"fingerprint_cli_fixed{label}_cpu_s {statistics.median(_CPU_S[-3:]):.3f} s")
    return lines


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
    try:
        elapsed = _run_cli(["fingerprint", "--no-cache", str(folder)])
    except (OSError, RuntimeError, subprocess.CalledProcessError) as exc:
        return [f"fingerprint_cli_mbps n/a ({exc})"]
    return [
        f"fingerprint_cli_mbps {total_bytes / elapsed / 1e6:.1f} MB/s",
        f"fingerprint_cli_docs_per_s {docs / elapsed:.1f} docs/s",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, help="use this folder instead of a generated corpus")
    parser.add_argument("--mb", type=float, default=300, help="size of the generated corpus (default 300)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-cli", action="store_true", help="skip the command-line figures")
    parser.add_argument("--only-cli-cases", action="store_true",
                        help="only the small-files, mbox and one-file figures")
    args = parser.parse_args(argv)
    if args.only_cli_cases:
        for line in bench_cli_cases():
            print(line)
        print_peak_rss()
        return 0
    folder = args.corpus or corpus_folder(args.mb, args.seed)
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    total_bytes = sum(p.stat().st_size for p in files)
    print(f"corpus_docs {len(files)} docs")
    print(f"corpus_size {total_bytes / 1e6:.1f} MB")
    print(f"engine {engine.describe()}")
    mbps, docs_per_s, cpu_mbps = bench_in_process(files)
    print(f"fingerprint_1proc_mbps {mbps:.1f} MB/s")
    print(f"fingerprint_1proc_docs_per_s {docs_per_s:.1f} docs/s")
    print(f"fingerprint_1proc_cpu_mbps {cpu_mbps:.1f} MB/s")
    for line in bench_kinds(files):
        print(line)
    for line in bench_worst_cases():
        print(line)
    if not args.no_cli:
        for line in bench_cli(folder, total_bytes, len(files)) + bench_cli_cases():
            print(line)
        print_peak_rss()
    return 0


def print_peak_rss() -> None:
    """The largest peak RSS among the command runs so far (and their workers)."""
    print(f"fingerprint_cli_peak_rss_mb {_PEAK_RSS_KIB[0] / 1024:.1f} MB")


if __name__ == "__main__":
    sys.exit(main())
