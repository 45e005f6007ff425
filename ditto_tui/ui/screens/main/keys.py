"""The main screen's key map: every key, the action it runs and the words the footer,
the help screen (``?``) and the command palette (ctrl+p) show for it.

Actions without a prefix are the main screen's (``action_<name>``; ``toggle('name')`` is
Textual's, flipping the screen's reactive ``name``); ``app.`` ones the app's. A binding's ``tooltip`` is its line in the help screen and the palette, so each
says what the key does for the user; ``show=False`` keeps it out of the footer.
"""

from __future__ import annotations

from textual.binding import Binding, BindingType

__all__ = ["MAIN_KEYS"]

MAIN_KEYS: list[BindingType] = [
    Binding(
        "left_square_bracket,minus",
        "k_down",
        "k−",
        tooltip="lower the distance threshold k (families re-cluster)",
        key_display="[",
    ),
    Binding(
        "right_square_bracket,plus,equals_sign",
        "k_up",
        "k+",
        tooltip="raise the distance threshold k",
        key_display="]",
    ),
    Binding(
        "slash,ctrl+f",
        "filter",
        "Filter",
        tooltip="filter families by a member path (substring or glob); enter/esc returns",
        key_display="/",
    ),
    Binding(
        "s",
        "cycle_sort",
        "Sort",
        tooltip="sort families by size, diameter, name, newest change (cycles)",
    ),
    Binding(
        "g",
        "toggle_mode",
        "Chain/star",
        tooltip="group as chains (ditto's clusters) or stars around a centre",
    ),
    Binding(
        "t",
        "toggle_tree",
        "Tree",
        tooltip="open or close the family tree beside the members: the family at k and its "
        "sub-families at each lower k where it splits; enter on a node shows only its "
        "members (esc: all)",
    ),
    Binding(
        "1",
        "toggle('singletons')",
        "Singletons",
        tooltip="show or hide documents that have no near duplicate",
    ),
    Binding(
        "space",
        "mark",
        "Mark",
        tooltip="mark/unmark the highlighted member for comparison (two at most); marks act "
        "in the family they were made in, the status line counts them",
        show=False,
    ),
    Binding(
        "M",
        "clear_marks",
        "Clear marks",
        tooltip="clear the marks of this family (esc in the member list too)",
        show=False,
    ),
    Binding(
        "c",
        "compare",
        "Compare",
        tooltip="compare the two marked documents of this family (unmarked: the representative "
        "and the highlighted member)",
    ),
    Binding(
        "a",
        "compare_any",
        "Compare with…",
        tooltip="compare the highlighted document with any document (fuzzy picker)",
    ),
    Binding(
        "n",
        "neighbours",
        "Neighbours",
        tooltip="every document within k bits of the highlighted one",
    ),
    Binding(
        "h",
        "toggle_source",
        "HTML text/source",
        tooltip="show HTML as readable text or as source",
        show=False,
    ),
    Binding(
        "l",
        "chain_path",
        "Links",
        tooltip="how the member is linked to the representative",
        show=False,
    ),
    Binding("e", "open_external('EDITOR')", "Edit", tooltip="open the document in $EDITOR", show=False),
    Binding("v", "open_external('PAGER')", "Pager", tooltip="open the document in $PAGER", show=False),
    Binding(
        "y",
        "copy_path",
        "Copy path",
        tooltip="copy the document's path to the clipboard",
        show=False,
    ),
    Binding(
        "x,ctrl+s",
        "export",
        "Export",
        tooltip="write the families as shown to CSV, JSON lines or an HTML report",
    ),
    Binding(
        "w,f6",
        "app.toggle_watch",
        "Watch on/off",
        tooltip="pause or resume following changes on disk",
        key_display="w",
    ),
    Binding("f5", "app.rescan", "Rescan", tooltip="scan the folder again", show=False),
    Binding(
        "exclamation_mark,f2",
        "app.show_skipped",
        "Skipped files",
        tooltip="list the files that are not documents, with the reason",
        show=False,
        key_display="!",
    ),
    Binding(
        "p",
        "app.switch_pipeline",
        "Switch pipeline",
        tooltip="re-index with the other pipeline: ditto <-> html",
        show=False,
    ),
    Binding(
        "o",
        "app.scan_options",
        "Scan options",
        tooltip="minimum size, empty files, symbolic links, HTML by content or every file (rescans)",
        show=False,
    ),
    Binding(
        "L,f3",
        "app.show_log",
        "Notices",
        tooltip="the notices of this session (cache, watching, scan problems)",
        show=False,
        key_display="L",
    ),
    Binding(
        "escape",
        "leave_filter",
        "Back to list",
        tooltip="leave the filter box; in the member list: clear the marks, else show all "
        "the members of the tree again",
        show=False,
    ),
    # -- review ----------------------------------------------------------------------
    Binding("k", "decide('keep')", "Keep", tooltip="decide: keep the highlighted document (again: clear)"),
    Binding(
        "d",
        "decide('duplicate')",
        "Duplicate",
        tooltip="decide: the highlighted document is a duplicate to act on (again: clear)",
    ),
    Binding(
        "N",
        "decide('not-duplicate')",
        "Not a duplicate",
        tooltip="decide: the highlighted document is not a duplicate (again: clear)",
        show=False,
    ),
    Binding(
        "D",
        "clear_decisions",
        "Clear decisions",
        tooltip="clear every decision (keep, duplicate, not a duplicate) in the selected family",
        show=False,
    ),
    Binding("r", "family_reviewed", "Reviewed", tooltip="mark the selected family reviewed (again: unmark)"),
    Binding(
        "i",
        "ignore_family",
        "Ignore family",
        tooltip="this family is fine: hide it from the list and the progress (again: unignore)",
        show=False,
    ),
    Binding(
        "I",
        "ignore_pair",
        "Not duplicates",
        tooltip="these two are not duplicates: the two marked documents, else the highlighted "
        "one and the representative; families re-form without that link (again: unignore)",
        show=False,
    ),
    Binding("R", "keep_rules", "Keep rules", tooltip="keep rules and bulk marking, with a preview"),
    Binding(
        "A",
        "actions",
        "Act",
        tooltip="act on the documents decided duplicate: trash, quarantine, hard link, "
        "removal list (dry run first)",
    ),
    Binding("u", "undo", "Undo", tooltip="undo the last action (asks first)", show=False),
    Binding(
        "U",
        "toggle('unreviewed_only')",
        "Unreviewed only",
        tooltip="show only the families not marked reviewed (toggle)",
        show=False,
    ),
    Binding(
        "f4",
        "toggle('show_ignored')",
        "Show ignored",
        tooltip="show ignored families and pairs again (toggle)",
        show=False,
    ),
]
