"""While a key waits for its frame, nothing else is let in front of it.

- No garbage collection runs between the key and its painted frame (then collections
  resume; cycles made meanwhile are collected).
- Excerpts read ahead (rows below the screen, the first rows at k±1) start only once the
  key's frame is painted; rows on screen without an excerpt are still read at once.
- The frame is drawn as soon as the widgets asked for it, not at the screen's next refresh
  tick.
- ``ditto_tui.ui.internals``: pausing and resuming collections come in pairs, nest, and
  turn the collector back on only if they turned it off.
"""

from __future__ import annotations

import asyncio
import gc
import threading
import weakref
from typing import Any

import textual.screen
from textual.screen import Screen

from ditto_tui.explore import MemorySource, view_builder
from ditto_tui.ui import internals
from ditto_tui.ui.app import DittoApp
from ditto_tui.ui.screens.main import excerpts as excerpts_module
from ditto_tui.ui.screens.main import frame_pacing
from tests.ui.conftest import wait_for
from tests.ui.test_one_frame import corpus, make_app, quiet


class Frames:
    """Counts the frames drawn (compositor refreshes), and which k each showed."""

    def __init__(self) -> None:
        self.drawn: list[int | None] = []
        self._original = Screen._compositor_refresh

    def __enter__(self) -> Frames:
        frames = self
        original = self._original

        def counted(screen: Screen) -> None:
            view = getattr(screen, "view", None)
            frames.drawn.append(view.request.k if view is not None else None)
            original(screen)

        Screen._compositor_refresh = counted  # type: ignore[method-assign, assignment]
        return self

    def __exit__(self, *exc: object) -> None:
        Screen._compositor_refresh = self._original  # type: ignore[method-assign]


class Garbage:
    """A cycle, to see that collections made after the key still find it."""

    def __init__(self) -> None:
        self.me = self


async def test_no_collection_runs_while_a_key_waits_for_its_frame(monkeypatch: Any) -> None:
    # the view thread makes enough objects per view to set off young collections
    build = view_builder.build_view
    cycles: list[weakref.ref] = []

    def allocating_build(*args: Any, **kwargs: Any) -> Any:
        junk = [[i] for i in range(5_000)]
        cycles.append(weakref.ref(Garbage()))
        del junk
        return build(*args, **kwargs)

    monkeypatch.setattr(view_builder, "build_view", allocating_build)
    app = make_app(k=3)
    async with app.run_test(size=(120, 40)) as pilot:
        await quiet(pilot)
        pending = threading.Event()
        target = [3]  # the k of the view that answers the key
        during: list[int] = []

        def watch(phase: str, info: dict) -> None:
            if phase == "start" and pending.is_set():
                during.append(info["generation"])

        gc.callbacks.append(watch)
        original = Screen._compositor_refresh

        def drawn(self: Screen) -> None:
            original(self)
            view = getattr(self, "view", None)
            if view is not None and view.request.k == target[0]:
                pending.clear()  # the key's answer is painted

        Screen._compositor_refresh = drawn  # type: ignore[method-assign, assignment]
        try:
            for key, k in [("right_square_bracket", 4), ("left_square_bracket", 3)] * 3:
                target[0] = k
                pending.set()
                await pilot.press(key)
                await wait_for(pilot, lambda: not pending.is_set(), timeout=5)
                await quiet(pilot)
        finally:
            Screen._compositor_refresh = original  # type: ignore[method-assign]
            gc.callbacks.remove(watch)
        assert len(cycles) >= 6  # (every view was built by the allocating builder)
        assert during == []
        # afterwards the collector runs again, and finds what was left meanwhile
        assert gc.isenabled()
        for _ in range(3):
            [[i] for i in range(5_000)]
        gc.collect(1)  # (what survived young collections is in the middle generation)
        assert all(ref() is None for ref in cycles)


async def test_collections_resume_when_keys_keep_frames_waiting(monkeypatch: Any) -> None:
    monkeypatch.setattr(internals, "COLLECTION_PAUSE_MAX_S", 0.2)
    monkeypatch.setattr(frame_pacing, "HOLD_FRAMES_S", 30.0)  # frames wait for the view...
    app = make_app(k=3)
    async with app.run_test(size=(120, 40)) as pilot:
        await quiet(pilot)
        screen = app.main_screen
        screen.explorer.request_view = lambda request: None  # type: ignore[method-assign]
        await pilot.press("right_square_bracket")  # ...which never comes
        assert internals.collections_paused() and not gc.isenabled()
        await asyncio.sleep(0.4)
        await pilot.pause()
        assert app._batch_count == 1  # (still waiting)
        assert not internals.collections_paused() and gc.isenabled()


