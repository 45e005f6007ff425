"""ditto-tui: a near-duplicate explorer built on Charikar SimHash, bit-identical to Go ditto.

The library API (``__all__``) is defined in :mod:`ditto_tui.api` and available here;
it is imported on first use, so importing a subpackage (``ditto_tui.core``, the command
line) does not pay for it. The user guide is in ``docs/``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ditto_tui._version import __version__

if TYPE_CHECKING:
    from ditto_tui.api import (
        ChangeBatch,
        CorpusSession,
        Family,
        Fingerprint,
        Fingerprinted,
        Index,
        IndexFileError,
        Match,
        Oracle,
        Pipeline,
        PipelineMismatchError,
        Skipped,
        distance,
        ditto,
        fingerprint,
        fingerprint_folder,
        fingerprint_many,
        html_distance,
        load_index,
        pipeline,
        similarity,
    )

__all__ = [
    "ChangeBatch",
    "CorpusSession",
    "Family",
    "Fingerprint",
    "Fingerprinted",
    "Index",
    "IndexFileError",
    "Match",
    "Oracle",
    "Pipeline",
    "PipelineMismatchError",
    "Skipped",
    "__version__",
    "distance",
    "ditto",
    "fingerprint",
    "fingerprint_folder",
    "fingerprint_many",
    "html_distance",
    "load_index",
    "pipeline",
    "similarity",
]


def __getattr__(name: str) -> Any:
    if name in __all__:
        value = getattr(importlib.import_module("ditto_tui.api"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'ditto_tui' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
