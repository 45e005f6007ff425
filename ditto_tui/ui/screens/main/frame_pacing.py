"""FramePacer: a key that asks the main screen for a new view is answered in one frame.

A key (k, filter, sort...) asks the explorer's view thread for a view. Without pacing,
the key's own changes (the k slider, "clustering…") would be drawn in one frame and its
answer (status line, families, members, preview) in the next. So:

1. :meth:`FramePacer.hold` (the key): the app's frames wait (a batch update), for the
   view, for at most :data:`HOLD_FRAMES_S`; and the garbage collector waits
   (:func:`~ditto_tui.ui.internals.pause_collections`) until the key's frame is painted,
   for at most ``internals.COLLECTION_PAUSE_MAX_S``.
2. The view arrives and the screen shows it, then :meth:`FramePacer.release_after_view`:
   frames resume once the changed widgets have asked for their repaint, or, when rows on
   screen still miss their excerpt, once :meth:`FramePacer.rows_read` says they have
   them (within the same time limit). Too late, ``view_is_late`` runs (it draws
   "clustering…") and frames resume.
3. The released frame is drawn at once, not at the next refresh tick
   (:meth:`FramePacer.paint_on_idle`, from the screen's idle handler).
4. Once that frame is painted and no other key came for :data:`KEYS_SETTLE_S` (a held
   key's repeats are answered back to back, with nothing else running between them),
   collections resume and ``after_key`` runs (the screen reads the excerpts it put off
   meanwhile); ``after_key`` runs too when the collector's time limit ends a wait that
   holds no frame.

Timers and callbacks run on the screen's message loop (the UI thread); nothing here is
thread-safe or costs more than O(1). The screen calls :meth:`FramePacer.stop` on unmount
and on suspend: no frame stays held and the collector is never left paused.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from textual import events
from textual.screen import Screen
from textual.timer import Timer

from ditto_tui.ui import internals

__all__ = ["HOLD_FRAMES_S", "KEYS_SETTLE_S", "FramePacer"]

#: After a key that asks for a new view, frames wait (at most this long) for that view, so
#: that the k slider, status line, family list, members and preview change in one frame
#: instead of one frame for the key and another for its answer.
HOLD_FRAMES_S = 0.05

#: After a key's frame is painted, the work put off for it (reading ahead, collections)
#: waits this long for another key: a held key repeats every 25-50 ms, and work started
#: between two repeats would take turns with the next frame for the GIL.
KEYS_SETTLE_S = 0.1


class FramePacer:
    """Frame pacing for the keys of ``screen`` (see the module docstring).

    ``view_is_late`` runs when frames have waited :data:`HOLD_FRAMES_S` for the view (just
    before they resume); ``after_key`` once a key's frame is painted, or when the
    collector's time limit ends a key's wait that holds no frame."""

    def __init__(
        self,
        screen: Screen[Any],
        *,
        view_is_late: Callable[[], None],
        after_key: Callable[[], None],
    ) -> None:
        self._screen = screen
        self._view_is_late = view_is_late
        self._after_key = after_key
        self._held: AbstractContextManager[None] | None = None  # the app's batch update
        self._hold_timer: Timer | None = None
        self._awaiting_rows = False  # frames held until the rows on screen have excerpts
        self._urgent = False  # a key waits for its frame (the collector is paused)
        self._urgent_timer: Timer | None = None
        self._settle_timer: Timer | None = None  # the key's frame is painted: more keys?
        self._paint_now = False  # the frames held for a key were released: draw at once

    @property
    def holding(self) -> bool:
        """Whether frames wait for a view (a key's answer)."""
        return self._held is not None

    @property
    def urgent(self) -> bool:
        """Whether a key waits for its frame, or its frame was painted less than
        :data:`KEYS_SETTLE_S` ago: work that can wait (reading ahead, a large family's
        rows) waits."""
        return self._urgent

    def hold(self) -> None:
        """Paint nothing until the view asked for is shown, for at most HOLD_FRAMES_S (then
        the pending state shows: the new k, "clustering…"). Nothing when frames are held
        already or the screen is not the one on top."""
        screen = self._screen
        if self._held is not None or not screen.is_current:
            return
        self._stop_settling()
        held = screen.app.batch_update()
        held.__enter__()
        self._held = held
        self._hold_timer = screen.set_timer(HOLD_FRAMES_S, self._late)
        if not self._urgent:
            internals.pause_collections()
            self._urgent = True
            self._urgent_timer = screen.set_timer(
                internals.COLLECTION_PAUSE_MAX_S, self._urgency_expired
            )

    def release_after_view(self, rows_missing: bool) -> None:
        """The view asked for is shown: frames resume once the widgets it changed have
        asked for their repaint (their message loops run first: all of them in the next
        frame, none in a later one). With ``rows_missing`` (rows on screen without their
        excerpt) while frames are held, they resume when :meth:`rows_read` says so
        (usually a few milliseconds), or at the hold's time limit, whichever is first."""
        if rows_missing and self._held is not None:
            self._awaiting_rows = True
            return
        asyncio.get_running_loop().call_soon(self.release)

    def rows_read(self) -> None:
        """Excerpts were read: if frames waited for the rows on screen, draw them."""
        if self._awaiting_rows:
            self._awaiting_rows = False
            asyncio.get_running_loop().call_soon(self.release)

    def release(self) -> None:
        """Frames resume now (drawn at once: :meth:`paint_on_idle`)."""
        self._awaiting_rows = False
        held, self._held = self._held, None
        timer, self._hold_timer = self._hold_timer, None
        if timer is not None:
            timer.stop()
        if held is not None:
            self._paint_now = True
            held.__exit__(None, None, None)
        if self._urgent:  # (after the frame drawn now: see _after_key_frame)
            self._screen.call_after_refresh(self._after_key_frame)

    def stop(self) -> None:
        """The screen goes (unmount) or another covers it (suspend): the collector resumes
        and held frames are released."""
        self._end_urgent()
        self.release()

    def paint_on_idle(self, event: events.Idle) -> None:
        """The frame that answers a key is drawn as soon as the widgets have asked for
        their repaint, not at the screen's next refresh tick (see
        :mod:`ditto_tui.ui.internals`). Call from the screen's idle handler: when it draws,
        ``event``'s default (Textual's own idle handling) is prevented."""
        screen = self._screen
        if self._paint_now and screen.is_current and internals.frame_waiting(screen):
            self._paint_now = False
            event.prevent_default()
            internals.draw_frame(screen)

    def _late(self) -> None:
        """The frames held for a view wait no longer: the screen draws what is pending."""
        self._view_is_late()
        self.release()

    def _after_key_frame(self) -> None:
        """The frame answering a key is painted: once no other key came for
        :data:`KEYS_SETTLE_S`, garbage collections resume and the work put off during the
        key runs (a reader started earlier would have taken turns with the frame for the
        GIL)."""
        if self._held is not None:  # (another key waits already: its frame ends this)
            return
        self._paint_now = False
        self._stop_settling()
        self._settle_timer = self._screen.set_timer(KEYS_SETTLE_S, self._keys_settled)

    def _keys_settled(self) -> None:
        self._settle_timer = None
        if self._held is not None:
            return
        self._end_urgent()
        self._after_key()

    def _stop_settling(self) -> None:
        timer, self._settle_timer = self._settle_timer, None
        if timer is not None:
            timer.stop()

    def _urgency_expired(self) -> None:
        """Keys have kept frames waiting for COLLECTION_PAUSE_MAX_S: collections resume
        even while keys keep coming (the next key begins anew)."""
        self._urgent_timer = None
        self._end_urgent()
        if self._held is None:
            self._after_key()

    def _end_urgent(self) -> None:
        self._stop_settling()
        timer, self._urgent_timer = self._urgent_timer, None
        if timer is not None:
            timer.stop()
        if self._urgent:
            self._urgent = False
            internals.resume_collections()
