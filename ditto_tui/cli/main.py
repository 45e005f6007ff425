"""The ``ditto-tui`` command line: fingerprint, cluster, near, compare, export, report, explore.

Thin by design: every subcommand parses its flags, asks ``corpus/`` for documents and
``core/`` for answers, and formats them. Text output is compatible with the Go ditto CLI
(``<16 hex>\\t<id>`` lines, the cluster report); ``--json`` gives JSON lines.

Exit codes: 0 success, 2 usage error, 1 any other error (one line on stderr, prefixed
``ditto-tui:``). Skipped documents are reported on stderr and change the exit code only
with ``--strict``. Writing to a closed pipe (``| head``) ends quietly.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, NoReturn, cast

import numpy as np

from ditto_tui._version import __version__
from ditto_tui.cli.argtypes import integer, non_negative, size, size_or_zero
from ditto_tui.core.display import escape_controls

PROG = "ditto-tui"
DEFAULT_K = 3
DEFAULT_MAX_K = 8
#: ditto's single-dash long flags, accepted so existing scripts keep working.
GO_STYLE_FLAGS = ("char", "word", "min", "json", "strict", "pipeline", "shingle")
SUBCOMMANDS = (
    "explore", "fingerprint", "fp", "cluster", "near", "compare", "export", "version", "spark", "open",
    "dedupe", "undo",
    "explain",
    "report",
    "engine",
    "kernel",
)


class UsageError(Exception):
    """A command line the user must fix (exit 2)."""


class CommandError(Exception):
    """A failure that is not the user's spelling (exit 1)."""


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line on stderr and exit 2."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")


# --------------------------------------------------------------------------- output


def escape_id(doc_id: str) -> bytes:
    """An id as the path's raw bytes, with what a terminal would obey escaped (``\\t``,
    ``\\n``, ``\\x1b``, C1 controls and raw 0x80-0x9F bytes as ``\\x9b``, bidi controls as
    ``\\u202e``: :func:`ditto_tui.core.display.escape_controls`, the explorer's rule too).

    A record is therefore always one line that reads as written, while every other byte
    (including invalid UTF-8 in file names) is written exactly as ditto writes it.
    """
    return escape_controls(doc_id).encode("utf-8", "surrogateescape")


#: Characters a terminal obeys that JSON leaves raw (C1 and bidi controls); written as
#: ``\\uXXXX`` escapes, which decode to the same string.
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


class Output:
    """Buffered binary writer on stdout that turns a closed pipe into a quiet exit."""

    def __init__(self, stream: IO[bytes] | None = None) -> None:
        self._stream = stream if stream is not None else sys.stdout.buffer

    def line(self, data: bytes | str) -> None:
        if isinstance(data, str):
            data = data.encode("utf-8", "surrogateescape")
        self._stream.write(data + b"\n")

    def write(self, data: bytes) -> None:
        """Raw bytes (whole lines), as they are."""
        self._stream.write(data)

    def json(self, obj: object) -> None:
        """One JSON object per line, UTF-8. A name that is not valid UTF-8 (a lone
        surrogate from surrogateescape) is written as a ``\\udcXX`` escape, which
        ``json.loads`` + ``os.fsencode`` turn back into the original bytes."""
        try:
            text = json.dumps(obj, ensure_ascii=False)
            data = _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text).encode("utf-8")
        except UnicodeEncodeError:
            data = json.dumps(obj).encode("ascii")
        self.line(data)

    def flush(self) -> None:
        self._stream.flush()


def warn(message: str) -> None:
    """One line on stderr, prefixed with the program name; control characters escaped."""
    sys.stderr.buffer.write(b"ditto-tui: " + escape_id(message) + b"\n")
    sys.stderr.flush()


# --------------------------------------------------------------------------- argv


def _translate_go_flags(argv: Sequence[str]) -> list[str]:
    """Rewrite ditto's ``-char 4`` / ``-k=3`` spellings into argparse's ``--char 4`` / ``-k 3``."""
    out: list[str] = []
    passthrough = False
    for arg in argv:
        if passthrough or arg == "--":
            passthrough = True
            out.append(arg)
            continue
        if arg.startswith("-") and not arg.startswith("--"):
            name, eq, value = arg[1:].partition("=")
            if name in GO_STYLE_FLAGS:
                out.append(f"--{name}{eq}{value}")
                continue
            if name == "k" and eq:
                out.extend(["-k", value])
                continue
        out.append(arg)
    return out


def _add_pipeline_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("fingerprint pipeline")
    g.add_argument(
        "--pipeline",
        choices=("ditto", "html"),
        default="ditto",
        help="ditto: text SimHash, bit-identical to Go ditto (default); "
        "html: HTML structure, bit-identical to html-distance",
    )
    g.add_argument("--char", type=integer, default=4, metavar="N",
                   help="character shingle length, 0 disables (ditto pipeline; default 4)")
    g.add_argument("--word", type=integer, default=0, metavar="N",
                   help="word shingle length, 0 disables (ditto pipeline; default 0)")
    g.add_argument("--shingle", type=integer, default=3, metavar="S",
                   help="token shingle size (html pipeline; default 3)")


