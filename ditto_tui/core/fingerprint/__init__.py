"""Fingerprinting: a document's bytes to its 64-bit SimHash.

The ditto/2 pipeline (``normalize`` -> ``featurize`` -> ``simhash``) and the protocol every
pipeline follows (``pipeline``); the engines that run it (``engine`` picks the compiled
kernels of ``compiled``/``_compiled`` or the numpy code) and the tables they read
(``datafiles``, ``data/``). The html-distance pipeline lives in :mod:`ditto_tui.core.html`.
"""
