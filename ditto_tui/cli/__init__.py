"""The ``ditto-tui`` command line (the program starts in :mod:`ditto_tui.launch`, which runs
:func:`ditto_tui.cli.main.main`)."""
