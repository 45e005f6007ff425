"""``ditto-tui spark fingerprint|pairs|families|run`` and ``ditto-tui open RESULTS``.

The main CLI hooks these in with :func:`add_spark_parser` / :func:`run_spark` and
:func:`add_open_parser` / :func:`run_open`; ``python -m ditto_tui.scale.jobs`` (and
``spark-submit ditto_tui/scale/jobs.py``) runs the same commands without the main CLI.
pyspark is imported only when a command runs. Exit codes: 0 success, 1 failure with one
line on stderr prefixed ``ditto-tui:`` (Java or pyspark missing, a Spark error, a folder
that is not a results folder).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from ditto_tui.cli.argtypes import k_value, non_negative, positive, size

__all__ = [
    "add_open_parser",
    "add_spark_commands",
    "add_spark_parser",
    "run_open",
    "run_spark",
]

PROG = "ditto-tui"


def _conf(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    return key.strip(), value


def _spark_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("spark")
    g.add_argument("--master", default=None, metavar="URL",
                   help="Spark master URL (default local[*]; spark-submit's when run by it)")
    g.add_argument("--conf", type=_conf, action="append", default=[], metavar="KEY=VALUE",
                   help="a Spark setting (repeatable)")
    g.add_argument("--partitions", type=positive, default=None, metavar="N",
                   help="spark.sql.shuffle.partitions (default: Spark's)")
    g.add_argument("--checkpoint-dir", default=None, metavar="URI",
                   help="folder for reliable checkpoints (default OUT/_checkpoints, removed after)")
    g.add_argument("--no-progress", action="store_true", help="no stage progress on stderr")


def _corpus_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("documents")
    g.add_argument("--input", choices=("folder", "parquet", "jsonl", "manifest"),
                   default="folder",
                   help="what ROOT is: a folder (default); Parquet or JSON-lines shards, one "
                   "document per row (ROOT may be repeated: files, folders or globs); or "
                   "manifests listing one document path per line (relative to the manifest)")
    g.add_argument("--id-column", default="id", metavar="NAME",
                   help="shards: the column holding each document's id (default id)")
    g.add_argument("--text-column", default="text", metavar="NAME",
                   help="shards: the column holding the text (string) or bytes (binary)")
    g.add_argument("--glob", default=None, metavar="GLOB",
                   help="only file names matching GLOB (Spark's pathGlobFilter, e.g. '*.txt')")
    g.add_argument("--max-size", type=size, default=64 << 20, metavar="SIZE",
                   help="skip files larger than SIZE (default 64M)")
    g.add_argument("--include-binary", action="store_true", help="fingerprint binary files too")
    g.add_argument("--ignore", action="append", default=[], metavar="PATTERN",
                   help="ignore paths matching PATTERN (gitignore syntax; repeatable)")
    g.add_argument("--pipeline", choices=("ditto", "html"), default="ditto",
                   help="ditto: text SimHash (default); html: HTML structure")
    g.add_argument("--char", type=int, default=4, metavar="N", help="character shingle (ditto)")
    g.add_argument("--word", type=int, default=0, metavar="N", help="word shingle (ditto)")
    g.add_argument("--shingle", type=int, default=3, metavar="S", help="token shingle (html)")
    g.add_argument("--batch", type=positive, default=64, metavar="N",
                   help="documents per Arrow batch in the fingerprint UDF (default 64)")


def _pairs_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--expand", action="store_true",
                   help="also write document pairs (OUT/pairs); can be huge for big groups")
    p.add_argument("--blocks", type=positive, default=None, metavar="M",
                   help="cut fingerprints into M >= K+1 blocks (default: a cost model)")


def _families_options(p: argparse.ArgumentParser) -> None:
    from ditto_tui.scale.families import LOCAL_EDGES

    p.add_argument("--driver-edges", type=non_negative, default=LOCAL_EDGES, metavar="N",
                   help="solve graphs of at most N fingerprint pairs on the driver (default "
                   f"{LOCAL_EDGES:,}); larger ones, or all with 0, on the executors, "
                   "round by round, resumable after an interrupt")


def add_spark_commands(sub: Any) -> None:
    """Add ``fingerprint``, ``pairs``, ``families`` and ``run`` to a subparsers object."""
    p = sub.add_parser("fingerprint", help="fingerprint a folder into OUT (Parquet)",
                       description="Read every file under ROOT (a path or any Hadoop URI) with "
                       "Spark and write OUT/fingerprints and OUT/skipped. Names starting with "
                       "'.' or '_' are read like any other; empty files and mbox messages are "
                       "documents as in the local scan; files whose names are not UTF-8 are "
                       "reported as skipped. With --input, ROOT is shards or manifests.")
    p.add_argument("root", metavar="ROOT", nargs="+")
    p.add_argument("-o", "--out", required=True, metavar="OUT", help="results folder")
    _corpus_options(p)
    _spark_options(p)

    p = sub.add_parser("pairs", help="all pairs within K of OUT's fingerprints",
                       description="Write OUT/groups (identical fingerprints), OUT/pairs-fp "
                       "(pairs of distinct fingerprints within K) and, with --expand, OUT/pairs.")
    p.add_argument("out", metavar="OUT")
    p.add_argument("-k", type=k_value, default=3, metavar="K", help="maximum distance (default 3)")
    _pairs_options(p)
    _spark_options(p)

    p = sub.add_parser("families", help="near-duplicate families for k = 0..K",
                       description="Write OUT/families: id, k, family (smallest id of the "
                       "connected component at distance <= k) for every k in 0..K.")
    p.add_argument("out", metavar="OUT")
    p.add_argument("-k", type=k_value, default=3, metavar="K", help="largest distance (default 3)")
    p.add_argument("--only-k", action="store_true", help="only k = K, not every k in 0..K")
    _families_options(p)
    _spark_options(p)

    p = sub.add_parser("run", help="fingerprint, pairs and families in one go",
                       description="fingerprint ROOT, then pairs and families up to K, into OUT.")
    p.add_argument("root", metavar="ROOT", nargs="+")
    p.add_argument("-o", "--out", required=True, metavar="OUT", help="results folder")
    p.add_argument("-k", type=k_value, default=3, metavar="K", help="largest distance (default 3)")
    _corpus_options(p)
    _pairs_options(p)
    _families_options(p)
    _spark_options(p)


def add_spark_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``spark`` (with its own subcommands) to the main CLI's subparsers; returns it."""
    p = subparsers.add_parser(
        "spark",
        help="fingerprints, pairs and families on Spark (needs the 'spark' extra and Java)",
        description="Scale-out jobs on Spark. Results are Parquet tables in a folder that "
        "'ditto-tui open' browses.",
    )
    add_spark_commands(p.add_subparsers(dest="spark_command", metavar="JOB", required=True,
                                        parser_class=type(p)))
    return p


