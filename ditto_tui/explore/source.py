"""What the explorer needs from a corpus: :class:`CorpusSource` and optional capabilities.

``CorpusSession`` (a folder), ``ResultsSession`` (Spark results) and
:class:`~ditto_tui.explore.memory.MemorySource` meet it. Capabilities a source may add
are separate protocols checked with ``isinstance``: stored near pairs (:class:`PairStore`)
and re-indexing with another pipeline (:class:`PipelineSwitchable`).

Ordering contract: every ``on_batch`` / ``on_change`` call a source makes describes the
change from the state of the previous call to its own, and calls are made one at a time
in the order the source's state changed (a source holds its update lock while calling).
Applying the batches in call order therefore reproduces the source's state exactly.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from ditto_tui.core.pairs import UniquePairs
from ditto_tui.corpus.documents import ChangeBatch, Document, MailInfo, ScanProgress, Skipped


@runtime_checkable
class CorpusSource(Protocol):
    """A corpus the explorer can scan, watch and read from."""

    root: Any
    pipeline: Any
    notices: list[str]

    @property
    def documents(self) -> Mapping[str, Document]: ...

    @property
    def fingerprints(self) -> Mapping[str, int]: ...

    @property
    def skipped(self) -> Sequence[Skipped]: ...

    @property
    def watch_state(self) -> str: ...

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
        on_state: Callable[[str], None] | None = None,
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
class PipelineSwitchable(Protocol):
    """A source that can open a sibling over the same corpus with another pipeline."""

    def with_pipeline(self, pipeline: Any) -> CorpusSource: ...
