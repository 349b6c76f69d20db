"""The main window's preset slots: choosing and stepping a preset, and playing it as a patch list.

A mixin of :class:`~app.window.main_window.MainWindow` (it uses the window's frame settings,
editor, catalog, player and worker); kept apart so the window module stays its construction
and the slots that join the docks.
"""

from __future__ import annotations

from app.workers import either


class PresetActions:
    """Preset slots of the main window."""

    def choose_preset(self, name: str) -> bool:
        """Show the first entry of a preset; the others follow with PgDown / PgUp."""
        preset = next((p for p in self.presets if p.name == name), None)
        if preset is None:
            self._notice(f"no preset named {name!r}")
            return False
        self.player.stop()   # choosing a preset by hand ends a playback
        self.preset, self.preset_pos = preset, 0
        return self._show_preset_entry()

    def step_preset(self, delta: int) -> bool:
        if self.player.active:   # PgDown / PgUp while playing move the playback itself
            self.player.next() if delta > 0 else self.player.previous()
            return True
        if self.preset is None:
            return False
        self.preset_pos = (self.preset_pos + delta) % len(self.preset.entries)
        return self._show_preset_entry()

    def _show_preset_entry(self) -> bool:
        entry = self.preset.entries[self.preset_pos]
        levels = self.frame_settings.levels()
        w, h = self.frame_settings.frame_size()
        try:   # the counter overlay stays on when it is ticked (the counter pattern is one already)
            spec = entry.spec(w, h, bit_depth=levels.bit_depth, limited=levels.limited,
                              counter_bits=self.frame_settings.counter_setting())
        except ValueError as exc:
            self._notice(f"preset {self.preset.name!r} entry {self.preset_pos + 1}: {exc}")
            return False
        self._remember_params()
        self._show_editor(spec)
        self.catalog.select(spec.pattern)
        ok = self._apply_spec(spec)
        if ok:
            self._notice(f"preset {self.preset.name}: entry {self.preset_pos + 1} of "
                         f"{len(self.preset.entries)} ({spec.pattern})", log=False)
        return ok

    def play_preset(self, name: str, loop: bool = False) -> None:
        """Play preset ``name`` (case-insensitive): each entry on screen for its dwell, once or
        looped, with the counter overlay when it is ticked.  Refused with a notice when there
        is no such preset or an entry cannot be shown on this output."""
        preset = next((p for p in self.presets if p.name.casefold() == name.strip().casefold()), None)
        if preset is None:
            self._notice(f"no preset named {name!r}: expected one of "
                         f"{', '.join(p.name for p in self.presets)}")
            return
        try:
            levels = self.frame_settings.levels()
            preset.specs(*self.frame_settings.frame_size(), bit_depth=levels.bit_depth,
                         limited=levels.limited, counter_bits=self.frame_settings.counter_setting())
        except ValueError as exc:
            self._notice(f"cannot play {preset.name!r}: {exc}")
            return
        self.preset, self.preset_pos = preset, 0
        self.act_play_loop.setChecked(bool(loop))
        self.player.play(preset, loop=loop)

    def play_current_preset(self) -> None:
        if self.preset is None:
            self._notice("choose a preset in the Presets menu first, then Play")
            return
        self.play_preset(self.preset.name, self.act_play_loop.isChecked())

    def _show_played_entry(self, preset, position: int) -> bool:
        self.preset, self.preset_pos = preset, position
        return self._show_preset_entry()

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