def add_open_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``open RESULTS`` (the explorer over a Spark results folder)."""
    p = subparsers.add_parser("open", help="explore a Spark results folder",
                              description="Browse the families of a results folder written by "
                              "'ditto-tui spark'. Previews need the documents on this machine.")
    p.add_argument("results", metavar="RESULTS")
    p.add_argument("-k", type=k_value, default=None, metavar="K", help="initial distance")
    p.add_argument("--max-k", type=k_value, default=None, metavar="K",
                   help="largest k the slider offers (default: the stored families' K, "
                   "else 8); above the stored K the explorer indexes the fingerprints itself")
    p.add_argument("--root", default=None, metavar="PATH",
                   help="a local copy of the corpus to read documents from")
    p.add_argument("--mode", choices=("chain", "star"), default="chain")
    return p


def _error(message: str) -> int:
    print(f"{PROG}: {message}", file=sys.stderr)
    return 1


def _spark_error(exc: BaseException) -> str:
    text = str(exc).strip()
    first = text.splitlines()[0] if text else type(exc).__name__
    return f"spark: {first}"


def run_spark(args: argparse.Namespace) -> int:
    """Run the ``spark`` subcommand in ``args``; returns the exit code (0 or 1)."""
    from ditto_tui.core.fingerprint.pipeline import check_ditto_parameters, check_html_parameters
    from ditto_tui.scale.session import SparkUnavailable, build_session

    if "char" in args:  # the library's and the main command line's rule, before Spark starts
        try:
            if args.pipeline == "ditto":
                check_ditto_parameters(args.char, args.word, cli=True)
            else:
                check_html_parameters(args.shingle, cli=True)
        except ValueError as exc:
            return _error(str(exc))
    try:
        spark = build_session(
            args.master,
            shuffle_partitions=args.partitions,
            conf=dict(args.conf),
        )
    except SparkUnavailable as exc:
        return _error(str(exc))
    from ditto_tui.scale.interrupt import CancelOnInterrupt

    with CancelOnInterrupt(spark) as interrupt:
        try:
            if args.checkpoint_dir:
                spark.sparkContext.setCheckpointDir(args.checkpoint_dir)
            code = _dispatch(spark, args, interrupt.check)
            interrupt.check()
            return code
        except SystemExit:
            raise
        except KeyboardInterrupt:
            return _interrupted(args)
        except ValueError as exc:
            if interrupt.requested:
                return _interrupted(args)
            return _error(str(exc))
        except Exception as exc:  # noqa: BLE001 - Py4J and Spark errors: one line for the user
            if interrupt.requested:  # the error is the cancellation
                return _interrupted(args)
            return _error(_spark_error(exc))


def _interrupted(args: argparse.Namespace) -> int:
    """One line for Ctrl-C (the jobs are cancelled); exit code 130."""
    again = " (families resume from their last round)" if args.spark_command in (
        "families", "run") else ""
    print(f"{PROG}: interrupted; run the same command again to continue{again}",
          file=sys.stderr)
    return 130


def _dispatch(spark: Any, args: argparse.Namespace, check: Callable[[], None]) -> int:
    """Run the stages ``args`` asks for; ``check`` raises KeyboardInterrupt after Ctrl-C
    (called between stages, and between the families' rounds)."""
    from ditto_tui.scale.progress import StageProgress

    command = args.spark_command
    show = not args.no_progress
    if command in ("fingerprint", "run"):
        with StageProgress(spark, "fingerprint", enabled=show):
            _fingerprint(spark, args)
    check()
    if command in ("pairs", "run"):
        with StageProgress(spark, "pairs", enabled=show):
            _pairs(spark, args)
    check()
    if command in ("families", "run"):
        with StageProgress(spark, "families", enabled=show):
            _families(spark, args, check)
    return 0


def _fingerprint(spark: Any, args: argparse.Namespace) -> None:
    from ditto_tui.corpus.documents import ScanOptions
    from ditto_tui.scale.fingerprints import PipelineSpec, Source, fingerprint_corpus

    spec = PipelineSpec(args.pipeline, args.char, args.word, args.shingle)
    spec.build()  # ValueError for a bad pipeline before Spark reads anything
    options = ScanOptions(
        max_size=args.max_size, include_binary=args.include_binary, ignore=tuple(args.ignore)
    )
    user_set = any(key == "spark.sql.files.openCostInBytes" for key, _ in args.conf)
    kwargs = {"open_cost": None} if user_set else {}
    source = Source(args.input, tuple(args.root), args.id_column, args.text_column)
    s = fingerprint_corpus(
        spark, source, args.out, spec, options, glob=args.glob, batch_rows=args.batch,
        **kwargs,
    )
    reasons = ", ".join(f"{n} {r}" for r, n in sorted(s.reasons.items())) or "none"
    print(f"fingerprint: {s.documents} documents, {s.skipped} skipped ({reasons}) "
          f"in {s.seconds:.1f} s [{s.identity}]")


def _pairs(spark: Any, args: argparse.Namespace) -> None:
    from ditto_tui.core.index.pairs import TableDesign
    from ditto_tui.scale.pairs import pairs_job

    design = None
    if args.blocks is not None:
        if args.blocks < args.k + 1 or args.blocks > 64:
            raise ValueError(f"--blocks must be in {args.k + 1}..64 for k={args.k}")
        design = TableDesign(args.blocks, args.blocks - args.k)
    s = pairs_job(spark, args.out, args.k, expand=args.expand, design=design)
    expanded = "written" if s.expanded else "not expanded"
    print(f"pairs: {s.documents} documents, {s.distinct} distinct fingerprints, "
          f"{s.fp_pairs} fingerprint pairs within {s.k}, {s.doc_pairs} document pairs "
          f"({expanded}); blocks m={s.design[0]} c={s.design[1]} in {s.seconds:.1f} s")


def _families(spark: Any, args: argparse.Namespace, check: Callable[[], None]) -> None:
    from ditto_tui.scale.families import families_job

    s = families_job(
        spark, args.out, args.k, all_levels=not getattr(args, "only_k", False),
        local_edges=args.driver_edges or None, check=check,
        say=lambda line: print(f"{PROG}: {line}", file=sys.stderr, flush=True),
    )
    per_k = ", ".join(f"k={k}: {n}" for k, n in sorted(s.multi_families.items()))
    print(f"families: families of 2+ documents {per_k}; {s.rounds} rounds in {s.seconds:.1f} s")


def run_open(args: argparse.Namespace) -> int:
    """Open the explorer on a results folder; returns the exit code."""
    from ditto_tui.scale.results import ResultsSession, load_results

    try:
        results = load_results(args.results)
    except ImportError:
        return _error("pyarrow is not installed (pip install 'ditto-tui[spark]')")
    except (OSError, ValueError) as exc:
        return _error(str(exc))
    max_k = args.max_k
    if max_k is None:
        max_k = max(results.levels) if results.levels else 8
    k = args.k if args.k is not None else min(3, max_k)
    if k > max_k:
        return _error(f"-k {k} is larger than --max-k {max_k}")
    # the stored families when they hold every k offered (else the explorer indexes)
    session = ResultsSession(results, root=args.root, max_k=max_k)
    if session.stored_index() is None:
        stored = f"families up to k={max(results.levels)}" if results.levels else "no families"
        print(f"{PROG}: the run stored {stored}; indexing the fingerprints for k up to "
              f"{max_k} (slower to open)", file=sys.stderr)
    for notice in session.notices:
        print(f"{PROG}: {notice}", file=sys.stderr)
    if results.skipped:
        from collections import Counter

        counts = Counter(reason for _, reason in results.skipped)
        listed = ", ".join(f"{n} {reason}" for reason, n in sorted(counts.items()))
        print(f"{PROG}: {len(results.skipped)} skipped ({listed}); the explorer lists them",
              file=sys.stderr)
    from ditto_tui.ui.app import DittoApp

    DittoApp(session, pipeline=session.pipeline, max_k=max_k, k=k, mode=args.mode,
             watch=False).run()
    return 0
