"""What the main screen says about its state, as pure functions of that state: the status
line (:func:`status_of`), the view options beside the k chart (:func:`view_options`), the
review progress, and what the family list says when it is empty (:func:`empty_message`).

Nothing here reads a widget or the disk; each function is O(1) in the corpus (counts the
view and the snapshot already hold), so the screen calls them on every change.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ditto_tui.core.fingerprint.pipeline import Pipeline
from ditto_tui.corpus.documents import Skipped, options_summary
from ditto_tui.explore.review import ReviewState
from ditto_tui.explore.snapshot import Snapshot
from ditto_tui.explore.source import CorpusSource, HasOptions
from ditto_tui.explore.view import FamilyView
from ditto_tui.ui.fit import Part
from ditto_tui.ui.screens.main.view_settings import ViewSettings
from ditto_tui.ui.widgets.status_bar import Status

__all__ = [
    "LOADING",
    "LOADING_STATE",
    "NO_FAMILIES",
    "empty_message",
    "no_documents_message",
    "review_progress",
    "status_of",
    "view_options",
]

NO_FAMILIES = "No families (press 1 to show singletons, ] to raise k)"
LOADING = "Loading…"
#: what the status line says instead of the watch state until the whole corpus is shown
LOADING_STATE = "loading"


def view_complete(view: FamilyView | None, snapshot: Snapshot) -> bool:
    """Whether ``view`` shows the whole corpus of ``snapshot``'s source: built after its
    first scan ended (an older source's view does not count). Until then no count or
    empty list on screen is final."""
    return view is not None and view.complete and view.epoch == snapshot.epoch


def status_of(
    *,
    root: str,
    snapshot: Snapshot,
    view: FamilyView | None,
    settings: ViewSettings,
    watch: str,
    source: CorpusSource,
    review: ReviewState,
    marked: int = 0,
    read_only: bool = False,
) -> Status:
    """The status line for ``view`` (None: none shown yet) of ``snapshot``, with the
    families shown out of all when a filter is set, the singletons shown when they are on,
    the corpus ``source``'s pipeline and scan options, the ``review`` progress (said
    ``read-only`` for a session that records nothing) and how many documents are
    ``marked`` in the selected family.

    The ``watch`` state shows once the view of the whole corpus is there; before that
    (a scan ended, its view not built yet) the line says ``loading``, never ``watching``
    beside a count that is not final."""
    if watch != "scanning" and not view_complete(view, snapshot):
        watch = LOADING_STATE
    shown_multi = singles = None
    if view is not None:
        shown_multi = view.shown_multi if view.shown_multi >= 0 else len(view)
        if settings.singletons:
            singles = len(view) - shown_multi
    return Status(
        root=root,
        documents=len(snapshot),
        skipped=len(snapshot.skipped),
        families=view.multi if view is not None else 0,
        shown_families=shown_multi if view is not None and settings.pattern else None,
        singles=singles,
        k=settings.k,
        mode=settings.mode,
        watch=watch,
        pipeline=source.pipeline.identity,
        review=" · ".join(filter(None, [review_progress(review, view),
                                         "read-only" if read_only else ""])),
        options=options_summary(source.options) if isinstance(source, HasOptions) else "",
        marked=marked,
    )


def view_options(settings: ViewSettings) -> list[Part]:
    """The view options line (sort, singletons, the review's filters), fitted to its cells
    by priority: the states that filter stay, "sort:" and the singletons' word go first.
    (The marks are counted on the status line, which is there at every width.)"""
    sort_key, singletons = settings.sort_key, settings.singletons
    options = [
        Part(f"sort: {sort_key}", 2, short=sort_key),
        Part("singletons " + ("on" if singletons else "off"), 3,
             short="1: " + ("on" if singletons else "off"), sep=" · "),
    ]
    if settings.unreviewed_only:
        options.append(Part("unreviewed only", 0, short="unreviewed", sep=" · "))
    if settings.show_ignored:
        options.append(Part("ignored shown", 0, short="+ignored", sep=" · "))
    return options


def review_progress(review: ReviewState, view: FamilyView | None) -> str:
    """"312 of 601 reviewed" for the status line ("" without a review store, or before the
    view has counted)."""
    if not review.active or view is None or view.reviewed is None:
        return ""
    return f"{view.reviewed:,} of {view.reviewable:,} reviewed"


def empty_message(
    settings: ViewSettings,
    snapshot: Snapshot,
    *,
    scanning: bool,
    source: CorpusSource,
    can_switch: Callable[[], bool],
    view: FamilyView | None = None,
) -> str:
    """What the family list says when ``view`` is empty: why nothing matches the filter,
    that the corpus is still loading (a scan runs, or ``view`` is not of the whole corpus
    yet: :func:`view_complete`), how to see more families, or why the corpus has no
    document (:func:`no_documents_message`; ``can_switch`` is asked only then)."""
    pattern = settings.pattern
    loading = scanning or not view_complete(view, snapshot)
    if pattern.strip() and len(snapshot):
        # short lines: the pane is about 38 columns wide at 80
        lines = [f"No family matches {pattern.strip()!r}."]
        if loading:
            lines.append(f"Still {'scanning' if scanning else 'loading'}: more may match.")
        if not settings.singletons:
            lines.append("Singletons hidden: 1 shows them.")
        lines.append("Clear the filter: / then ctrl+u.")
        return "\n".join(lines)
    if loading:
        return LOADING  # families may still appear: nothing is known to be empty yet
    if len(snapshot):
        return NO_FAMILIES
    return no_documents_message(
        snapshot.skipped,
        pipeline=source.pipeline,
        can_switch=can_switch(),
    )


def no_documents_message(
    skipped: Sequence[Skipped], *, pipeline: Pipeline, can_switch: bool
) -> str:
    """What the family list says when the scan found no document, for the situation: an
    empty folder; files that only the other pipeline reads (p switches); files all skipped
    for other reasons (! lists them with the reason)."""
    identity = pipeline.identity
    if not skipped:
        return f"No documents for {identity}: the folder holds no file."
    count = len(skipped)
    files = f"{count:,} file{'' if count == 1 else 's'}"
    refused = sum(1 for s in skipped if str(s.reason).startswith("not accepted by"))
    lines = [f"No documents for {identity}: {files} skipped."]
    if refused == count:
        name = pipeline.name
        lines.append(f"The {name} pipeline does not read {'it' if count == 1 else 'them'}.")
        if can_switch:
            lines.append("Press p to switch to the other pipeline.")
        lines.append("Press ! to see the files and why.")
    else:
        lines.append("Press ! to see why each was skipped.")
        if refused and can_switch:
            lines.append(f"{refused:,} only another pipeline reads: p switches.")
    return "\n".join(lines)
