"""The package's version, in a module of its own that imports nothing: the command line and
the report print it without loading the library surface (``ditto_tui/__init__.py``).

It must equal ``[project] version`` in ``pyproject.toml`` (``tests/test_version.py``).
"""

__version__ = "0.1.0"
