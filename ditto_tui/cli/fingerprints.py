"""``fingerprint`` (alias ``fp``), ``cluster``, ``near`` and ``compare``: ditto's commands,
with its output (``<16 hex>\\t<id>`` lines, the cluster report) or JSON lines."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

import numpy as np

from ditto_tui.cli.argtypes import integer
from ditto_tui.cli.collect import SkipReporter, collect, documents, finish
from ditto_tui.cli.errors import CommandError
from ditto_tui.cli.options import (
    add_corpus_options,
    add_json,
    add_k,
    add_pipeline_options,
    pipeline_of,
    scan_options,
)
from ditto_tui.cli.output import Output, escape_id, warn

if TYPE_CHECKING:
    from ditto_tui.cli.options import Subcommands

__all__ = ["add_parsers", "cmd_cluster", "cmd_compare", "cmd_fingerprint", "cmd_near"]


def add_parsers(sub: Subcommands) -> None:
    """Add ``fingerprint`` (and ``fp``), ``cluster``, ``near`` and ``compare``."""
    p = sub.add_parser("fingerprint", aliases=["fp"], help="print one fingerprint per document",
                       description="Print '<16 hex>\\t<id>' for every document (ditto's format). "
                       "With no PATH, standard input is one document with id 'stdin'.")
    p.add_argument("paths", nargs="*", metavar="PATH", help="files or folders")
    add_json(p, "one {id, fp, pipeline} object per document")
    add_pipeline_options(p)
    add_corpus_options(p)

    p = sub.add_parser("cluster", help="print near-duplicate families (ditto's report)",
                       description="Group documents whose fingerprints are within K bits "
                       "(connected components, as ditto does; --mode star for centred families).")
    p.add_argument("paths", nargs="+", metavar="PATH", help="files or folders")
    add_k(p)
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
    add_json(p, "one object per cluster")
    add_pipeline_options(p)
    add_corpus_options(p)

    p = sub.add_parser("near", help="documents within k bits of a target",
                       description="List documents within K bits of TARGET (a file or a "
                       "16-hex fingerprint), sorted by distance then id.")
    p.add_argument("target", metavar="TARGET", help="a file, or a fingerprint as 16 hex digits")
    p.add_argument("paths", nargs="+", metavar="PATH", help="files or folders to search")
    add_k(p)
    add_json(p, "one {id, fp, distance, similarity} object per match")
    add_pipeline_options(p)
    add_corpus_options(p)

    p = sub.add_parser("compare", help="distance and bit-diff of two documents",
                       description="Compare two documents (files, URLs or 16-hex fingerprints): "
                       "distance, similarity, both fingerprints and the differing bits.")
    p.add_argument("a", metavar="A")
    p.add_argument("b", metavar="B")
    p.add_argument("--timeout", type=float, default=15.0, metavar="SECONDS",
                   help="network timeout for URLs (default 15)")
    add_json(p, "a single object")
    add_pipeline_options(p)


def _similarity(d: int) -> str:
    from ditto_tui.core import similarity_percent

    return similarity_percent(d)


def _bulk_fingerprints(args: argparse.Namespace, out: Output, report: SkipReporter) -> bool:
    """Write every fingerprint through the bulk stream (batches, output in bulk) when the
    run allows it (files or folders, the ditto pipeline, no cache); False otherwise."""
    from ditto_tui.core import Featurizer

    pipeline = pipeline_of(args)
    if not args.paths or not getattr(args, "no_cache", False) or not isinstance(pipeline, Featurizer):
        return False
    for path in args.paths:
        if not os.path.lexists(path):
            raise CommandError(f"{path}: no such file or directory")
    from ditto_tui.corpus.bulk import MessageIds, fingerprint_batches

    identity = pipeline.identity
    for batch in fingerprint_batches(args.paths, pipeline, options=scan_options(args),
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
    report = SkipReporter()
    if _bulk_fingerprints(args, out, report):
        return finish(args, report)
    identity = pipeline_of(args).identity
    for doc_id, fp in documents(args, args.paths, report):
        if args.json:
            out.json({"id": doc_id, "fp": f"{int(fp):016x}", "pipeline": identity})
        else:
            out.line(b"%016x\t%s" % (int(fp), escape_id(doc_id)))
    return finish(args, report)


def _families(ids: list[str], fps: np.ndarray, k: int, min_size: int, mode: str):
    """Families at k as lists of ids, in ditto's order; plus Family records when available."""
    from ditto_tui.core.families.clusters import clusters

    if mode == "chain":
        return clusters(ids, fps, k, min_size)
    from ditto_tui.core.index.near_index import NearIndex

    if len(set(ids)) != len(ids):
        raise CommandError("--mode star needs unique document ids (a path was given twice)")
    index = NearIndex(max_k=max(k, 0))
    index.add_many(ids, fps)
    return [list(f.members) for f in index.families(k, mode="star", min_size=min_size)]


