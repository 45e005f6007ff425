"""The key bar: the screen's key bindings drawn as one widget, as Textual's Footer draws them."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.color import Color
from textual.css.styles import StylesBase
from textual.screen import Screen
from textual.strip import Strip
from textual.style import Style as VisualStyle
from textual.visual import Visual, visualize
from textual.widget import Widget


@dataclass(frozen=True)
class Key:
    """One key of the bar: what it shows, what a click presses, its tooltip."""

    key: str
    display: str
    description: str
    disabled: bool
    tooltip: str
    palette: bool = False


#: everything a key's cells depend on: the styles of its key, description and item, the
#: item's visual style, the style inside the palette's edge, that edge and its style
Look = tuple[Style, Style, Style, VisualStyle, Style, str, Style]


class Footer(Widget, can_focus=False):
    """The key bar: every key binding shown on the screen, in one line at the bottom.

    It looks and acts like Textual's ``Footer`` (non-compact): the same cells in the same
    styles (snapshots are identical), a click on a key presses it (a disabled one rings the
    bell), hovering a key highlights it and shows its tooltip, the command palette's key
    sits at the right edge, and the mouse wheel scrolls keys that do not fit. Binding
    groups are drawn as separate keys.

    Textual's footer is a container of one widget per key (some thirty), composed again on
    every change of the keys shown, a focus change say: each time a mount, a style pass per
    key and a layout of the whole screen. This bar keeps its size, so new keys only repaint
    it.
    """

    ALLOW_SELECT = False
    #: keys drawn, by the key and everything its cells depend on (shared by every bar: a
    #: new screen's bar draws the keys it has in common with the last one at no cost)
    _drawn: dict[tuple[Key, Look], Strip] = {}
    COMPONENT_CLASSES = {
        "key-bar--item",
        "key-bar--item-hover",
        "key-bar--item-disabled",
        "key-bar--key",
        "key-bar--description",
        "key-bar--palette",
    }
    DEFAULT_CSS = """
    Footer {
        dock: bottom;
        height: 1;
        width: 1fr;
        color: $footer-foreground;
        background: $footer-background;
        text-wrap: nowrap;
        & > .key-bar--item { background: $footer-item-background; }
        & > .key-bar--item-hover {
            color: $footer-key-foreground;
            background: $block-hover-background;
        }
        & > .key-bar--item-disabled { text-style: dim; }
        & > .key-bar--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        & > .key-bar--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        & > .key-bar--palette { border-left: vkey $foreground 20%; }
        &:ansi {
            background: ansi_default;
            & > .key-bar--key { background: ansi_default; color: ansi_magenta; }
            & > .key-bar--description { background: ansi_default; color: ansi_default; }
            & > .key-bar--item-hover {
                text-style: underline;
                background: ansi_default;
                color: ansi_default;
            }
            & > .key-bar--palette { background: ansi_default; border-left: vkey ansi_black; }
        }
    }
    """

    def __init__(self, *, show_command_palette: bool = True, name: str | None = None,
                 id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.show_command_palette = show_command_palette
        self.keys: tuple[Key, ...] = ()
        self._ready = False  # no keys before the screen first says what its bindings are
        self._hover: int | None = None
        self._scroll = 0  # columns of keys scrolled out on the left
        self._overflow = 0  # columns of keys that do not fit
        self._spans: list[tuple[int, int, int]] = []  # (start, end, key index) on screen

    # -- what the bar shows ----------------------------------------------------------------
    def keys_for(self, screen: Screen[Any]) -> tuple[Key, ...]:
        """The keys shown for ``screen``: one per action shown, then the palette's key."""
        app = self.app
        active = screen.active_bindings
        by_action: defaultdict[str, list[Key]] = defaultdict(list)
        for _node, binding, enabled, tooltip in active.values():
            if binding.show:
                by_action[binding.action].append(Key(
                    binding.key, app.get_key_display(binding), binding.description,
                    not enabled, tooltip,
                ))
        keys = [same[0] for same in by_action.values()]
        if self.show_command_palette and app.ENABLE_COMMAND_PALETTE:
            found = active.get(app.COMMAND_PALETTE_BINDING)
            if found is not None:
                _node, binding, enabled, _tooltip = found
                keys.append(Key(
                    binding.key, app.get_key_display(binding), binding.description,
                    not enabled, binding.tooltip or binding.description, palette=True,
                ))
        return tuple(keys)

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self.bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def bindings_changed(self, screen: Screen[Any]) -> None:
        self._ready = True
        if not screen.app.app_focus or not self.is_attached or screen is not self.screen:
            return
        keys = self.keys_for(screen)
        if keys != self.keys:
            self.keys = keys
            self._set_hover(None)
            self.refresh()

    # -- drawing -----------------------------------------------------------------------------
    def _layered(self, *names: str) -> tuple[Style, Color]:
        """The Rich style and background of text drawn through the bar's component
        ``names`` in turn, each a layer over the last (as a key widget inside a footer)."""
        background = Color(0, 0, 0, 0)
        color = Color(255, 255, 255, 0)
        style = Style()
        opacity = 1.0
        layers: list[StylesBase] = [node.styles for node in reversed(self.ancestors_with_self)]
        layers.extend(self.get_component_styles(name) for name in names)
        for styles in layers:
            has_rule = styles.has_rule
            opacity *= styles.opacity
            if has_rule("background"):
                text_background = background + styles.background.tint(styles.background_tint)
                background += styles.background.tint(styles.background_tint).multiply_alpha(opacity)
            else:
                text_background = background
            if has_rule("color"):
                color = styles.color
            style += styles.text_style
            if has_rule("auto_color") and styles.auto_color:
                color = text_background.get_contrast_text(color.a)
        style += Style.from_color(
            (background + color).rich_color if (background.a or color.a) else None,
            background.rich_color if background.a else None,
        )
        return style, background

    def _look(self, hovered: bool, disabled: bool) -> Look:
        """Everything a key's cells depend on: its styles (and the palette edge's)."""
        item = ["key-bar--item"]
        if hovered:
            item.append("key-bar--item-hover")
        if disabled:
            item.append("key-bar--item-disabled")
        key_style, _ = self._layered(*item, "key-bar--key")
        description_style, _ = self._layered(*item, "key-bar--description")
        base, background = self._layered(*item)
        edge, edge_color = self.get_component_styles("key-bar--palette").border_left
        _, beneath = self._layered()
        inside = Style.from_color(bgcolor=background.rich_color) if background.a else Style()
        edge_style = inside + Style.from_color((beneath + edge_color).rich_color)
        return (key_style, description_style, base, self.get_visual_style(*item),
                inside, "▏" if edge == "vkey" else " ", edge_style)

    def _key_strip(self, key: Key, look: Look) -> Strip:
        """One key as Textual's footer draws it (the palette's key with its edge); the same
        key in the same styles is drawn once (strips are immutable)."""
        drawn = Footer._drawn
        strip = drawn.get((key, look))
        if strip is None:
            if len(drawn) > 512:  # keys and styles of long ago (other themes, other screens)
                drawn.clear()
            strip = drawn[key, look] = self._draw_key(key, *look)
        return strip

    def _draw_key(self, key: Key, key_style: Style, description_style: Style, base: Style,
                  visual_style: VisualStyle, inside: Style, edge: str,
                  edge_style: Style) -> Strip:
        if key.palette:  # compact: no room around the key, one space before the description
            parts = [(key.display, key_style)]
            if key.description:
                parts.append((" " + key.description, description_style))
        elif key.description:
            parts = [(f" {key.display} ", key_style), (f"{key.description} ", description_style)]
        else:
            parts = [(key.display, key_style)]
        text = Text.assemble(*parts)
        text.stylize_before(base)
        visual: Visual = visualize(self, text)
        [strip] = Visual.to_strips(self, visual, text.cell_len, 1, visual_style)
        if not key.palette:
            return strip
        return Strip([Segment(edge, edge_style), *strip, Segment(" ", inside)])

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        _, background = self._layered()
        blank = Style.from_color(bgcolor=background.rich_color) if background.a else Style()
        self._spans = []
        if y or not self.keys:
            return Strip.blank(width, blank)
        looks: dict[tuple[bool, bool], Look] = {}
        strips = []
        for index, key in enumerate(self.keys):
            state = (index == self._hover, key.disabled)
            look = looks.get(state)
            if look is None:
                look = looks[state] = self._look(*state)
            strips.append(self._key_strip(key, look))
        palette = strips.pop() if self.keys[-1].palette else None
        room = max(0, width - (palette.cell_length if palette else 0))
        total = sum(strip.cell_length for strip in strips)
        self._overflow = max(0, total - room)
        self._scroll = min(self._scroll, self._overflow)
        x = -self._scroll
        hidden: set[int] = set()  # edges of keys under the palette's key
        for index, strip in enumerate(strips):
            start, x = x, x + strip.cell_length
            if x > 0 and start < room:
                self._spans.append((max(start, 0), min(x, room), index))
            hidden.update(edge - room for edge in (start, x) if room < edge < width)
        line = Strip.join(strips).crop(self._scroll, self._scroll + room)
        line = line.extend_cell_length(room, blank)
        if palette is not None:
            self._spans.append((room, room + palette.cell_length, len(strips)))
            # Textual's footer leaves its keys that do not fit under the palette's key, and
            # the screen splits the palette's cells where they end: split them the same way
            # (the picture is the same; a screenshot's identity is not otherwise)
            if hidden:
                palette = Strip.join(palette.divide(sorted(hidden) + [palette.cell_length]))
            line = Strip.join([line, palette])
        return line.crop(0, width)

    # -- the mouse -----------------------------------------------------------------------------
    def key_at(self, x: int) -> int | None:
        """The index in ``keys`` of the key drawn at column ``x``, None between keys."""
        for start, end, index in self._spans:
            if start <= x < end:
                return index
        return None

    def _set_hover(self, index: int | None) -> None:
        if index == self._hover:
            return
        self._hover = index
        key = self.keys[index] if index is not None and index < len(self.keys) else None
        self.tooltip = key.tooltip or None if key is not None else None
        self.refresh()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        self._set_hover(self.key_at(event.x))

    def on_leave(self, event: events.Leave) -> None:
        self._set_hover(None)

    def on_mouse_down(self, event: events.MouseDown) -> None:
        index = self.key_at(event.x)
        if index is None:
            return
        key = self.keys[index]
        if key.disabled:
            self.app.bell()
        else:
            self.app.simulate_key(key.key)

    def _scroll_by(self, cells: int, event: events.MouseEvent) -> None:
        before = self._scroll
        self._scroll = max(0, min(before + cells, self._overflow))
        if self._scroll != before:
            self._set_hover(None)
            self.refresh()
            event.stop()
            event.prevent_default()

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        self._scroll_by(max(1, int(self.app.scroll_sensitivity_x)), event)

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        self._scroll_by(-max(1, int(self.app.scroll_sensitivity_x)), event)

