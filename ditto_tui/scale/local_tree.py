"""What only a walk of a local root shows, for Spark's folder source.

Spark lists files through Hadoop, which follows every symlink and cannot name a file
whose name is not UTF-8. The in-process walker (:mod:`ditto_tui.corpus.walk`) sees these
differently, so for a local root (``file:``) a walk on the executors (one task per
top-level folder; symlinks never followed) finds, with the walker's reasons:

* names that are not valid UTF-8: skips (Spark cannot open them);
* symlinks: a link to a file inside the root is ``same file as <real path>``, a link to
  a folder is ``symlinked folder, not followed``; links leaving the root, broken links
  and loops are skips too; Spark's copies of these paths are left out;
* hard links: of the names of one file, the first in walk order is the document, the
  others are ``same file as <it>`` skips (their copies left out);
* maildir ``tmp`` folders (in a folder holding ``cur``, ``new`` and ``tmp``): left out
  silently, as the walker does.

Other file systems (HDFS, object stores) have neither symlinks nor undecodable names:
nothing is walked there.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ditto_tui.scale.skip_rules import IGNORED, SkipRules

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["UNDECODABLE_REASON", "LocalTree", "local_tree"]

UNDECODABLE_REASON = "file name is not valid UTF-8 (Spark cannot open it)"
_MAILDIR = (b"cur", b"new", b"tmp")
#: Finding kinds: a skip that is all there is (Spark never lists it), a symlink (a skip;
#: what Spark lists there, a file or a folder's files, is left out), a folder left out
#: silently.
_SKIP, _LINK, _HIDE_DIR, _HARD = "skip", "link", "hide", "hard"


@dataclass(frozen=True)
class LocalTree:
    """The walk's findings: skips ``(display id, reason)``, and the ids and folders whose
    Spark listing is left out."""

    skips: list[tuple[str, str]] = field(default_factory=list)
    hidden_files: frozenset[str] = frozenset()
    hidden_dirs: frozenset[str] = frozenset()


def local_tree(spark: SparkSession, root_uri: str, rules: tuple[Any, ...]) -> LocalTree:
    """Walk a local ``root_uri`` (empty findings for other file systems); ``rules`` are
    :class:`~ditto_tui.scale.skip_rules.SkipRules` parts (ignored paths are not entered)."""
    from ditto_tui.scale.results import local_root

    local = local_root(root_uri)
    if local is None or not os.path.isdir(local):
        return LocalTree()
    root = os.fsencode(local.rstrip("/") or "/")
    top: list[bytes] = []
    found = list(_folder(root, root, SkipRules.of(rules), _root_dir(root), top))
    if top:
        tasks = spark.sparkContext.parallelize(top, min(len(top), 256))
        found += tasks.flatMap(lambda d: list(_walk(d, root, rules))).collect()
    found += _hard_link_aliases([(rel, node) for kind, rel, node in found if kind == _HARD])
    skips = sorted((rel, reason) for kind, rel, reason in found if kind in (_SKIP, _LINK))
    return LocalTree(
        skips=[(_display(rel), reason) for rel, reason in skips],
        hidden_files=frozenset(rel for kind, rel, _ in found if kind == _LINK),
        hidden_dirs=frozenset(rel for kind, rel, _ in found if kind in (_LINK, _HIDE_DIR)),
    )


def _hard_link_aliases(names: list[tuple[str, str]]) -> list[tuple[str, str, str]]:
    """Skips for the names ``(rel, inode key)`` of multiply-linked files that are not the
    first of their file in walk order (the walker's rule)."""
    from ditto_tui.corpus.walk import SAME_FILE, walk_order_key

    by_node: dict[str, list[str]] = {}
    for rel, node in names:
        by_node.setdefault(node, []).append(rel)
    out = []
    for rels in by_node.values():
        first, *others = sorted(rels, key=walk_order_key)
        out += [(_LINK, rel, SAME_FILE + first) for rel in others]
    return out


def _display(rel: str) -> str:
    from ditto_tui.corpus.documents import display_id

    return display_id(rel)


def _root_dir(root: bytes) -> Any:
    from ditto_tui.corpus.rootdir import RootDir

    return RootDir(os.fsdecode(root))


def _walk(start: bytes, root: bytes, parts: tuple[Any, ...]) -> Iterator[tuple[str, str, str]]:
    """The findings at or below folder ``start`` (a task)."""
    judge = SkipRules.of(parts)
    rootdir = _root_dir(root)
    stack = [start]
    try:
        while stack:
            yield from _folder(stack.pop(), root, judge, rootdir, stack)
    finally:
        rootdir.close()


def _folder(
    folder: bytes, root: bytes, judge: SkipRules, rootdir: Any, subfolders: list[bytes]
) -> Iterator[tuple[str, str, str]]:
    """The findings among the entries of one folder; its sub-folders to walk go to
    ``subfolders``."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    kinds: dict[bytes, bool] = {}
    for entry in entries:
        try:
            kinds[entry.name] = entry.is_dir(follow_symlinks=False)
        except OSError:
            kinds[entry.name] = False
    maildir = all(kinds.get(part, False) for part in _MAILDIR)
    for entry in entries:
        rel_bytes = entry.path[len(root) + 1 :]
        rel = rel_bytes.decode("utf-8", "surrogateescape")
        if entry.is_symlink():
            if judge.verdict(rel, 0) != IGNORED:
                yield _symlink(rel, rootdir)
            continue
        if kinds[entry.name]:
            if judge.dir_ignored(rel):
                continue
            if maildir and entry.name == b"tmp":
                yield _HIDE_DIR, rel, ""
                continue
            subfolders.append(entry.path)
            continue
        if judge.verdict(rel, 0) == IGNORED:
            continue
        try:
            rel_bytes.decode("utf-8")
        except UnicodeDecodeError:
            yield _SKIP, rel, UNDECODABLE_REASON
            continue
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if st.st_nlink > 1 and stat.S_ISREG(st.st_mode):
            yield _HARD, rel, f"{st.st_dev}:{st.st_ino}"


def _symlink(rel: str, rootdir: Any) -> tuple[str, str, str]:
    """The walker's skip of the symlink ``rel`` (never followed out of the root)."""
    from ditto_tui.corpus.reading import os_reason
    from ditto_tui.corpus.rootdir import LOOP, Refused, kind_reason
    from ditto_tui.corpus.walk import BROKEN, LINKED_FOLDER, SAME_FILE

    try:
        real, st = rootdir.resolve(rel)
    except Refused as exc:
        return _LINK, rel, str(exc.strerror)
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            return _LINK, rel, BROKEN
        if exc.errno == errno.ELOOP:
            return _LINK, rel, LOOP
        return _LINK, rel, os_reason(exc)
    if stat.S_ISDIR(st.st_mode):
        return _LINK, rel, LINKED_FOLDER
    if stat.S_ISREG(st.st_mode):
        return _LINK, rel, SAME_FILE + real
    return _LINK, rel, kind_reason(st.st_mode) or "not a regular file"