def cmd_cluster(args: argparse.Namespace, out: Output) -> int:
    if args.sweep:
        from ditto_tui.cli.families import cmd_sweep

        return cmd_sweep(args, out)
    if args.tree:
        from ditto_tui.cli.families import cmd_tree

        return cmd_tree(args, out)
    report = SkipReporter()
    got = collect(args, args.paths, report)
    groups = _families(got.ids, got.fps, args.k, args.min, args.mode)
    if args.json:
        from ditto_tui.core.families.clusters import describe_family

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
    return finish(args, report)


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
    from ditto_tui.core.html.sniff import SNIFF_BYTES

    pipeline = pipeline_of(args)
    try:
        data = read_document_file(path, max_size=getattr(args, "max_size", 64 << 20))
    except OSError as exc:
        raise CommandError(str(exc)) from None
    if not pipeline.accepts(path) and not pipeline.accepts_head(data[:SNIFF_BYTES]):
        warn(f"{path}: not an HTML file; the html pipeline reads it anyway")
    return int(pipeline.fingerprint(data))


def cmd_near(args: argparse.Namespace, out: Output) -> int:
    from ditto_tui.core.fingerprint.simhash import popcount64

    target = _fingerprint_of_target(args, args.target)
    report = SkipReporter()
    got = collect(args, args.paths, report)
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
    return finish(args, report)


def _compare_operand(args: argparse.Namespace, operand: str, out: Output) -> int:
    from ditto_tui.corpus.fetch import FetchError, fetch_url, is_url

    if is_url(operand):
        try:
            data = fetch_url(operand, timeout=args.timeout)
        except FetchError as exc:
            raise CommandError(str(exc)) from None
        if not args.json:
            out.line(f"Fetching {operand}, Got 200")
        return int(pipeline_of(args).fingerprint(data))
    return _fingerprint_of_target(args, operand)


def cmd_compare(args: argparse.Namespace, out: Output) -> int:
    fa = _compare_operand(args, args.a, out)
    fb = _compare_operand(args, args.b, out)
    xor = fa ^ fb
    d = xor.bit_count()
    bits = [i for i in range(63, -1, -1) if xor >> i & 1]
    if args.json:
        out.json({"a": {"name": args.a, "fp": f"{fa:016x}"}, "b": {"name": args.b, "fp": f"{fb:016x}"},
                  "pipeline": pipeline_of(args).identity, "distance": d,
                  "similarity": round(1 - d / 64, 6), "xor": f"{xor:016x}", "differing_bits": bits})
        return 0
    label = "HTML Similarity" if args.pipeline == "html" else "Similarity"
    out.line(f"Feature distance is {d}. {label} is {_similarity(d)}")
    out.line(b"%016x\t%s" % (fa, escape_id(args.a)))
    out.line(b"%016x\t%s" % (fb, escape_id(args.b)))
    out.line(f"xor {xor:016x}; differing bits: {' '.join(map(str, bits)) if bits else 'none'}")
    return 0

