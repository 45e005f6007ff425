"""Private implementation of the public library API (import from ``ditto_tui`` instead).

Nothing here is stable: the names that are kept stable are the ones ``ditto_tui``
re-exports (see ``ditto_tui.__all__``).
"""
