"""corpus: the only layer that opens user files.

- ``rootdir``: ``RootDir``, the one gate every open of a user file goes through (inside
  the root only, no symlink on the way, never a FIFO or a device).
- ``documents``: Document, Skipped, MailInfo, ScanOptions, ScanProgress, ChangeBatch.
- ``records``: FileEntry, FileResult, Resolved, CachedFile (passed between the modules below).
- ``walk``: folder discovery (``Walker``), one document per file.
- ``stream``: the ditto-compatible ``iter_fingerprints`` of the CLI.
- ``reading``: safe reads (size limits, files changing underneath) through the gate.
- ``mail``: maildir and mbox recognition, message splitting, header display.
- ``ignore``: default ignores, ``--ignore`` globs and ``.dittoignore``.
- ``scan``: cache look-ups and parallel fingerprinting in worker processes.
- ``cache``: the SQLite fingerprint cache, one per corpus root, outside it.
- ``watch``: watchdog events coalesced into path batches, overflow and rescan handling.
- ``poll``: ``TreePoller``, polling that never leaves the root (``--poll``, inotify fallback).
- ``session``: ``CorpusSession``, what the UI opens.
"""
