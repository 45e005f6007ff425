"""What the explorer needs from a corpus: :class:`CorpusSource` and optional capabilities.

``CorpusSession`` (a folder), ``ResultsSession`` (Spark results) and
:class:`~ditto_tui.explore.memory.MemorySource` meet it. Capabilities a source may add
are separate runtime-checkable protocols, checked with ``isinstance`` (never probed by
name): stored near pairs (:class:`PairStore`), families computed elsewhere
(:class:`StoredFamilies`), re-indexing with another pipeline
(:class:`PipelineSwitchable`), scan options (:class:`HasOptions`) and rescanning with
others (:class:`OptionsSwitchable`), one-line excerpts for lists (:class:`Excerpts`),
forgetting cached fingerprints found stale (:class:`ForgetsCached`).

Ordering contract: every ``on_batch`` / ``on_change`` call a source makes describes the
change from the state of the previous call to its own, and calls are made one at a time
in the order the source's state changed (a source holds its update lock while calling).
Applying the batches in call order therefore reproduces the source's state exactly;
each batch carries the document records of the fingerprints it brings
(:class:`~ditto_tui.corpus.documents.ChangeBatch`). A scan given ``on_batch`` delivers
its change only that way (it returns an empty batch, not a second copy of the change).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

from ditto_tui.core.fingerprint.pipeline import Pipeline
from ditto_tui.core.index.pairs import UniquePairs
from ditto_tui.core.index.stored import StoredIndex
from ditto_tui.corpus.documents import (
    ChangeBatch,
    Document,
    MailInfo,
    ScanOptions,
    ScanProgress,
    Skipped,
)
from ditto_tui.corpus.watch import WatchState


@runtime_checkable
class CorpusSource(Protocol):
    """A corpus the explorer can scan, watch and read from.

    ``root`` is where its documents live; ``pipeline`` made its fingerprints; ``notices``
    collects messages for the user (the explorer shows the new ones)."""

    root: Path
    pipeline: Pipeline
    notices: list[str]

    @property
    def documents(self) -> Mapping[str, Document]: ...

    @property
    def fingerprints(self) -> Mapping[str, int]: ...

    @property
    def skipped(self) -> Sequence[Skipped]: ...

    @property
    def watch_state(self) -> WatchState: ...

    def scan(
        self,
        *,
        on_progress: Callable[[ScanProgress], None] | None = None,
        on_batch: Callable[[ChangeBatch], None] | None = None,
        cancelled: Callable[[], bool] = ...,
    ) -> ChangeBatch: ...

    def read_text(self, id: str, *, limit: int | None = None) -> str: ...

    def mail_info(self, id: str) -> MailInfo | None: ...

    def start_watching(
        self,
        on_change: Callable[[ChangeBatch], None],
        *,
        poll: bool = False,
        on_state: Callable[[WatchState], None] | None = None,
    ) -> None: ...

    def pause_watching(self) -> None: ...

    def resume_watching(self) -> None: ...

    def stop_watching(self) -> None: ...

    def close(self) -> None: ...


@runtime_checkable
class PairStore(Protocol):
    """A source that remembers the near pairs of its fingerprints between runs."""

    def load_pairs(self, digest: str, k: int) -> UniquePairs | None: ...

    def store_pairs(self, pairs: UniquePairs) -> None: ...


@runtime_checkable
class StoredFamilies(Protocol):
    """A source whose families were computed elsewhere (a Spark results folder).

    When :meth:`stored_index` gives an index (it must hold every k the explorer offers:
    the source is opened for that largest k), the source's scan delivers no batch: the
    explorer shows the stored families and publishes the source's own ``fingerprints``
    and ``documents`` (read-only mappings that never change) instead of indexing the
    documents again."""

    def stored_index(self) -> StoredIndex | None: ...


@runtime_checkable
class PipelineSwitchable(Protocol):
    """A source that can open a sibling over the same corpus with another pipeline."""

    def with_pipeline(self, pipeline: Pipeline) -> CorpusSource: ...


@runtime_checkable
class HasOptions(Protocol):
    """A source that walks its root with scan options (shown in the status line)."""

    options: ScanOptions


@runtime_checkable
class OptionsSwitchable(HasOptions, Protocol):
    """A source that can open a sibling over the same corpus with other scan options."""

    def with_options(self, options: ScanOptions) -> CorpusSource: ...


@runtime_checkable
class Excerpts(Protocol):
    """A source that can say in one line what a document is (for lists; reads a little
    of the file: call off the UI thread)."""

    def excerpt(self, id: str, width: int = 80) -> str: ...


@runtime_checkable
class ForgetsCached(Protocol):
    """A source with a fingerprint cache that can drop entries found stale."""

    def forget_cached(self, ids: Iterable[str]) -> None: ...
