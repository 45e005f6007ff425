"""``ditto-tui explain``: why two documents are (not) near-duplicates, and how a family
chains them together. Kept apart from ``cli.py``, which only registers the command."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ditto_tui.cli import Output
    from ditto_tui.corpus.session import CorpusSession

__all__ = ["add_explain_parser", "cmd_explain"]


def add_explain_parser(
    sub: Any,
    add_options: Callable[[argparse.ArgumentParser], None],
) -> None:
    """Register ``explain`` on the subparsers ``sub``; ``add_options(p)`` adds the shared
    pipeline and corpus options."""
    from ditto_tui.argtypes import non_negative

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
    p.add_argument("-k", type=non_negative, default=3, metavar="K",
                   help="family distance for --chain (default 3)")
    p.add_argument("--json", action="store_true", help="one JSON object")
    add_options(p)


class _Failed(Exception):
    pass


def _read_file(path: str, max_size: int) -> bytes:
    from ditto_tui.corpus.reading import SkipFile, read_document_bytes

    if not os.path.exists(path):
        raise _Failed(f"{path}: no such file")
    if os.path.isdir(path):
        raise _Failed(f"{path}: is a folder (give ids inside it with --in {path})")
    try:
        return read_document_bytes(path, max_size=max_size)[0]
    except SkipFile as exc:
        raise _Failed(f"{path}: {exc.reason}") from None


def _open_session(args: argparse.Namespace) -> CorpusSession:
    from ditto_tui.cli import _pipeline, _scan_options, warn
    from ditto_tui.corpus.session import CorpusSession

    if not os.path.isdir(args.root):
        raise _Failed(f"{args.root}: not a folder")
    session = CorpusSession(args.root, _pipeline(args), options=_scan_options(args),
                            use_cache=not args.no_cache, jobs=args.jobs)
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
    from ditto_tui.cli import CommandError, UsageError

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
    from ditto_tui.cli import _pipeline, warn
    from ditto_tui.core.explain import explain_pair, unique_spans
    from ditto_tui.core.explain_features import document_features
    from ditto_tui.core.explain_text import pair_report
    from ditto_tui.core.normalize import decode_go

    pipeline = _pipeline(args)
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
    from ditto_tui.cli import CommandError

    raise CommandError("--chain is not available yet")
