"""Command palette provider: every action of the current screen and of the app, by name.

Built from the bindings, so a new binding is in the palette without further work.
"""

from __future__ import annotations

from functools import partial

from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider

APP_COMMANDS = [
    ("Help: list the keys", "app.help"),
    ("Quit", "app.quit"),
]


class DittoCommands(Provider):
    """Offers the current screen's bindings plus the app's own actions."""

    def _commands(self) -> list[tuple[str, str, str]]:
        screen = self.screen
        commands: list[tuple[str, str, str]] = []
        seen: set[str] = set()
        for binding in screen.BINDINGS:
            if not isinstance(binding, Binding) or binding.action in seen:
                continue
            seen.add(binding.action)
            action = binding.action
            keys = binding.key_display or binding.key.split(",")[0]
            what = f"{binding.tooltip}  " if binding.tooltip else ""
            commands.append((binding.description, action, f"{what}(key: {keys})"))
        for name, action in APP_COMMANDS:
            commands.append((name, action, ""))
        return commands

    async def _run(self, action: str) -> None:
        await self.app.run_action(action, self.screen)

    async def discover(self) -> Hits:
        for name, action, help_text in self._commands():
            yield DiscoveryHit(name, partial(self._run, action), help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, action, help_text in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(
                    score, matcher.highlight(name), partial(self._run, action), help=help_text
                )
