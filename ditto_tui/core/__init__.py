"""Pure computation: normalize, featurize, SimHash, the near-duplicate index and families.

No I/O and no UI; depends on numpy (and scipy for components). Fingerprints come from the
compiled engine (C, built at install) when it is there, else from numpy (``engine``).
The index and family names are imported on first use, so a command that only
fingerprints does not pay for them at start-up.
"""

from typing import TYPE_CHECKING, Any

from ditto_tui.core.fingerprint.featurize import PIPELINE_VERSION, Featurizer
from ditto_tui.core.fingerprint.normalize import decode_go, normalize
from ditto_tui.core.fingerprint.pipeline import Pipeline, make_pipeline
from ditto_tui.core.fingerprint.simhash import Fingerprint, distance, similarity_percent

if TYPE_CHECKING:
    from ditto_tui.core.families.clusters import Family, all_pairs
    from ditto_tui.core.index.near_index import Match, NearIndex

__all__ = [
    "PIPELINE_VERSION",
    "Family",
    "Featurizer",
    "Fingerprint",
    "Match",
    "NearIndex",
    "Pipeline",
    "all_pairs",
    "decode_go",
    "distance",
    "make_pipeline",
    "normalize",
    "similarity_percent",
]

_LAZY = {
    "Family": "ditto_tui.core.families.clusters",
    "all_pairs": "ditto_tui.core.families.clusters",
    "Match": "ditto_tui.core.index.near_index",
    "NearIndex": "ditto_tui.core.index.near_index",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
