"""corpus: the only layer that opens user files.

- ``documents``: Document, Skipped, MailInfo, ScanOptions, ScanProgress, ChangeBatch.
- ``walk``: folder discovery (``Walker``) and the ditto-compatible ``iter_fingerprints``.
- ``reading``: safe reads (no blocking on FIFOs, size limits, files changing underneath).
- ``mail``: maildir and mbox recognition, message splitting, header display.
- ``ignore``: default ignores, ``--ignore`` globs and ``.dittoignore``.
- ``scan``: cache look-ups and parallel fingerprinting in worker processes.
- ``cache``: the SQLite fingerprint cache, one per corpus root, outside it.
- ``watch``: watchdog events coalesced into path batches, overflow and rescan handling.
- ``session``: ``CorpusSession``, what the UI opens.
"""
