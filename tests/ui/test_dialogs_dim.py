"""A dialog dims the screen behind it: what is being confirmed stays in view. (Help is a
page of its own: opaque, so that opening it draws only its lines.)"""

from __future__ import annotations

from ditto_tui.ui.screens.actions import ConfirmScreen

from .conftest import settle


async def test_confirmations_keep_the_screen_behind_in_view(corpus_dir, make_app):
    app = make_app(corpus_dir)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        behind = app.screen
        for dialog in (ConfirmScreen("Move 3 files to the trash?"), ConfirmScreen("Undo?")):
            await app.push_screen(dialog)
            await pilot.pause()
            assert app.screen is dialog
            assert dialog.styles.background.a < 1, type(dialog).__name__
            # the compositor draws the screen below a see-through dialog
            assert behind in app.screen_stack and app.screen_stack[-2] is behind
            app.pop_screen()
            await pilot.pause()
