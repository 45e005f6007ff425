"""The main screen (:class:`~ditto_tui.ui.screens.main.screen.MainScreen`) and its parts,
one concern per module (see the screen module's docstring)."""

from ditto_tui.ui.screens.main.screen import MainScreen

__all__ = ["MainScreen"]
