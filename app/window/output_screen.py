"""The screen the control window's live output goes fullscreen on.

:class:`OutputScreen` remembers it in the settings by identity (the name too, for a reader of
the file) and matches it against the screens connected now: the remembered one, or where it is
gone the fallback :func:`~app.preview.match_screen` chooses, with a note saying so.
"""

from __future__ import annotations

from app.preview import ScreenIdentity, ScreenMatch, ScreenRecord, match_screen, qscreen_of, screen_records


class OutputScreen:
    """The output screen as ``settings`` (``output_screen``, ``output_screen_id``) remember it."""

    def __init__(self, settings):
        self.settings = settings

    def identity(self) -> ScreenIdentity | None:
        """The output screen as remembered (None: the primary)."""
        return ScreenIdentity.from_settings(self.settings.output_screen_id, self.settings.output_screen)

    def match(self) -> ScreenMatch:
        """The connected screen the output goes to, and a note where it is not the remembered one."""
        return match_screen(screen_records(), self.identity())

    def record(self) -> ScreenRecord:
        """The connected screen the output goes to: the remembered one, or its fallback."""
        return self.match().screen

    def qscreen(self):
        return qscreen_of(self.record())

    def native_size(self) -> tuple[int, int]:
        return self.record().native_size

    def remember(self, screen: ScreenRecord) -> None:
        """Make ``screen`` the output's from now on (and in the settings stored on close)."""
        self.settings.output_screen, self.settings.output_screen_id = screen.name, screen.identity.to_dict()
