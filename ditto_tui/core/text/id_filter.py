"""The filter rule shared by the explorer's filter box, the report and the CLI: which ids
a pattern keeps."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable

__all__ = ["GLOB_CHARS", "id_matcher"]

#: A pattern holding one of these is a glob; any other is a substring.
GLOB_CHARS = frozenset("*?[")


def id_matcher(pattern: str) -> Callable[[str], bool]:
    """A predicate on ids: a glob when ``pattern`` holds ``*?[`` (matched against the whole
    id and against its last component), else a case-insensitive substring. An empty (or
    blank) pattern matches everything."""
    pattern = pattern.strip()
    if not pattern:
        return lambda _id: True
    if GLOB_CHARS & set(pattern):
        compiled = re.compile(fnmatch.translate(pattern))

        def glob_match(id_: str) -> bool:
            return bool(compiled.match(id_) or compiled.match(id_.rsplit("/", 1)[-1]))

        return glob_match
    needle = pattern.casefold()
    return lambda id_: needle in id_.casefold()
