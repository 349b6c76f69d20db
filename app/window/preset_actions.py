"""The main window's preset slots: choosing and stepping a preset, and playing it as a patch list.

A mixin of :class:`~app.window.main_window.MainWindow` (it uses the window's frame settings,
editor, catalog, worker and its live output session, which steps and plays the preset as the
kiosk's does); kept apart so the window module stays its construction and the slots that join
the docks.
"""

from __future__ import annotations

from app.workers import either


class PresetActions:
    """Preset slots of the main window."""

    @property
    def preset(self):
        """The preset being stepped or played (the live output session's)."""
        return self.session.preset

    @property
    def preset_pos(self) -> int:
        return self.session.position

    def choose_preset(self, name: str) -> bool:
        """Show the first entry of a preset; the others follow with PgDown / PgUp."""
        preset = next((p for p in self.presets if p.name == name), None)
        if preset is None:
            self._notice(f"no preset named {name!r}")
            return False
        return self._show_preset(preset)

    def step_preset(self, delta: int) -> bool:
        """PgDown / PgUp: the next or previous entry (while playing, the playback moves)."""
        return self.session.step_preset(delta)

    def _show_preset(self, preset, **play) -> bool:
        """``preset`` on the live output at the frame settings' format (the counter overlay
        stays on when it is ticked); a refusal is a notice naming the entry."""
        self.session.format = self.patterns.frame_format() or self.session.format
        try:
            return self.session.show_preset(preset, **play)
        except ValueError as exc:
            self._notice(f"cannot {'play' if play else 'show'} {preset.name!r}: {exc}")
            return False

    def _on_entry_shown(self, preset, position: int) -> None:
        spec = self.loop.spec
        self.patterns.show_editor(spec)
        self.catalog.select(spec.pattern)
        if not self.player.active:
            self._notice(f"preset {preset.name}: entry {position + 1} of {len(preset.entries)} "
                         f"({spec.pattern})", log=False)

    def play_preset(self, name: str, loop: bool = False) -> None:
        """Play preset ``name`` (case-insensitive): each entry on screen for its dwell, once or
        looped, with the counter overlay when it is ticked.  Refused with a notice when there
        is no such preset or an entry cannot be shown on this output."""
        preset = next((p for p in self.presets if p.name.casefold() == name.strip().casefold()), None)
        if preset is None:
            self._notice(f"no preset named {name!r}: expected one of "
                         f"{', '.join(p.name for p in self.presets)}")
            return
        self.act_play_loop.setChecked(bool(loop))
        self._show_preset(preset, play=True, loop=bool(loop))

    def play_current_preset(self) -> None:
        if self.preset is None:
            self._notice("choose a preset in the Presets menu first, then Play")
            return
        self.play_preset(self.preset.name, self.act_play_loop.isChecked())

    def _on_play_state(self, _state: str) -> None:
        active = self.player.active
        for act in (self.act_play_pause, self.act_play_next, self.act_play_prev, self.act_play_stop):
            act.setEnabled(active)
        self.act_play_pause.setChecked(self.player.paused)
        self.act_play_export.setEnabled(len(self.player.log) > 0 or active)

    def export_play_log_dialog(self) -> None:
        path = self.dialogs.save_file(self, "playlog", "Export play log", "play-log.csv", "CSV (*.csv)")
        if path:
            self.export_play_log_to(path)

    def export_play_log_to(self, path: str) -> None:
        """Write the play log so far (the run may still be going) as CSV, off the GUI thread."""
        log = self.player.log.snapshot()
        self.worker.submit(lambda: log.write_csv(path),
                           either(lambda n: self._notice(f"wrote {n} play-log entries to {path}"),
                                   lambda exc: self._notice(f"could not write {path}: {exc}")))