def _fingerprints() -> dict[str, int]:
    """Families from ``corpus()``, one that exists from k=4 (d) and the largest one, from
    k=5 (e: e2, e3 and e4 are each 5 bits from e1). Read ahead from k=3 are the first rows
    at k=2 and k=4 (the neighbours), not those at k=5."""
    d = 0x0F0F_0F0F_0F0F_0F0F
    e = 0x3C3C_3C3C_3C3C_3C3C
    return corpus() | {
        "d1.txt": d,
        "d2.txt": d ^ 0b1111,
        "e1.txt": e,
        "e2.txt": e ^ 0b11111,
        "e3.txt": e ^ (0b11111 << 20),
        "e4.txt": e ^ (0b11111 << 40),
    }


E_FAMILY = ("e1.txt", "e2.txt", "e3.txt", "e4.txt")


async def test_excerpts_read_ahead_wait_for_the_keys_frame(monkeypatch: Any) -> None:
    monkeypatch.setattr(excerpts_module, "NEIGHBOUR_EXCERPT_ROWS", 3)  # (k=4: b, a and d)
    fps = _fingerprints()
    texts = {doc: f"text of {doc}" for doc in fps}
    app = DittoApp(MemorySource(fps, texts=texts), watch=False, max_k=8, k=3)
    async with app.run_test(size=(120, 40)) as pilot:
        await quiet(pilot)
        await wait_for(
            pilot, lambda: all(app.snapshot.listing(k, "chain") is not None for k in range(9))
        )
        await quiet(pilot)
        screen = app.main_screen
        assert not any(doc in screen.excerpt_reader.excerpts for doc in E_FAMILY)
        with Frames() as frames:
            started: list[tuple[list[str], int]] = []
            load = screen.excerpt_reader.load

            def loading(missing: list[str], first: int = 0) -> Any:
                started.append((list(missing), len(frames.drawn)))
                return load(missing, first)

            screen.excerpt_reader.load = loading  # type: ignore[method-assign]
            await pilot.press("right_square_bracket")
            await wait_for(pilot, lambda: bool(started))
            await quiet(pilot)
        (missing, drawn_before), *_ = started
        assert any(doc in missing for doc in E_FAMILY)  # k=5's first row
        assert 4 in frames.drawn[:drawn_before]  # after the frame of k=4, not before
        assert any(doc in screen.excerpt_reader.excerpts for doc in E_FAMILY)


async def test_the_keys_frame_does_not_wait_for_the_refresh_tick(monkeypatch: Any) -> None:
    # the screen's refresh timer ticks once an hour: only a frame drawn on request shows
    monkeypatch.setattr(textual.screen, "UPDATE_PERIOD", 3600.0)
    app = make_app(k=3)
    async with app.run_test(size=(120, 40)) as pilot:
        await quiet(pilot)
        screen = app.main_screen
        with Frames() as frames:
            await pilot.press("right_square_bracket")
            # (waiting without the pilot's pause, which draws a frame itself)
            for _ in range(300):
                if 4 in frames.drawn:
                    break
                await asyncio.sleep(0.01)
        assert screen.view is not None and screen.view.request.k == 4
        assert 4 in frames.drawn


def test_urgency_nests_and_puts_back_what_it_changed() -> None:
    assert not internals.collections_paused() and gc.isenabled()
    internals.pause_collections()
    internals.pause_collections()
    assert internals.collections_paused() and not gc.isenabled()
    internals.resume_collections()
    assert internals.collections_paused() and not gc.isenabled()  # (one is still waiting)
    internals.resume_collections()
    assert not internals.collections_paused() and gc.isenabled()
    internals.resume_collections()  # (an end too many changes nothing)
    assert gc.isenabled() and not internals.collections_paused()


def test_urgency_leaves_a_collector_its_caller_disabled_off() -> None:
    gc.disable()
    try:
        internals.pause_collections()
        internals.resume_collections()
        assert not gc.isenabled()
    finally:
        gc.enable()
