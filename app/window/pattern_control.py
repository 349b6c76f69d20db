"""The pattern on screen as the control window's catalog, parameter editor and frame settings say.

:class:`PatternControl` builds specs in the frame settings' one
:class:`~core.patterns.FrameFormat` (:meth:`~app.window.param_editor.FrameSettings.frame_format`:
the frame size, bit depth, range, counter overlay and the session's transfer; the format's
rule leaves the overlay off the counter pattern): a pattern chosen in the catalog, the
editor's values; it shows them through the output session and shows a refusal where it was
made (the editor, the status bar).  The window keeps the spec on screen (``spec``, set when the
session says it showed one); its first spec is the format's
(:meth:`~core.patterns.FrameFormat.start_spec`) or the one ``testcard gui`` built.
"""

from __future__ import annotations

from collections.abc import Callable

from app.window.settings_store import jsonable
from core.patterns import FrameFormat, Spec, get_pattern


def frame_format_of(frame_settings) -> FrameFormat | None:
    """``frame_settings`` as a :class:`~core.patterns.FrameFormat` (None while their depth and
    range cannot go together)."""
    try:
        return frame_settings.frame_format()
    except ValueError:
        return None


class PatternControl:
    """Specs from ``catalog``, ``editor`` (a :class:`~app.window.param_editor.ParamEditor`) and
    ``frame_settings``, with the parameters ``settings`` stores per pattern, shown by ``session``
    (an :class:`~app.preview.OutputSession`).  ``spec`` gives the spec on screen; ``notice``
    takes a sentence for the operator (``log=False``: the status bar only)."""

    def __init__(self, *, catalog, editor, frame_settings, settings, session, spec: Callable[[], Spec],
                 notice: Callable[..., None]):
        self.catalog, self.editor, self.frame_settings = catalog, editor, frame_settings
        self.settings, self.session = settings, session
        self._spec = spec
        self._notice = notice

    def choose(self, name: str) -> None:
        """Show pattern ``name`` with its stored parameters, else its defaults; where both are
        refused, the editor shows the defaults and why."""
        if name == self._spec().pattern:
            return
        self.remember_params()
        fmt = self.frame_settings.frame_format()
        levels = fmt.levels
        try:
            spec = fmt.chosen_spec(name, self.settings.params.get(name, {}))
        except ValueError:
            try:
                spec = fmt.chosen_spec(name)
            except ValueError as err:
                self._notice(f"{name}: {err}")
                # the defaults resolved (a colour default is "100%", the editor takes code values)
                pattern = get_pattern(name)
                self.editor.set_pattern(pattern, {p.name: p.resolve(p.default, levels)
                                                  for p in pattern.params}, levels)
                self.editor.show_error(str(err))
                return
        self.show_editor(spec)
        self.catalog.select(name)
        self.show(spec)

    def apply_edits(self) -> bool:
        """Build a spec from the editors; on a refusal show why and keep the current frame."""
        try:
            spec = self.frame_settings.frame_format().chosen_spec(self._spec().pattern,
                                                                 self.editor.values())
        except ValueError as exc:
            self.editor.show_error(str(exc))
            self._notice(str(exc), log=False)
            return False
        self.editor.show_error(None)
        return self.show(spec)

    def levels_changed(self) -> None:
        """The frame settings changed: the editor takes their levels and the spec is built again
        (a depth and range that cannot go together shown in the editor)."""
        try:
            levels = self.frame_settings.levels()
        except ValueError as exc:
            self.editor.show_error(str(exc))
            return
        self.editor.set_levels(levels)
        self.apply_edits()

    def frame_format(self):
        """The frame settings as a format (None while their depth and range cannot go together)."""
        return frame_format_of(self.frame_settings)

    def show(self, spec) -> bool:
        """``spec`` on the live output at the frame settings' format; a refusal in the editor."""
        self.session.format = self.frame_format() or self.session.format
        if not self.session.show(spec):         # the session said why (a notice)
            self.editor.show_error(self.session.refusal)
            return False
        return True

    def show_editor(self, spec) -> None:
        """The editor on ``spec``'s pattern and values (the counter overlay off for the counter)."""
        self.editor.set_pattern(get_pattern(spec.pattern), spec.param_dict, spec.levels)
        self.frame_settings.set_counter_allowed(spec.pattern != "counter")

    def remember_params(self) -> None:
        """The parameters on screen kept for their pattern (stored on close)."""
        spec = self._spec()
        self.settings.params[spec.pattern] = {k: jsonable(v) for k, v in spec.params}
