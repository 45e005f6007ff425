"""The in-process walker's name-level skip rules, for Spark's executors (picklable parts).

:class:`SkipRules` is rebuilt on each executor from ``(patterns, spec, max_size,
hidden_files, hidden_dirs)`` and judges a root-relative id and its length the way
:class:`~ditto_tui.corpus.walk.Walker` does, in the same order: ignored (the ignore
rules, or a path a walk of the local root hides: a symlink, a file below a symlinked
folder or a maildir ``tmp`` folder -- see :mod:`~ditto_tui.scale.local_tree`) is left out
silently; a name the pipeline refuses is a skip unless the pipeline sniffs (html: the
file's first bytes decide, :data:`SNIFF`); then the size limit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from ditto_tui.corpus.reading import refused_reason, too_large

if TYPE_CHECKING:
    from ditto_tui.core.fingerprint.pipeline import Pipeline


class PipelineRecipe(Protocol):
    """What builds the pipeline on an executor (:class:`~ditto_tui.scale.fingerprints.PipelineSpec`)."""

    def build(self) -> Pipeline: ...

__all__ = ["IGNORED", "SNIFF", "PipelineRecipe", "SkipRules"]

#: :meth:`SkipRules.verdict` for a path that is no document and no skip.
IGNORED = "\0ignored"
#: :meth:`SkipRules.verdict` for a name the pipeline refuses whose first bytes decide.
SNIFF = "\0sniff"


class SkipRules:
    """The name-level skip rules, rebuilt on each executor from picklable parts."""

    def __init__(
        self,
        patterns: tuple[str, ...],
        spec: PipelineRecipe,
        max_size: int,
        hidden_files: frozenset[str] = frozenset(),
        hidden_dirs: frozenset[str] = frozenset(),
    ) -> None:
        from ditto_tui.corpus.ignore import IgnoreRules

        self.rules = IgnoreRules(patterns)
        self.pipeline = spec.build()
        self.max_size = max_size
        self.hidden_files = hidden_files
        self.hidden_dirs = hidden_dirs
        self._dirs: dict[str, bool] = {}

    @classmethod
    def of(cls, parts: tuple[Any, ...]) -> SkipRules:
        """Rebuild from the picklable ``parts`` (the constructor's arguments)."""
        return cls(*parts)

    def dir_ignored(self, rel: str) -> bool:
        """True when folder ``rel`` or one above it is ignored or hidden."""
        hit = self._dirs.get(rel)
        if hit is None:
            parent, _, _ = rel.rpartition("/")
            hit = (
                rel in self.hidden_dirs
                or (bool(parent) and self.dir_ignored(parent))
                or self.rules.is_ignored(rel, True)
            )
            self._dirs[rel] = hit
        return hit

    def ignored(self, rel: str) -> bool:
        """True when the file ``rel`` is left out silently."""
        parent, _, _ = rel.rpartition("/")
        return (
            rel in self.hidden_files
            or (bool(parent) and self.dir_ignored(parent))
            or self.rules.is_ignored(rel)
        )

    def verdict(self, rel: str, length: int) -> str | None:
        """:data:`IGNORED`, :data:`SNIFF`, a skip reason, or None for a document to read
        (walker order)."""
        if self.ignored(rel):
            return IGNORED
        name = rel.rpartition("/")[2]
        refused = not self.pipeline.accepts(name)
        if length > self.max_size:
            return too_large(length, self.max_size)
        if refused:  # html: a page by its first bytes; an empty file never is one
            return SNIFF if length else refused_reason(self.pipeline.name)
        return None