def _add_corpus_options(p: argparse.ArgumentParser, *, cache: bool = True) -> None:
    g = p.add_argument_group("documents")
    g.add_argument("--max-size", type=size, default=64 << 20, metavar="SIZE",
                   help="skip files larger than SIZE (default 64M)")
    g.add_argument("--include-binary", action="store_true",
                   help="fingerprint binary files too (as ditto does)")
    g.add_argument("--ignore", action="append", default=[], metavar="GLOB",
                   help="ignore paths matching GLOB (gitignore syntax; repeatable); "
                   ".dittoignore files are read too")
    g.add_argument("--follow-symlinks", action="store_true",
                   help="descend symlinked folders whose target is inside the folder "
                   "(never outside it; a file met twice is counted once)")
    g.add_argument("--min-size", type=size_or_zero, default=0, metavar="SIZE",
                   help="skip files smaller than SIZE (reported as skipped)")
    g.add_argument("--skip-empty", action="store_true",
                   help="skip empty files (reported as skipped)")
    g.add_argument("--html-any", action="store_true",
                   help="html pipeline: take every file as a page (default: names ending "
                   ".html/.htm/.xhtml/.shtml, and other files whose first bytes are HTML)")
    g.add_argument("--jobs", "-j", type=non_negative, default=None, metavar="N",
                   help="worker processes (default: one per core; 1 = in-process)")
    g.add_argument("--strict", action="store_true",
                   help="exit 1 when any document was skipped")
    if cache:
        g.add_argument("--cache", metavar="DIR", default=None,
                       help="folder for the fingerprint cache databases, one per corpus "
                       "folder (default: the user cache dir; never inside the corpus)")
        g.add_argument("--no-cache", action="store_true",
                       help="do not read or write the fingerprint cache")


