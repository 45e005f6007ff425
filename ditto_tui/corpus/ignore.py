"""Ignore rules: defaults, ``--ignore`` globs and the root's ``.dittoignore`` (gitignore syntax).

Ignored paths are silently left out (they are not "skipped": the user asked for it).
Patterns match paths relative to the corpus root, ``/``-separated, as in a ``.gitignore``
at the root; an ignored folder hides everything below it.

The ``.dittoignore`` file is read under the same rules as a document (through
:class:`~ditto_tui.corpus.rootdir.RootDir`): a regular file inside the root, at most
``IGNORE_MAX_BYTES``, never a FIFO or a device; one that cannot be read that way is left
out and the reason kept in ``IgnoreRules.problem``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ditto_tui.corpus.reading import SkipFile, os_reason, read_document_bytes
from ditto_tui.corpus.rootdir import RootDir

#: Always ignored unless a later negation (``!pattern``) re-includes them.
DEFAULT_IGNORES: tuple[str, ...] = (
    ".git/",
    ".hg/",
    ".svn/",
    "node_modules/",
    "__pycache__/",
    ".dittoignore",
    ".ditto-tui/",
    "/.Trash-*/",  # a volume's trash (freedesktop spec) when the root is a mount point
    "/.Trash/",
)
IGNORE_FILE = ".dittoignore"
#: Largest ``.dittoignore`` read (bytes).
IGNORE_MAX_BYTES = 1024 * 1024


class IgnoreRules:
    """Decides whether a root-relative path is ignored.

    ``is_ignored(rel, is_dir)`` is exact gitignore semantics for the combined pattern list
    (defaults, then ``extra`` patterns, then the ``.dittoignore`` lines); a folder must be
    asked with ``is_dir=True`` so folder-only patterns (``build/``) apply to it.
    """

    def __init__(self, patterns: Iterable[str], *, problem: str | None = None) -> None:
        #: Why the root's ``.dittoignore`` was not read (None when read or absent).
        self.problem = problem
        self.patterns: tuple[str, ...] = tuple(p for p in patterns if p.strip())
        self._regex: re.Pattern[str] | None = None
        if not self.patterns:  # nothing is ignored (a single file): pathspec is not needed
            self._regex = re.compile("(?!)")
            return
        import pathspec

        self._spec = pathspec.GitIgnoreSpec.from_lines(self.patterns)
        # Fast path: without negations the rules are one alternation of the patterns' regexes.
        active = [p for p in self._spec.patterns if p.include is not None]
        if all(p.include for p in active):
            parts = [
                p.regex.pattern.replace("(?P<ps_d>", "(?:")  # type: ignore[union-attr]
                for p in active
            ]
            self._regex = re.compile("|".join(f"(?:{x})" for x in parts) or "(?!)")

    @classmethod
    def for_root(cls, root: RootDir | str, extra: Iterable[str] = ()) -> IgnoreRules:
        """Rules for a corpus root: defaults, ``extra``, then the root's ``.dittoignore``
        when it can be read safely (see the module docstring)."""
        lines = list(DEFAULT_IGNORES) + list(extra)
        problem: str | None = None
        held = root if isinstance(root, RootDir) else RootDir(root)
        try:
            real, _ = held.resolve(IGNORE_FILE)
            data = read_document_bytes(held, real, max_size=IGNORE_MAX_BYTES)[0]
        except FileNotFoundError:
            data = b""
        except SkipFile as exc:
            data, problem = b"", exc.reason
        except OSError as exc:
            data, problem = b"", os_reason(exc)
        finally:
            if held is not root:
                held.close()
        text = data.decode("utf-8", "replace").replace("\r\n", "\n")
        lines += [ln for ln in text.split("\n") if not ln.startswith("#")]
        return cls(lines, problem=problem)

    def is_ignored(self, rel: str, is_dir: bool = False) -> bool:
        """True when the root-relative path ``rel`` (or one of its folders) is ignored."""
        if not rel or rel == ".":
            return False
        if is_dir and not rel.endswith("/"):
            rel += "/"
        if self._regex is not None:
            return self._regex.match(rel) is not None
        return self._spec.match_file(rel)
