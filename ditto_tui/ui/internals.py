"""Everything in ``ui/`` that changes process-wide state or touches Textual's private
attributes, in one place: each item with its reason and the benchmark that measures it.
Nothing else in ``ui/`` does either; a Textual upgrade is checked against this module.

Process-wide state
------------------
- **The garbage collector waits while a key waits for its frame** (:func:`pause_collections`,
  :func:`resume_collections`). A key that asks for a new view (k, filter, sort...) is
  answered by the view thread, then drawn in one frame of 10-30 ms of Python on the UI
  thread. A frame allocates thousands of objects (strips, segments, styles), so at
  100,000 documents 6-9 young collections and often a middle one ran inside every step:
  1.1-1.4 ms of UI-thread CPU in the median, up to 6.6 ms; a middle collection alone
  2-4 ms (4-14 ms of wall time when the thread was preempted inside it). They are put off
  until the frame is painted; the young objects are then collected at the next
  allocation, in one go. (No full collection ran in those loops: the corpus is frozen
  when it settles.) Benchmark: ``benchmarks/bench_ui.py``, ``k_step_100k_p50_ms`` /
  ``_p99_ms`` and ``filter_key_100k_*`` (its key loops, per step). The app sets Textual's
  own ``PAUSE_GC_ON_SCROLL`` off so that the collector has one owner.
- **Textual's memo of widget backgrounds is emptied when an app ends**
  (:func:`release_drawn_lines`): ``textual._styles_cache.StylesCache.get_inner_outer``,
  a class-level ``lru_cache`` of 1,024 entries keyed by a widget's line cache, keeps that
  many line caches alive, with every line they hold, after their widgets are gone: about
  5,000 strips per app run. An app started after this one (tests, benchmarks, the
  command line running several) would carry them, and each full garbage collection
  walks them. Benchmark: ``benchmarks/bench_ui.py`` runs several apps in one process
  (``first_paint_100k_docs`` three times, then the key loops); the test
  ``test_an_app_that_exits_leaves_no_drawn_lines_behind`` checks the memo is empty.

Textual's private attributes
----------------------------
- ``App._batch_count``, ``Screen._dirty_widgets``, ``Screen._layout_required``,
  ``Screen._repaint_required`` (read by :func:`frame_waiting`) and
  ``Screen._on_timer_update()`` (called by :func:`draw_frame`): the frame answering a key
  is drawn as soon as its widgets have asked for their repaint, not at the screen's next
  refresh tick. Textual paces frames at 60 per second, and after a frame that took longer
  than a tick its next tick comes one to two ticks later: a key answered just then waited
  up to 30 ms more for its frame. :func:`draw_frame` is the method the tick calls, called
  at once. Benchmark: ``benchmarks/bench_ui.py``, ``k_step_100k_p99_ms`` and
  ``filter_key_100k_p99_ms``.
- ``Widget._vertical_scrollbar`` and ``App._start_widget()`` (:func:`own_vertical_scrollbar`),
  ``Widget._refresh_scrollbars()`` (:func:`refresh_scrollbars`): a list's vertical bar is
  a :class:`~ditto_tui.ui.widgets.scrollbar.SteadyScrollBar`, built and started as
  Textual builds its own, and a new row count updates it without Textual's unconditional
  repaint of the bar (1.7-2 ms of every filter key's and k step's frame at 100,000
  documents). Benchmark: ``benchmarks/bench_ui.py``, ``k_step_100k_*`` and
  ``filter_key_100k_*``.
- ``Tree._invalidate()`` (:func:`redraw_tree_lines`) and ``Tree._tree_lines``
  (:func:`number_tree_lines`): the family tree relabels its lines when their nodes are
  rebound or one is chosen, and needs a node's line number right after opening its
  ancestors; Textual's ``Tree`` has no public way to do either. For correctness, not
  speed: no benchmark.
"""

from __future__ import annotations

import gc
import threading
from typing import Any

