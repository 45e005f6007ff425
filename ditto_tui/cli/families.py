"""``cluster --sweep`` and ``cluster --tree``: the chain families at every k up to K, as a
table or as each family's tree of sub-families."""

from __future__ import annotations

import argparse
from typing import Any

from ditto_tui.cli.collect import SkipReporter, collect, finish
from ditto_tui.cli.errors import UsageError
from ditto_tui.cli.output import Output, escape_id

__all__ = ["cmd_sweep", "cmd_tree", "tree_json", "tree_lines"]


def cmd_sweep(args: argparse.Namespace, out: Output) -> int:
    """``cluster --sweep``: for k = 0..K, the chain families (>= 2 documents), the documents
    in them, the largest family, the largest diameter and the families too wide for k."""
    from ditto_tui.core.explain.text import format_table
    from ditto_tui.core.families.tree import sweep_stats
    from ditto_tui.core.index.near_index import NearIndex

    report = SkipReporter()
    got = collect(args, args.paths, report)
    index = NearIndex(max_k=max(args.k, 0))
    # duplicate ids (a path given twice) are one document here
    index.add_many(got.ids, got.fps)
    rows = sweep_stats(index.near_graph())
    if args.json:
        for r in rows:
            out.json({"k": r.k, "families": r.families, "documents": r.documents, "of": len(index),
                      "largest": r.largest, "diameter": r.diameter,
                      "diameter_exact": r.diameter_exact, "too_wide": r.too_wide})
    else:
        out.line(f"{len(index)} document(s); chain families of at least 2 documents by k:")
        table = [(r.k, r.families, r.documents, r.largest,
                  f"{'' if r.diameter_exact else '≤'}{r.diameter}", r.too_wide) for r in rows]
        for line in format_table(table, ("k", "families", "documents", "largest", "diameter",
                                         "too wide")):
            out.line(line)
        out.line("largest: documents in the largest family; diameter: the largest diameter "
                 "(≤: a bound); too wide: families whose diameter is above 2k and k+4")
    return finish(args, report)


def cmd_tree(args: argparse.Namespace, out: Output) -> int:
    """``cluster --tree``: every chain family at k with its sub-families down to k = 0."""
    from ditto_tui.core.families.tree import family_forest

    if args.mode != "chain":
        raise UsageError("--tree shows chain families (single linkage): leave out --mode star")
    report = SkipReporter()
    got = collect(args, args.paths, report)
    seen: dict[str, int] = {}  # duplicate ids (a path given twice) are one document here
    for i, doc_id in enumerate(got.ids):
        seen.setdefault(doc_id, i)
    ids = list(seen)
    fps = got.fps[list(seen.values())] if len(ids) != len(got.ids) else got.fps
    trees = family_forest(ids, fps, args.k, min_size=args.min)
    if args.json:
        for n, root in enumerate(trees, 1):
            out.json({"cluster": n, **tree_json(root)})
        return finish(args, report)
    out.line(f"{len(ids)} document(s), {len(trees)} chain famil{'y' if len(trees) == 1 else 'ies'} "
             f"at k={args.k}, each with its sub-families down to k=0:")
    for n, root in enumerate(trees, 1):
        out.line(b"")
        for i, line in enumerate(tree_lines(root)):
            out.line((b"[%d] " % n if i == 0 else b"") + line)
    return finish(args, report)


def tree_json(node: Any) -> dict[str, Any]:
    """A tree node and its children as JSON: ``k, size, diameter, diameter_exact,
    representative, too_wide, children``; a leaf (no children) adds ``fp`` (its documents'
    shared fingerprint) and ``members`` (its documents, sorted): every document is listed
    once, at its leaf."""
    obj: dict[str, Any] = {
        "k": node.k, "size": node.size, "diameter": node.diameter,
        "diameter_exact": node.diameter_exact, "representative": node.representative,
        "too_wide": node.too_wide,
        "children": [tree_json(c) for c in node.children],
    }
    if node.is_leaf:
        obj["fp"] = f"{node.fingerprint:016x}"
        obj["members"] = list(node.members)
    return obj


def tree_lines(root: Any, indent: int = 4) -> list[bytes]:
    """The tree as text lines (ids escaped as ``escape_id`` does): one line per family
    (``k=K  N members  diameter D  REPRESENTATIVE``, children indented below it); a leaf of
    one document is ``k=K  ID``; a leaf of several (identical fingerprints) lists them."""
    out: list[bytes] = []
    stack: list[tuple[Any, int]] = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        pad = b" " * (indent * depth)
        if node.size == 1:
            out.append(pad + b"k=%d  %s" % (node.k, escape_id(node.representative)))
            continue
        if node.is_leaf:
            out.append(pad + b"k=%d  %d members  identical fingerprints" % (node.k, node.size))
            out.extend(pad + b"  " + escape_id(m) for m in node.members)
            continue
        about = "" if node.diameter_exact else "≤"
        wide = f" (too wide for k={node.k})" if node.too_wide else ""
        out.append(pad + f"k={node.k}  {node.size} members  diameter {about}{node.diameter}{wide}  ".encode()
                   + escape_id(node.representative))
        stack.extend((c, depth + 1) for c in reversed(node.children))
    return out
