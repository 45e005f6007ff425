"""The main screen's view as a saved session, and back: :func:`session_of` (on exit) and
:func:`restored` (on reopen). Pure functions; the app saves and loads the
:class:`~ditto_tui.corpus.review.SessionState` through the review store.
"""

from __future__ import annotations

from dataclasses import replace

from ditto_tui.corpus.review import SessionState
from ditto_tui.explore.view import SORT_KEYS
from ditto_tui.ui.screens.main.view_settings import ViewSettings

__all__ = ["restored", "restored_member_pattern", "session_of"]


def session_of(
    settings: ViewSettings, selected: str | None, member_pattern: str = ""
) -> SessionState:
    """The view as it is now, with the member last ``selected`` and the member filter
    (``member_pattern``), to be restored on reopen."""
    return SessionState(
        k=settings.k,
        mode=settings.mode,
        sort=settings.sort_key,
        filters={
            "pattern": settings.pattern,
            "singletons": settings.singletons,
            "unreviewed_only": settings.unreviewed_only,
            "member_pattern": member_pattern,
        },
        show_ignored=settings.show_ignored,
        selected=selected,
    )


def restored(state: SessionState, settings: ViewSettings) -> ViewSettings:
    """``settings`` with the sort, filters and ignored-shown flag of the saved ``state``;
    a value of an unknown kind (a sort key this version lacks, a filter of another type)
    keeps the current one. k and the grouping are the app's to choose (the command line
    wins over the session), so they are kept too."""
    sort_key = next((key for key in SORT_KEYS if state.sort == key), settings.sort_key)
    filters = state.filters
    pattern, singletons = filters.get("pattern"), filters.get("singletons")
    unreviewed_only = filters.get("unreviewed_only")
    return replace(
        settings,
        sort_key=sort_key,
        pattern=pattern if isinstance(pattern, str) else settings.pattern,
        singletons=singletons if isinstance(singletons, bool) else settings.singletons,
        unreviewed_only=(
            unreviewed_only if isinstance(unreviewed_only, bool) else settings.unreviewed_only
        ),
        show_ignored=bool(state.show_ignored),
    )


def restored_member_pattern(state: SessionState) -> str:
    """The member filter of the saved ``state`` ("" when there was none, or of a kind this
    version does not know)."""
    pattern = state.filters.get("member_pattern")
    return pattern if isinstance(pattern, str) else ""