from textual.screen import Screen
from textual.scrollbar import ScrollBar
from textual.widget import Widget
from textual.widgets import Tree

__all__ = [
    "COLLECTION_PAUSE_MAX_S",
    "collections_paused",
    "draw_frame",
    "frame_waiting",
    "number_tree_lines",
    "own_vertical_scrollbar",
    "pause_collections",
    "redraw_tree_lines",
    "refresh_scrollbars",
    "release_drawn_lines",
    "resume_collections",
]

# -- the garbage collector ------------------------------------------------------------------

#: a key's pause of the collector ends at the latest this long after it began (the caller
#: that paused sets a timer for it; read at each pause, so tests may change it)
COLLECTION_PAUSE_MAX_S = 0.5

_lock = threading.Lock()
_depth = 0
_disabled_gc = False  # whether pause_collections() turned the collector off


def pause_collections() -> None:
    """A key waits for its frame: no collection until the matching :func:`resume_collections`.

    Pauses nest (counted, thread-safe); a caller that paused resumes, on every path (the
    main screen does so after the frame, on unmount, on suspend and at the latest after
    :data:`COLLECTION_PAUSE_MAX_S`)."""
    global _depth, _disabled_gc
    with _lock:
        _depth += 1
        if _depth == 1:
            _disabled_gc = gc.isenabled()
            if _disabled_gc:
                gc.disable()


def resume_collections() -> None:
    """The frame is painted (or the wait is over): the collector is back on once no one
    else waits, and only if :func:`pause_collections` turned it off (a collector its
    caller had disabled stays off). A resume without a pause changes nothing."""
    global _depth, _disabled_gc
    with _lock:
        if _depth == 0:
            return
        _depth -= 1
        if _depth == 0 and _disabled_gc:
            _disabled_gc = False
            gc.enable()


def collections_paused() -> bool:
    """Whether some key is waiting for its frame (the collector paused for it)."""
    return _depth > 0


def release_drawn_lines() -> None:
    """Let go of the lines Textual keeps drawn for widgets that are gone (call when an app
    has ended: the memo is shared by every app of the process)."""
    from textual._styles_cache import StylesCache

    StylesCache.get_inner_outer.cache_clear()


# -- drawing a frame now ----------------------------------------------------------------------


def frame_waiting(screen: Screen[Any]) -> bool:
    """Whether ``screen`` has something to draw (a layout, a repaint, dirty widgets) and
    no batch update holds the app's frames."""
    return not screen.app._batch_count and bool(
        screen._dirty_widgets or screen._layout_required or screen._repaint_required
    )


def draw_frame(screen: Screen[Any]) -> None:
    """Draw ``screen``'s next frame now, exactly as its refresh tick would."""
    screen._on_timer_update()


# -- widgets ----------------------------------------------------------------------------------


def own_vertical_scrollbar(widget: Widget, make: type[ScrollBar]) -> ScrollBar:
    """``widget``'s vertical scroll bar, made by ``make`` (a :class:`ScrollBar` subclass)
    the first time, hidden and started as Textual's ``Widget.vertical_scrollbar`` does."""
    bar = widget._vertical_scrollbar
    if bar is None:
        bar = make(vertical=True, name="vertical", thickness=widget.scrollbar_size_vertical)
        widget._vertical_scrollbar = bar
        bar.display = False
        widget.app._start_widget(widget, bar)
    return bar


def refresh_scrollbars(widget: Widget) -> None:
    """Show or hide ``widget``'s scroll bars for its current virtual size."""
    widget._refresh_scrollbars()


def redraw_tree_lines(tree: Tree[Any]) -> None:
    """Forget ``tree``'s drawn lines and labels (their data changed) and repaint it."""
    tree._invalidate()


def number_tree_lines(tree: Tree[Any]) -> None:
    """Give every shown node of ``tree`` its line number (``TreeNode.line``) now."""
    tree._tree_lines  # noqa: B018 (the property builds the lines)