def _add_json(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--json", action="store_true", help=f"JSON lines, {what}")


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser (exposed for tests and documentation)."""
    parser = _Parser(
        prog=PROG,
        description="Find near-duplicate documents with SimHash (bit-identical to Go ditto), "
        "in a terminal explorer or from scripts.",
        epilog="Run 'ditto-tui PATH' to open the explorer on a folder. "
        "ditto's single-dash flags (-char 4, -k 3, -min 2) are accepted too.",
    )
    parser.add_argument("--version", action="version",
                        version=f"{PROG} {__version__} pipeline=ditto/2")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    p = sub.add_parser("explore", help="open the explorer on a folder (the default command)",
                       description="Open the interactive explorer on PATH.")
    p.add_argument("path", nargs="?", default=".", metavar="PATH",
                   help="folder to explore (default: the current directory)")
    p.add_argument("-k", type=integer, default=None, metavar="K",
                   help=f"initial Hamming distance (default: the k saved for this folder, "
                   f"else {DEFAULT_K})")
    p.add_argument("--max-k", type=integer, default=DEFAULT_MAX_K, metavar="K",
                   help=f"largest k the slider offers; the index is built for it (default {DEFAULT_MAX_K})")
    p.add_argument("--mode", choices=("chain", "star"), default=None,
                   help="grouping: chain = ditto's clusters, star = centre and members within k "
                   "(default: the grouping saved for this folder, else chain)")
    p.add_argument("--poll", action="store_true", help="poll for changes (network filesystems)")
    p.add_argument("--no-watch", action="store_true", help="do not watch the folder for changes")
    p.add_argument("--fresh", action="store_true",
                   help="start a clean review: decisions, ignore list and saved view set aside "
                   "(kept beside the cache; action journals stay, so undo still works)")
    _add_pipeline_options(p)
    _add_corpus_options(p)

    p = sub.add_parser("fingerprint", aliases=["fp"], help="print one fingerprint per document",
                       description="Print '<16 hex>\\t<id>' for every document (ditto's format). "
                       "With no PATH, standard input is one document with id 'stdin'.")
    p.add_argument("paths", nargs="*", metavar="PATH", help="files or folders")
    _add_json(p, "one {id, fp, pipeline} object per document")
    _add_pipeline_options(p)
    _add_corpus_options(p)

    p = sub.add_parser("cluster", help="print near-duplicate families (ditto's report)",
                       description="Group documents whose fingerprints are within K bits "
                       "(connected components, as ditto does; --mode star for centred families).")
    p.add_argument("paths", nargs="+", metavar="PATH", help="files or folders")
    p.add_argument("-k", type=integer, default=DEFAULT_K, metavar="K",
                   help=f"maximum Hamming distance (default {DEFAULT_K})")
    how = p.add_mutually_exclusive_group()
    how.add_argument("--sweep", action="store_true",
                     help="instead, for k = 0..K: families (>= 2 documents), documents in them, "
                     "the largest family, the largest diameter and the families too wide for k")
    how.add_argument("--tree", action="store_true",
                     help="instead, each chain family at K as a tree of its sub-families down "
                     "to k = 0 (size, diameter, representative; --json: nested objects)")
    p.add_argument("--min", type=integer, default=2, metavar="M",
                   help="smallest family to print (default 2; 1 includes singletons)")
    p.add_argument("--mode", choices=("chain", "star"), default="chain",
                   help="chain = ditto's single linkage (default), star = every member within k of a centre")
    _add_json(p, "one object per cluster")
    _add_pipeline_options(p)
    _add_corpus_options(p)

    p = sub.add_parser("near", help="documents within k bits of a target",
                       description="List documents within K bits of TARGET (a file or a "
                       "16-hex fingerprint), sorted by distance then id.")
    p.add_argument("target", metavar="TARGET", help="a file, or a fingerprint as 16 hex digits")
    p.add_argument("paths", nargs="+", metavar="PATH", help="files or folders to search")
    p.add_argument("-k", type=integer, default=DEFAULT_K, metavar="K",
                   help=f"maximum Hamming distance (default {DEFAULT_K})")
    _add_json(p, "one {id, fp, distance, similarity} object per match")
    _add_pipeline_options(p)
    _add_corpus_options(p)

    p = sub.add_parser("compare", help="distance and bit-diff of two documents",
                       description="Compare two documents (files, URLs or 16-hex fingerprints): "
                       "distance, similarity, both fingerprints and the differing bits.")
    p.add_argument("a", metavar="A")
    p.add_argument("b", metavar="B")
    p.add_argument("--timeout", type=float, default=15.0, metavar="SECONDS",
                   help="network timeout for URLs (default 15)")
    _add_json(p, "a single object")
    _add_pipeline_options(p)

    p = sub.add_parser("export", help="write families to CSV or JSON lines",
                       description="Write every document with its family at distance K "
                       "to CSV or JSON lines.")
    p.add_argument("paths", nargs="+", metavar="PATH", help="files or folders")
    p.add_argument("-k", type=integer, default=DEFAULT_K, metavar="K",
                   help=f"maximum Hamming distance (default {DEFAULT_K})")
    p.add_argument("--min", type=integer, default=1, metavar="M",
                   help="smallest family to write (default 1: every document)")
    p.add_argument("--mode", choices=("chain", "star"), default="chain")
    p.add_argument("--format", choices=("csv", "jsonl"), default="csv")
    p.add_argument("-o", "--output", metavar="FILE", default="-",
                   help="destination file (default: standard output)")
    p.add_argument("--decisions", action="store_true",
                   help="add each document's review decision and its family's reference "
                   "(one folder PATH)")
    _add_pipeline_options(p)
    _add_corpus_options(p)

    p = sub.add_parser("report", help="write families with their diffs to one HTML file",
                       description="Write a self-contained HTML report of the near-duplicate "
                       "families of PATH: corpus summary, a chart of families at each k, the "
                       "family list, and per family its members with bit grids and folded "
                       "side-by-side diffs against the representative.")
    p.add_argument("path", metavar="PATH", help="the corpus folder (or one file)")
    p.add_argument("-k", type=integer, default=DEFAULT_K, metavar="K",
                   help=f"maximum Hamming distance (default {DEFAULT_K})")
    p.add_argument("--max-k", type=integer, default=DEFAULT_MAX_K, metavar="K",
                   help=f"the chart covers k = 0..max(K, this) (default {DEFAULT_MAX_K})")
    p.add_argument("--mode", choices=("chain", "star"), default="chain",
                   help="chain = ditto's single linkage (default), star = every member within k of a centre")
    p.add_argument("--min", type=integer, default=2, metavar="M",
                   help="smallest family to include (default 2)")
    p.add_argument("--filter", default="", metavar="PATTERN",
                   help="only families with a member matching PATTERN (a glob when it holds "
                   "*?[, else a case-insensitive substring), as the explorer's filter box")
    p.add_argument("-o", "--output", metavar="FILE", required=True,
                   help="the HTML file to write ('-' for standard output)")
    p.add_argument("--force", action="store_true", help="replace FILE if it exists")
    p.add_argument("--absolute-paths", action="store_true",
                   help="show absolute paths (default: relative to PATH)")
    p.add_argument("--decisions", action="store_true",
                   help="add each member's review decision (PATH must be a folder)")
    _add_pipeline_options(p)
    _add_corpus_options(p)

    sub.add_parser("version", help="print the version, pipeline identity and engine",
                   description="Print the package version, the pipeline identity and the "
                               "engine that computes fingerprints: compiled (with the "
                               "instruction set its kernels use) or numpy.")
    sub.add_parser("engine", aliases=["kernel"], help="say what computes fingerprints, and why",
                   description="Print the engine that computes fingerprints (compiled, with "
                               "the instruction set its kernels use, or numpy), the instruction "
                               "sets this CPU runs, and why numpy when it was not chosen. "
                               "DITTO_TUI_KERNEL chooses: compiled, numpy or auto (the "
                               "default: compiled when installed); DITTO_TUI_ISA forces an "
                               "instruction set.")

    from ditto_tui.scale.cli import add_open_parser, add_spark_parser

    add_spark_parser(sub)
    add_open_parser(sub)
    from ditto_tui.cli.dedupe import add_parsers as add_dedupe_parsers

    add_dedupe_parsers(sub, [_add_pipeline_options, _add_corpus_options], non_negative)

    from ditto_tui.cli.explain import add_explain_parser

    def explain_options(p: argparse.ArgumentParser) -> None:
        _add_pipeline_options(p)
        _add_corpus_options(p)

    add_explain_parser(sub, explain_options)
    return parser


# --------------------------------------------------------------------------- helpers


def _pipeline(args: argparse.Namespace):
    from ditto_tui.core import make_pipeline

    return make_pipeline(args.pipeline, char_n=args.char, word_n=args.word, shingle=args.shingle)


def _scan_options(args: argparse.Namespace):
    from ditto_tui.corpus.documents import ScanOptions

    return ScanOptions(
        max_size=args.max_size,
        include_binary=args.include_binary,
        ignore=tuple(args.ignore),
        follow_symlinks=args.follow_symlinks,
        min_size=args.min_size,
        skip_empty=args.skip_empty,
        html_any=args.html_any,
    )


@dataclass
class _Collected:
    """Documents in walk order: their ids and fingerprints (uint64)."""

    ids: list[str]
    fps: np.ndarray


class _SkipReporter:
    """Writes each skipped document to stderr and counts them for --strict."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, skipped) -> None:
        self.count += 1
        warn(f"skipped {skipped.id}: {skipped.reason}")


def _documents(args: argparse.Namespace, paths: Sequence[str], report: _SkipReporter
               ) -> Iterator[tuple[str, int]]:
    """Yield (id, fingerprint) for PATHs in ditto's walk order; skips go to ``report``."""
    from ditto_tui.corpus.documents import Skipped
    from ditto_tui.corpus.reading import over_limit
    from ditto_tui.corpus.stream import iter_fingerprints

    pipeline = _pipeline(args)
    if not paths:
        data = _read_stdin(args.max_size)
        if data is None:
            report(Skipped("stdin", "-", over_limit(args.max_size)))
            return
        yield "stdin", pipeline.fingerprint(data)
        return
    for path in paths:
        if not os.path.lexists(path):
            raise CommandError(f"{path}: no such file or directory")
    notices: list[str] = []
    cache_dir = getattr(args, "cache", None)
    use_cache = not getattr(args, "no_cache", True)
    if cache_dir is not None and use_cache:
        from ditto_tui.corpus.cache import is_inside

        for path in paths:
            if os.path.isdir(path) and is_inside(cache_dir, path):
                raise CommandError(
                    f"--cache {cache_dir}: the cache folder must not be inside the corpus "
                    f"folder {path}"
                )
    for item in iter_fingerprints(
        list(paths),
        pipeline,
        options=_scan_options(args),
        jobs=args.jobs,
        cache_dir=cache_dir,
        use_cache=use_cache,
        notices=notices,
    ):
        if isinstance(item, Skipped):
            report(item)
        else:
            yield item
        while notices:
            warn(notices.pop(0))


def _read_stdin(limit: int) -> bytes | None:
    """Standard input up to ``limit`` bytes; None (reading stopped) when there is more."""
    chunks: list[bytes] = []
    got = 0
    stream = sys.stdin.buffer
    while got <= limit:
        chunk = stream.read(min(limit + 1 - got, 1 << 20))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        got += len(chunk)
    return None


def _collect(args: argparse.Namespace, paths: Sequence[str], report: _SkipReporter) -> _Collected:
    ids: list[str] = []
    fps: list[int] = []
    for doc_id, fp in _documents(args, paths, report):
        ids.append(doc_id)
        fps.append(int(fp))
    return _Collected(ids, np.array(fps, dtype=np.uint64))


def _finish(args: argparse.Namespace, report: _SkipReporter) -> int:
    if getattr(args, "strict", False) and report.count:
        warn(f"{report.count} document(s) skipped (--strict)")
        return 1
    return 0


def _similarity(d: int) -> str:
    from ditto_tui.core import similarity_percent

    return similarity_percent(d)


# --------------------------------------------------------------------------- commands


def _bulk_fingerprints(args: argparse.Namespace, out: Output, report: _SkipReporter) -> bool:
    """Write every fingerprint through the bulk stream (batches, output in bulk) when the
    run allows it (files or folders, the ditto pipeline, no cache); False otherwise."""
    from ditto_tui.core import Featurizer

    pipeline = _pipeline(args)
    if not args.paths or not getattr(args, "no_cache", False) or not isinstance(pipeline, Featurizer):
        return False
    for path in args.paths:
        if not os.path.lexists(path):
            raise CommandError(f"{path}: no such file or directory")
    from ditto_tui.corpus.bulk import MessageIds, fingerprint_batches

    identity = pipeline.identity
    for batch in fingerprint_batches(args.paths, pipeline, options=_scan_options(args),
                                     jobs=args.jobs):
        done = 0
        for at, skipped in [*batch.skips, (len(batch.ids), None)]:
            if args.json:
                for doc_id, fp in zip(batch.ids[done:at], batch.fps[done:at], strict=True):
                    out.json({"id": doc_id, "fp": f"{fp:016x}", "pipeline": identity})
            elif isinstance(batch.ids, MessageIds):  # an mbox's messages: a batch, no skips
                from ditto_tui.cli.fingerprint_lines import message_lines

                out.write(message_lines(escape_id(batch.ids.base), batch.fps))
            elif at > done:
                out.write(b"".join([b"%016x\t%s\n" % (fp, escape_id(doc_id)) for doc_id, fp
                                    in zip(batch.ids[done:at], batch.fps[done:at], strict=True)]))
            done = at
            if skipped is not None:
                report(skipped)
    return True


def cmd_fingerprint(args: argparse.Namespace, out: Output) -> int:
    report = _SkipReporter()
    if _bulk_fingerprints(args, out, report):
        return _finish(args, report)
    identity = _pipeline(args).identity
    for doc_id, fp in _documents(args, args.paths, report):
        if args.json:
            out.json({"id": doc_id, "fp": f"{int(fp):016x}", "pipeline": identity})
        else:
            out.line(b"%016x\t%s" % (int(fp), escape_id(doc_id)))
    return _finish(args, report)


def _families(ids: list[str], fps: np.ndarray, k: int, min_size: int, mode: str):
    """Families at k as lists of ids, in ditto's order; plus Family records when available."""
    from ditto_tui.core.clusters import clusters

    if mode == "chain":
        return clusters(ids, fps, k, min_size)
    from ditto_tui.core.index import NearIndex

    if len(set(ids)) != len(ids):
        raise CommandError("--mode star needs unique document ids (a path was given twice)")
    index = NearIndex(max_k=max(k, 0))
    index.add_many(ids, fps)
    return [list(f.members) for f in index.families(k, mode="star", min_size=min_size)]


def cmd_cluster(args: argparse.Namespace, out: Output) -> int:
    if args.sweep:
        from ditto_tui.cli.explain import cmd_sweep

        return cmd_sweep(args, out)
    if args.tree:
        from ditto_tui.cli.explain import cmd_tree

        return cmd_tree(args, out)
    report = _SkipReporter()
    got = _collect(args, args.paths, report)
    groups = _families(got.ids, got.fps, args.k, args.min, args.mode)
    if args.json:
        from ditto_tui.core.clusters import describe_family

        pos = {doc_id: i for i, doc_id in enumerate(got.ids)}
        for n, members in enumerate(groups, 1):
            mfps = got.fps[[pos[m] for m in members]]
            centre, diameter, exact = describe_family(members, mfps)
            out.json({
                "cluster": n,
                "k": args.k,
                "size": len(members),
                "centre": centre,
                "diameter": diameter,
                "diameter_exact": exact,
                "members": [{"id": m, "fp": f"{int(f):016x}"}
                            for m, f in zip(members, mfps, strict=True)],
            })
    else:
        out.line(f"{len(got.ids)} document(s), {len(groups)} near-duplicate cluster(s) at k={args.k}:")
        for n, members in enumerate(groups, 1):
            out.line(b"")
            out.line(f"[{n}] {len(members)} members")
            for m in members:
                out.line(b"  " + escape_id(m))
    return _finish(args, report)


def _fingerprint_of_target(args: argparse.Namespace, target: str) -> int:
    """A 16-hex fingerprint (when no such file exists) or the fingerprint of a file."""
    from ditto_tui.core import Fingerprint

    if len(target) == 16 and not os.path.exists(target):
        try:
            return int(Fingerprint.from_hex(target))
        except ValueError:
            pass
    return _fingerprint_of_file(args, target)


def _fingerprint_of_file(args: argparse.Namespace, path: str) -> int:
    from ditto_tui.corpus.reading import read_document_file

    if not os.path.exists(path):
        raise CommandError(f"{path}: no such file, URL or fingerprint")
    if os.path.isdir(path):
        raise CommandError(f"{path}: is a directory (expected a file or a fingerprint)")
    from ditto_tui.core.html_sniff import SNIFF_BYTES

    pipeline = _pipeline(args)
    try:
        data = read_document_file(path, max_size=getattr(args, "max_size", 64 << 20))
    except OSError as exc:
        raise CommandError(str(exc)) from None
    if not pipeline.accepts(path) and not pipeline.accepts_head(data[:SNIFF_BYTES]):
        warn(f"{path}: not an HTML file; the html pipeline reads it anyway")
    return int(pipeline.fingerprint(data))


def cmd_near(args: argparse.Namespace, out: Output) -> int:
    from ditto_tui.core.simhash import popcount64

    target = _fingerprint_of_target(args, args.target)
    report = _SkipReporter()
    got = _collect(args, args.paths, report)
    if args.k >= 0 and len(got.ids):
        dist = popcount64(got.fps ^ np.uint64(target)).astype(np.int64)
        hits = np.flatnonzero(dist <= args.k)
        order = sorted(hits.tolist(), key=lambda i: (int(dist[i]), got.ids[i]))
    else:
        order, dist = [], np.zeros(0, dtype=np.int64)
    for i in order:
        d = int(dist[i])
        fp = int(got.fps[i])
        if args.json:
            out.json({"id": got.ids[i], "fp": f"{fp:016x}", "distance": d,
                      "similarity": round(1 - d / 64, 6)})
        else:
            out.line(b"%d\t%s\t%016x\t%s" % (d, _similarity(d).encode(), fp, escape_id(got.ids[i])))
    return _finish(args, report)


def _compare_operand(args: argparse.Namespace, operand: str, out: Output) -> int:
    from ditto_tui.corpus.fetch import FetchError, fetch_url, is_url

    if is_url(operand):
        try:
            data = fetch_url(operand, timeout=args.timeout)
        except FetchError as exc:
            raise CommandError(str(exc)) from None
        if not args.json:
            out.line(f"Fetching {operand}, Got 200")
        return int(_pipeline(args).fingerprint(data))
    return _fingerprint_of_target(args, operand)


def cmd_compare(args: argparse.Namespace, out: Output) -> int:
    fa = _compare_operand(args, args.a, out)
    fb = _compare_operand(args, args.b, out)
    xor = fa ^ fb
    d = xor.bit_count()
    bits = [i for i in range(63, -1, -1) if xor >> i & 1]
    if args.json:
        out.json({"a": {"name": args.a, "fp": f"{fa:016x}"}, "b": {"name": args.b, "fp": f"{fb:016x}"},
                  "pipeline": _pipeline(args).identity, "distance": d,
                  "similarity": round(1 - d / 64, 6), "xor": f"{xor:016x}", "differing_bits": bits})
        return 0
    label = "HTML Similarity" if args.pipeline == "html" else "Similarity"
    out.line(f"Feature distance is {d}. {label} is {_similarity(d)}")
    out.line(b"%016x\t%s" % (fa, escape_id(args.a)))
    out.line(b"%016x\t%s" % (fb, escape_id(args.b)))
    out.line(f"xor {xor:016x}; differing bits: {' '.join(map(str, bits)) if bits else 'none'}")
    return 0


class _TerminalSafe:
    """A text stream for a terminal: each line written with its controls escaped."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        from ditto_tui.core.display import escape_controls

        lines = text.split("\n")
        self._stream.write("\n".join(escape_controls(line) for line in lines))
        return len(text)


def cmd_export(args: argparse.Namespace, out: Output) -> int:
    from ditto_tui.core.clusters import Family
    from ditto_tui.core.index import NearIndex
    from ditto_tui.corpus.export import export_families, write_families

    report = _SkipReporter()
    got = _collect(args, args.paths, report)
    if len(set(got.ids)) != len(got.ids):
        raise CommandError("export needs unique document ids (a path was given twice)")
    index = NearIndex(max_k=max(args.k, 0))
    index.add_many(got.ids, got.fps)
    families: list[Family] = index.families(args.k, mode=args.mode, min_size=args.min)
    fingerprints = dict(zip(got.ids, (int(f) for f in got.fps), strict=True))
    decisions = None
    if args.decisions:
        from ditto_tui.cli.dedupe import export_decisions

        if len(args.paths) != 1:
            raise CommandError("--decisions needs one folder PATH")
        decisions = export_decisions(args.paths[0], args)
    if args.output == "-":
        sys.stdout.flush()
        handle = cast(IO[str], _TerminalSafe(sys.stdout)) if sys.stdout.isatty() else sys.stdout
        write_families(families, handle, fmt=args.format, k=args.k, mode=args.mode,
                       fingerprints=fingerprints, decisions=decisions)
        sys.stdout.flush()
    else:
        try:
            export_families(families, args.output, fmt=args.format, k=args.k, mode=args.mode,
                            fingerprints=fingerprints, decisions=decisions)
        except FileExistsError:
            raise CommandError(f"{args.output}: already exists (not overwritten)") from None
    return _finish(args, report)


def _review_decisions(args: argparse.Namespace, session) -> dict[str, str]:
    """Review decisions of the session's documents by id; a stale one is ``stale:<value>``."""
    from ditto_tui.core.decisions import identity_of
    from ditto_tui.corpus.review import ReviewStore

    notices: list[str] = []
    try:
        store = ReviewStore.for_root(args.path, cache_dir=args.cache, notices=notices)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    with store:
        fps = session.fingerprints
        got = store.decisions({i: identity_of(d, int(fps[i])) for i, d in session.documents.items()},
                              follow=False)
    for notice in notices:
        warn(notice)
    return {**got.current, **{i: f"stale:{v}" for i, v in got.stale.items()}}


def cmd_report(args: argparse.Namespace, out: Output) -> int:
    from ditto_tui.core.index import NearIndex
    from ditto_tui.corpus.session import CorpusSession
    from ditto_tui.report import gather_report, render_report, write_html_report

    top = max(args.k, args.max_k)
    dest = args.output
    if dest != "-" and os.path.isdir(dest):
        raise CommandError(f"{dest}: is a folder (expected a file name)")
    if dest != "-" and os.path.lexists(dest) and not args.force:
        raise CommandError(f"{dest}: already exists (not overwritten; --force replaces it)")
    if dest != "-" and not os.path.isdir(os.path.dirname(dest) or "."):
        raise CommandError(f"{dest}: no such folder")
    if not os.path.lexists(args.path):
        raise CommandError(f"{args.path}: no such file or directory")
    if args.decisions and not os.path.isdir(args.path):
        raise CommandError("--decisions needs a folder PATH")
    cache = None
    if args.cache is not None:
        from ditto_tui.corpus.cache import default_cache_path

        cache = Path(args.cache) / default_cache_path(args.path).name
    try:
        session = CorpusSession(args.path, _pipeline(args), options=_scan_options(args),
                                cache=cache, use_cache=not args.no_cache, jobs=args.jobs,
                                reconcile_every=None)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    report = _SkipReporter()
    with session:
        session.scan()
        for notice in session.notices:
            warn(notice)
        for skipped in session.skipped:
            report(skipped)
        fingerprints = session.fingerprints
        index = NearIndex(max_k=top)
        index.add_many(list(fingerprints), np.fromiter(
            (int(f) for f in fingerprints.values()), np.uint64, len(fingerprints)))
        options = dict(k=args.k, mode=args.mode, min_size=args.min, pattern=args.filter,
                       chart_k=top, absolute_paths=args.absolute_paths,
                       decisions=_review_decisions(args, session) if args.decisions else None)
        if dest == "-":
            out.line(render_report(gather_report(session, index, **options)).rstrip("\n"))
            return _finish(args, report)
        try:
            data, written = write_html_report(session, index, dest, overwrite=args.force,
                                              **options)
        except FileExistsError:
            raise CommandError(f"{dest}: already exists (not overwritten; --force replaces it)"
                               ) from None
    families = len(data.families)
    out.line(f"wrote {dest}: {families} famil{'y' if families == 1 else 'ies'} of "
             f"{data.documents} document(s), {written / 1e6:.1f} MB")
    return _finish(args, report)


def cmd_version(args: argparse.Namespace, out: Output) -> int:
    from ditto_tui.core import engine

    out.line(f"{PROG} {__version__} pipeline=ditto/2 engine={engine.describe()}")
    return 0


def cmd_engine(args: argparse.Namespace, out: Output) -> int:
    from ditto_tui.core import engine

    line = f"engine={engine.describe()}"
    if engine.isas():
        line += f"; this CPU runs the compiled kernels with {', '.join(engine.isas())}"
    chosen = os.environ.get(engine.ENV, "").strip() or "auto"
    line += f"; {engine.ENV}={chosen}"
    why = engine.missing()
    if why:
        line += f"; {why}"
    out.line(line)
    return 0


def cmd_explore(args: argparse.Namespace, out: Output) -> int:
    if not os.path.isdir(args.path):
        raise CommandError(f"{args.path}: not a folder")
    from ditto_tui.corpus.session import CorpusSession
    from ditto_tui.ui.app import DittoApp

    pipeline = _pipeline(args)
    cache = None
    try:
        if args.cache is not None:
            from ditto_tui.corpus.cache import default_cache_path

            cache = Path(args.cache) / default_cache_path(args.path).name
        session = CorpusSession(args.path, pipeline, options=_scan_options(args), cache=cache,
                                use_cache=not args.no_cache, jobs=args.jobs)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    # `p` in the explorer toggles ditto <-> html with the featurizer settings given here
    from ditto_tui.core import make_pipeline

    pipelines = {
        "ditto": make_pipeline("ditto", char_n=args.char, word_n=args.word),
        "html": make_pipeline("html", shingle=args.shingle),
    }
    pipelines[pipeline.name] = pipeline
    with session:  # the sessions the app opens when switching pipeline are closed by the app
        app = DittoApp(session, root=session.root, pipeline=pipeline, max_k=args.max_k, k=args.k,
                       mode=args.mode, poll=args.poll, watch=not args.no_watch,
                       pipelines=pipelines, review=True, review_dir=args.cache,
                       fresh=args.fresh)
        app.run()
    for notice in [*session.notices, *app.notices]:
        warn(notice)
    return int(app.return_code or 0)


def cmd_explain(args: argparse.Namespace, out: Output) -> int:
    from ditto_tui.cli.explain import cmd_explain as run

    return run(args, out)


def cmd_spark(args: argparse.Namespace, out: Output) -> int:
    from ditto_tui.scale.cli import run_spark

    return run_spark(args)


def cmd_open(args: argparse.Namespace, out: Output) -> int:
    from ditto_tui.scale.cli import run_open

    return run_open(args)


def cmd_dedupe(args: argparse.Namespace, out: Output) -> int:
    from ditto_tui.cli.dedupe import run_dedupe

    return run_dedupe(args, out)


def cmd_undo(args: argparse.Namespace, out: Output) -> int:
    from ditto_tui.cli.dedupe import run_undo

    return run_undo(args, out)


COMMANDS = {
    "explore": cmd_explore,
    "fingerprint": cmd_fingerprint,
    "fp": cmd_fingerprint,
    "cluster": cmd_cluster,
    "near": cmd_near,
    "compare": cmd_compare,
    "export": cmd_export,
    "version": cmd_version,
    "engine": cmd_engine,
    "kernel": cmd_engine,
    "spark": cmd_spark,
    "open": cmd_open,
    "dedupe": cmd_dedupe,
    "undo": cmd_undo,
    "explain": cmd_explain,
    "report": cmd_report,
}


def _normalise_argv(argv: Sequence[str]) -> list[str]:
    """Insert the default ``explore`` command when the first argument is a path."""
    argv = _translate_go_flags(argv)
    if not argv:
        return ["explore"]
    first = argv[0]
    if first in SUBCOMMANDS or first in ("-h", "--help", "--version"):
        return argv
    return ["explore", *argv]


#: The largest meaningful Hamming distance: a fingerprint has 64 bits.
MAX_DISTANCE = 64


def _check_ranges(args: argparse.Namespace) -> None:
    command = getattr(args, "command", None)
    if command not in ("spark", "open"):  # those take 0..32 (argtypes.k_value)
        # one rule for every command with a distance: 0..64
        for flag, value in (("-k", getattr(args, "k", None)),
                            ("--max-k", getattr(args, "max_k", None))):
            if value is not None and not 0 <= value <= MAX_DISTANCE:
                raise UsageError(
                    f"{flag} {value} is out of range: a distance is 0..{MAX_DISTANCE} "
                    "(a fingerprint has 64 bits)"
                )
    if command == "explore" and args.k is not None and args.k > args.max_k:
        raise UsageError(f"-k {args.k} is larger than --max-k {args.max_k}")
    if getattr(args, "pipeline", "ditto") == "html" and "char" in args and (args.char, args.word) != (4, 0):
        raise UsageError("--char/--word apply to the ditto pipeline, not --pipeline html")
    if "char" in args:  # the library's rule (ditto_tui.ditto, html_distance), in flags
        from ditto_tui.core.pipeline import check_ditto_parameters, check_html_parameters

        try:
            check_ditto_parameters(args.char, args.word, cli=True)
            check_html_parameters(args.shingle, cli=True)
        except ValueError as exc:
            raise UsageError(str(exc)) from None


def _note_missing_engine(command: str) -> None:
    """One line on standard error when fingerprints will come from numpy although nobody
    asked for it (the compiled engine was not built at install time)."""
    if command in ("version", "engine", "kernel", "undo"):
        return  # they say it themselves, or compute no fingerprint
    from ditto_tui.core import engine

    why = engine.missing()
    if why:
        warn(f"note: {why}")


def main(argv: Iterable[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = build_parser()
    raw = list(sys.argv[1:] if argv is None else argv)
    out = Output()
    try:
        args = parser.parse_args(_normalise_argv(raw))
        _check_ranges(args)
        _note_missing_engine(args.command)
        code = COMMANDS[args.command](args, out)
        out.flush()
        return code
    except UsageError as exc:
        warn(f"error: {exc}")
        return 2
    except CommandError as exc:
        warn(str(exc))
        return 1
    except BrokenPipeError:
        _silence_stdout()
        return 0
    except KeyboardInterrupt:
        warn("interrupted")
        return 130
    except OSError as exc:
        warn(f"{exc.filename or ''}: {exc.strerror or exc}".lstrip(": "))
        return 1


def _silence_stdout() -> None:
    """After EPIPE, point stdout at /dev/null so the interpreter's final flush stays quiet."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass


if __name__ == "__main__":
    raise SystemExit(main())
