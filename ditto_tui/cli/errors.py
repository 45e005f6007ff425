"""The command line's two failures, raised by any command and turned into an exit code and
one line on stderr by :func:`ditto_tui.cli.main.main`."""

from __future__ import annotations

__all__ = ["CommandError", "UsageError"]


class UsageError(Exception):
    """A command line the user must fix (exit 2)."""


class CommandError(Exception):
    """A failure that is not the user's spelling (exit 1)."""
