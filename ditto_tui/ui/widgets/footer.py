"""The key bar: Textual's Footer, restyled less and rebuilt only when its keys change."""

from __future__ import annotations

from collections.abc import Hashable

from textual import widgets
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets._footer import FooterKey


class Footer(widgets.Footer):
    """Textual's Footer, minus work that shows nothing new.

    - Textual rebuilds the whole key bar (some thirty widgets) whenever the screen's
      bindings may have changed, on every focus change say; most of the time the keys
      shown are the same. This footer rebuilds only when they differ.
    - Each key of Textual's bar is restyled twice as it mounts: once for the ``-compact``
      class of its default, once more when its binding to the bar's ``compact`` takes it
      away again (each a full style pass: about half of the bar's cost). Here every key
      starts with the value and the class it would end with.
    """

    _shown: Hashable = None

    def _keys(self, screen: Screen) -> Hashable:
        """What the bar shows for ``screen``: the bindings shown, enabled or not, tooltips."""
        palette = self.app.COMMAND_PALETTE_BINDING
        return self.show_command_palette, tuple(
            (key, binding, enabled, tooltip)
            for key, (_node, binding, enabled, tooltip) in screen.active_bindings.items()
            if binding.show or key == palette
        )

    def compose(self) -> ComposeResult:
        if self._bindings_ready:
            self._shown = self._keys(self.screen)
        for widget in super().compose():
            if isinstance(widget, FooterKey):
                bound = "compact" in (widget._reactive_connect or {})
                compact = self.compact if bound else bool(FooterKey.compact._default)
                widget.set_reactive(FooterKey.compact, compact)
                widget.set_class(compact, "-compact", update=False)
            yield widget

    def bindings_changed(self, screen: Screen) -> None:
        if (
            self._shown is not None
            and self.is_attached
            and screen is self.screen
            and self._keys(screen) == self._shown
        ):
            return
        super().bindings_changed(screen)
