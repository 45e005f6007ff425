"""``explain``: why two documents are (not) near-duplicates, and how a family chains them
together (``--chain``)."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

import numpy as np

from ditto_tui.cli.argtypes import integer, non_negative
from ditto_tui.cli.errors import CommandError, UsageError
from ditto_tui.cli.options import (
    add_corpus_options,
    add_pipeline_options,
    pipeline_of,
    scan_options,
)
from ditto_tui.cli.output import Output, escape_id, warn

if TYPE_CHECKING:
    from ditto_tui.cli.options import Subcommands
    from ditto_tui.corpus.session import CorpusSession

__all__ = ["add_parsers", "cmd_explain"]


def add_parsers(sub: Subcommands) -> None:
    """Add ``explain``."""
    p = sub.add_parser(
        "explain", help="why two documents are near-duplicates (or not)",
        description="Explain the distance between two documents: shared features, the "
        "distance their cosine predicts, each bit's votes, the fragile bits and the text "
        "only one side has. A and B are files, or document ids inside the folder given "
        "with --in. With --chain, the path of near-duplicate links joining A to B (or to "
        "its family's representative) at distance -k.")
    p.add_argument("a", metavar="A", help="a file, or an id inside the --in folder")
    p.add_argument("b", metavar="B", nargs="?", help="a file or id (optional with --chain)")
    p.add_argument("--in", dest="root", metavar="PATH", default=None,
                   help="folder the ids A and B are in (needed for --chain)")
    p.add_argument("--top", type=non_negative, default=3, metavar="N",
                   help="features shown per side for each differing bit (default 3)")
    p.add_argument("--bits", type=non_negative, default=8, metavar="N",
                   help="differing bits detailed in the text report (default 8; JSON has all)")
    p.add_argument("--chain", action="store_true",
                   help="show the chain of links joining A to B inside their family at -k")
    p.add_argument("-k", type=integer, default=3, metavar="K",
                   help="family distance for --chain (default 3)")
    p.add_argument("--json", action="store_true", help="one JSON object")
    add_pipeline_options(p)
    add_corpus_options(p)


class _Failed(Exception):
    pass


def _read_file(path: str, max_size: int) -> bytes:
    from ditto_tui.corpus.reading import read_document_file

    if not os.path.exists(path):
        raise _Failed(f"{path}: no such file")
    if os.path.isdir(path):
        raise _Failed(f"{path}: is a folder (give ids inside it with --in {path})")
    try:
        return read_document_file(path, max_size=max_size)
    except OSError as exc:  # "<path>: <reason>"
        raise _Failed(str(exc)) from None


def _open_session(args: argparse.Namespace) -> CorpusSession:
    from ditto_tui.corpus.session import CorpusSession

    if not os.path.isdir(args.root):
        raise _Failed(f"{args.root}: not a folder")
    cache = None
    if args.cache is not None:  # as the explorer does: one database per root in that folder
        from pathlib import Path

        from ditto_tui.corpus.cache import default_cache_path

        cache = Path(args.cache) / default_cache_path(args.root).name
    try:
        session = CorpusSession(args.root, pipeline_of(args), options=scan_options(args),
                                cache=cache, use_cache=not args.no_cache, jobs=args.jobs)
    except ValueError as exc:
        raise _Failed(str(exc)) from None
    session.scan()
    for notice in session.notices:
        warn(notice)
    return session


def _read_id(session: CorpusSession, doc_id: str) -> bytes:
    if doc_id not in session.documents:
        raise _Failed(f"{doc_id}: no such document in {session.root} (ids are relative paths, "
                      "mbox messages are file#N)")
    try:
        return session.read_bytes(doc_id)
    except OSError as exc:
        raise _Failed(str(exc)) from None


def cmd_explain(args: argparse.Namespace, out: Output) -> int:
    if args.b is None and not args.chain:
        raise UsageError("explain needs two documents A and B (or --chain)")
    if args.chain and args.root is None:
        raise UsageError("--chain needs the folder: --in PATH")
    try:
        if args.chain:
            return _chain(args, out)
        if args.root is not None:
            with _open_session(args) as session:
                data = (_read_id(session, args.a), _read_id(session, args.b))
        else:
            data = (_read_file(args.a, args.max_size), _read_file(args.b, args.max_size))
    except _Failed as exc:
        raise CommandError(str(exc)) from None
    _explain_pair(args, out, data)
    return 0


def _explain_pair(args: argparse.Namespace, out: Output, data: tuple[bytes, bytes]) -> None:
    from ditto_tui.core.explain.explanation import explain_pair, unique_spans
    from ditto_tui.core.explain.features import document_features
    from ditto_tui.core.explain.text import pair_report
    from ditto_tui.core.fingerprint.normalize import decode_go

    pipeline = pipeline_of(args)
    fa, fb = document_features(pipeline, data[0]), document_features(pipeline, data[1])
    for name, feats, raw in ((args.a, fa, data[0]), (args.b, fb, data[1])):
        if feats.fingerprint != pipeline.fingerprint(raw):  # the explanation must be exact
            warn(f"internal error: the explanation of {name} disagrees with its fingerprint")
    e = explain_pair(fa, fb, top=args.top)
    bytes_a, chars_a = unique_spans(fa, fb)
    bytes_b, chars_b = unique_spans(fb, fa)
    if args.json:
        obj = e.to_json()
        obj["a"] = {"name": args.a, **obj["a"]}  # type: ignore[dict-item]
        obj["b"] = {"name": args.b, **obj["b"]}  # type: ignore[dict-item]
        obj["only_a"] = {"bytes": bytes_a.tolist(), "chars": chars_a.tolist()}
        obj["only_b"] = {"bytes": bytes_b.tolist(), "chars": chars_b.tolist()}
        out.json(obj)
        return
    texts = (decode_go(data[0]), decode_go(data[1]))
    for line in pair_report(e, (args.a, args.b), texts, (chars_a, chars_b), max_bits=args.bits):
        out.line(line)


def _chain(args: argparse.Namespace, out: Output) -> int:
    """The path of links joining A to B (default: the representative of A's family)."""
    from ditto_tui.core.families.clusters import describe_family
    from ditto_tui.core.families.paths import chain_path, family_nodes, split_points
    from ditto_tui.core.index.near_index import NearIndex

    with _open_session(args) as session:
        fingerprints = dict(session.fingerprints)
    for doc_id in (args.a, args.b):
        if doc_id is not None and doc_id not in fingerprints:
            raise _Failed(f"{doc_id}: no such document in {args.root}")
    index = NearIndex(max_k=max(args.k, 8))  # beyond k: to say at which k they would join
    ids = list(fingerprints)
    index.add_many(ids, [int(fingerprints[i]) for i in ids])
    graph = index.near_graph()
    src = graph.node_of(args.a)
    nodes = family_nodes(graph, src, args.k)
    members = [m for group in graph.documents_of(nodes) for m in group]
    member_fps = [int(fingerprints[m]) for m in members]
    centre, diameter, exact = describe_family(members, member_fps)
    target = args.b if args.b is not None else centre
    path = chain_path(graph, src, graph.node_of(target))
    docs = graph.documents_of(np.array(path.nodes, dtype=np.int64)) if path.linked else []
    for group, doc_id in ((docs[0], args.a), (docs[-1], target)) if docs else ():
        group.remove(doc_id)  # the ends are the documents asked about
        group.insert(0, doc_id)
    bridges = split_points(graph, nodes, args.k) if diameter > 2 * args.k else []
    bridge_docs = graph.documents_of(np.array([p.node for p in bridges], dtype=np.int64))
    if args.json:
        out.json({
            "a": args.a, "b": target, "b_is_representative": args.b is None, "k": args.k,
            "family": {"size": len(members), "distinct": len(nodes), "representative": centre,
                       "diameter": diameter, "diameter_exact": exact},
            "linked": path.linked, "joins_at_k": path.bottleneck if path.linked else None,
            "path": [
                {"id": group[0], "identical": len(group) - 1, "fp": f"{int(graph.fps[n]):016x}",
                 "hop": path.hops[i - 1] if i else 0}
                for i, (n, group) in enumerate(zip(path.nodes, docs, strict=True))
            ],
            "bridges": [{"id": group[0], "pieces": list(p.pieces)}
                        for p, group in zip(bridges, bridge_docs, strict=True)],
        })
        return 0
    about = "~" if not exact else ""
    out.line(b"Family of %s at k=%d: %d document(s), %d distinct fingerprint(s), diameter %s%d, "
             b"representative %s" % (escape_id(args.a), args.k, len(members), len(nodes),
                                     about.encode(), diameter, escape_id(centre)))
    who = b"the representative" if args.b is None else escape_id(target)
    if not path.linked:
        out.line(b"%s and %s are not linked within %d bits." % (escape_id(args.a), who, index.max_k))
        return 0
    where = "in this family" if path.bottleneck <= args.k else f"they join only from k={path.bottleneck} on"
    if len(path.nodes) == 1:
        if args.b is None:
            out.line(b"%s is the representative (or identical to it)." % escape_id(args.a))
        else:
            out.line(b"%s and %s have the same fingerprint." % (escape_id(args.a), who))
    elif len(path.nodes) == 2:
        out.line(b"Linked to %s directly, %s (%s):" % (who, _bits(path.bottleneck), where.encode()))
    else:
        out.line(b"Linked to %s through %d document(s), max hop %s (%s):"
                 % (who, len(path.nodes) - 2, _bits(path.bottleneck), where.encode()))
    for i, group in enumerate(docs):
        hop = _bits(path.hops[i - 1]).rjust(7) if i else b"  start"
        extra = f"  (+{len(group) - 1} identical)" if len(group) > 1 else ""
        out.line(b"  %s  %016x  %s%s" % (hop, int(graph.fps[path.nodes[i]]),
                                        escape_id(group[0]), extra.encode()))
    if bridges:
        out.line(f"Bridge documents (the diameter, {diameter}, is far above k={args.k}): removing one "
                 "splits the family into pieces of so many documents:")
        for p, group in zip(bridges, bridge_docs, strict=True):
            pieces = " + ".join(map(str, p.pieces))
            out.line(b"  %s: %s" % (escape_id(group[0]), pieces.encode()))
    return 0


def _bits(n: int) -> bytes:
    return f"{n} bit{'' if n == 1 else 's'}".encode()
