"""ditto-tui: a near-duplicate explorer built on Charikar SimHash, bit-identical to Go ditto."""

__version__ = "0.1.0"
