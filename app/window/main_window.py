"""The control window: catalog, parameters, live preview, timing, output, status.

The window builds its docks and the live output (an :class:`~app.preview.OutputSession`) and
joins them; each piece that stands alone is an object it composes: the specs from the editors
(``pattern_control``), the live figures (``live_figures``), the decision cache's background
read (``decisions_watch``), the output screen (``output_screen``), what closing stores
(``settings_store``), the docks (``docks``), the menus (``menus``), the status bar and each dock.
The preset, file and remote slots are in ``preset_actions``, ``file_actions``, ``remote_actions``.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import Signal
from PySide6.QtGui import QGuiApplication, QKeySequence
from PySide6.QtWidgets import QDockWidget, QMainWindow, QWidget

from app import settings as settings_mod
from app.dialogs import FileDialogs
from app.panels import load_panels
from app.preview import GLPresenter, OutputSession, RasterPresenter
from app.preview import presenter_kind as choose_presenter
from app.window.catalog import CatalogPanel
from app.window.decisions_watch import DecisionsWatch
from app.window.docks import add_panel_dock, build_docks, central_preview, restore_layout
from app.window.file_actions import FileActions
from app.window.layout import apply_default_docks
from app.window.live_figures import LiveFigures
from app.window.log_dock import LogDock
from app.window.menus import build_menus, rebuild_output_menu
from app.window.output_screen import OutputScreen
from app.window.param_editor import FrameSettings, ParamEditor
from app.window.pattern_control import PatternControl
from app.window.preset_actions import PresetActions
from app.window.remote_actions import RemoteActions
from app.window.settings_store import SettingsStore, remember_spec
from app.window.status_bar import StatusBar
from app.workers import TaskRunner, either
from core.decisions import Band, band_chain
from core.engine import available_devices
from core.patterns import FrameFormat, get_pattern


class MainWindow(PresetActions, FileActions, RemoteActions, QMainWindow):
    spec_changed = Signal(object)
    devices_listed = Signal(list)     # the render devices, known once torch has listed them


    def __init__(self, pattern: str | None = None, frame_limit: int = 0, settings=None,
                 presenter_kind: str | None = None, spec=None, persist: bool = True,
                 reuse_static: bool = True, frame_format: FrameFormat | None = None):
        """``spec`` overrides the remembered pattern and frame settings (benchmarks); with
        ``frame_format``, the format it was built in and ``settings`` already hold (``testcard
        gui``'s start), it is shown as it is and the frame settings show that format, whose
        transfer every spec built here keeps.  ``persist=False`` leaves the settings file alone
        on close."""
        super().__init__()
        self.setWindowTitle("testcard")
        self.setObjectName("MainWindow")
        self.persist = persist
        self.settings = settings if settings is not None else settings_mod.load()
        self.dialogs = FileDialogs(self.settings)   # start folders: last used per kind, else documents
        self.worker = TaskRunner("testcard-io", self)
        self._panels: list[QWidget] = []
        self._closing = False

        # ---- presenter kind: GL where the platform has it, else raster (timer-paced)
        self.presenter_kind, self.presenter_note = choose_presenter(presenter_kind)

        # ---- docks and central preview
        self.log_dock = LogDock(self)
        self.catalog = CatalogPanel()
        self.frame_settings = FrameSettings()
        self.editor = ParamEditor()
        self.preview = self._make_presenter()
        self.preview_widget = central_preview(self, self.preview)
        self.docks = build_docks(self, catalog=self.catalog, frame_settings=self.frame_settings,
                                 editor=self.editor, log=self.log_dock)   # (app/window/docks.py)
        self.timing = self.docks["timing"]

        # ---- initial spec from settings (falling back to defaults on anything invalid)
        s = self.settings
        if spec is not None and frame_format is None:
            remember_spec(s, spec)
        # what closing stores: only the fields changed since the window started
        self.settings_store = SettingsStore(s, window=self, frame_settings=self.frame_settings,
                                            spec=lambda: self.spec, device=lambda: self.loop.device,
                                            one_to_one=lambda: self.act_one_to_one.isChecked())
        # the stored depth first (the stored colours were typed at it); the surface's follows below
        self.frame_settings.set_values(s.bit_depth, s.limited, s.size, s.counter, s.counter_bits,
                                       chosen=s.bit_depth_chosen)
        self.frame_settings.transfer = frame_format.transfer if frame_format is not None else None

        # the cpu first: listing the others imports torch (1.5 s), done off this thread once
        # the first frame is up (_list_devices)
        self.devices = ["cpu"]
        self.frame_settings.set_devices(self.devices, "cpu")
        self.output_choice = OutputScreen(s)    # the output's screen, remembered by identity
        self.frame_settings.set_native(self.output_native_size())
        remembered = self.output_choice.match()
        if remembered.note:
            self.log(remembered.note)   # the output screen chosen last time is gone
        name = pattern or s.pattern
        try:
            get_pattern(name)
        except ValueError:
            name = "checkerboard"
        # the one format every spec here is built in (app/window/pattern_control.py)
        fmt = frame_format or self.frame_settings.frame_format()
        self.spec = spec if spec is not None else fmt.start_spec(name, s.params.get(name, {}), self.log)

        # ---- the live output: the session the kiosk is too (app/preview/session.py); its
        # decision cache is read off this thread (below), so until then (and for a pattern
        # switch ever after) the loop never parses the file
        self.status_bar = StatusBar(self)
        self.setStatusBar(self.status_bar)
        self.session = OutputSession(self.spec, frame_format=fmt,
                                     device=self.frame_settings.device_setting(), frame_limit=frame_limit,
                                     presenter=self.presenter_kind, banner=s.output_banner,
                                     reuse_static=reuse_static, read_decisions=False, parent=self)
        self.loop, self.output = self.session.loop, self.session.output
        self.decisions, self.player = self.session.decisions, self.session.player
        self.session.note.connect(self._notice)
        self.session.key_pressed.connect(self._on_presenter_key)
        self.session.spec_shown.connect(self._on_spec_shown)
        self.session.entry_shown.connect(self._on_entry_shown)
        self.session.output_opened.connect(lambda _presenter: self._output_actions(True))
        self.session.output_closed.connect(lambda: self._output_actions(False))
        # the status bar, the APL readout, the timing statistics, the pacing notes
        self.figures = LiveFigures(self.loop, status_bar=self.status_bar, timing=self.timing,
                                   editor=self.editor, spec=lambda: self.spec, log=self.log, parent=self)
        self.loop.engine_changed.connect(self._update_status)
        self.session.attach_preview(self.preview)
        # specs from the catalog, the editor and the frame settings (app/window/pattern_control.py)
        self.patterns = PatternControl(catalog=self.catalog, editor=self.editor,
                                       frame_settings=self.frame_settings, settings=s, session=self.session,
                                       spec=lambda: self.spec, notice=self._notice)
        self.output.screens_changed.connect(self._rebuild_output_menu)

        # preset playback: driven by the loop's presents (app/preview/playback.py)
        self.player.status_changed.connect(self.status_bar.show_playback)
        self.player.state_changed.connect(self._on_play_state)
        self.player.entry_refused.connect(self._notice)
        self._build_remote()   # calibration software's connections (app/window/remote_actions.py)

        # ---- wiring
        self.catalog.select(self.spec.pattern)
        self.patterns.show_editor(self.spec)
        self.catalog.pattern_chosen.connect(self.choose_pattern)
        self.editor.params_edited.connect(lambda _v: self.apply_edits())
        self.frame_settings.changed.connect(self._on_frame_settings)
        # the default bit depth is the one the output surface got (the session says; a raster
        # surface has it at once)
        self.session.surface_ready.connect(self._follow_surface)
        if not isinstance(self.preview, GLPresenter):
            self.frame_settings.follow_surface(self.preview.surface_bits)
        self.figures.show_apl()
        self.timing.reset_requested.connect(self.reset_timing)
        self.timing.export_requested.connect(self.export_timeline_dialog)
        self.timing.record_requested.connect(self.set_timeline_recording)
        build_menus(self)
        self.preview.set_one_to_one(s.one_to_one)
        self.act_one_to_one.setChecked(s.one_to_one)
        self.figures.start()    # a few times a second, right after a present
        self.loop.frame_presented.connect(self._list_devices)
        # the decision cache, read off this thread now and every few seconds after
        self.decisions_watch = DecisionsWatch(self.decisions, self.session.rechoose_path, self.worker,
                                              parent=self)
        self.decisions_watch.notice.connect(self._notice)
        self.decisions_watch.warning.connect(lambda note: self.log_dock.add(note, logging.WARNING))
        self.decisions_watch.warning.connect(lambda note: self.statusBar().showMessage(note, 15000))
        self.decisions_watch.path_changed.connect(self._update_status)
        self.decisions_watch.start()
        for problem in s.problems:  # a bad settings file: each reason logged, the gist shown
            self.log_dock.add(problem, logging.WARNING)
        if s.problems:
            self.statusBar().showMessage(settings_mod.summary(s.problems), 15000)
        if self.presenter_note:
            self.log(f"preview without OpenGL ({self.presenter_note}): timer-paced")
        load_panels(self)
        # after the panels, so their docks come back where they were left
        self._default_layout = restore_layout(self, s.window_geometry, s.window_state,
                                              QGuiApplication.primaryScreen().availableGeometry())
        self.settings_store.baseline_now()
        self.loop.start()

    def showEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        untouched = self.settings_store.untouched()
        if self._default_layout:
            self._default_layout = False
            apply_default_docks(self)   # first run: pattern first (app/window/layout.py)
        if untouched:        # where the window system put it is not a change the user made
            self.settings_store.baseline_now()

    def _list_devices(self, _index: int = 0) -> None:
        """Once, after the first present: the devices torch sees, listed off the GUI thread."""
        self.loop.frame_presented.disconnect(self._list_devices)
        self.worker.submit(available_devices, either(
            self._devices_listed, lambda exc: self.log(f"devices not listed: {exc}")))

    def _devices_listed(self, devices: list[str]) -> None:
        if self._closing:
            return
        self.devices, wanted = devices, self.settings.device
        if wanted not in devices:
            self.log(f"device {wanted} is not on this box; rendering on cpu")
        chosen = self.frame_settings.device_setting()   # the user's pick meanwhile, else the stored one
        self.frame_settings.set_devices(devices, wanted if chosen == "cpu" else chosen)
        self.devices_listed.emit(devices)
        if self.frame_settings.device_setting() != self.loop.device:
            self._on_frame_settings()

    # ------------------------------------------------------------ construction helpers
    def _make_presenter(self):
        return GLPresenter() if self.presenter_kind == "opengl" else RasterPresenter()

    def output_record(self):
        """The connected screen the output goes to: the remembered one, or its fallback."""
        return self.output_choice.record()

    def output_native_size(self) -> tuple[int, int]:
        return self.output_choice.native_size()

    # ------------------------------------------------------------ public API (tests, panels)
    def current_spec(self):
        return self.spec

    def log(self, message: str) -> None:
        self.log_dock.add(message)

    def live_band(self) -> Band | None:
        """The band the live output renders: the pattern on screen, its frame size and the
        display format of the surface presenting it (None where no band covers the format).
        Read from the loop, which has the new spec before it says its engine changed."""
        chain = band_chain(self.loop.spec, self.loop.fmt)
        return chain[0] if chain else None

    def rechoose_render_path(self) -> None:
        """Choose the live output's render path again: a verdict saved or imported a moment ago
        takes effect on the next frame."""
        self.decisions_watch.rechoose()

    def add_panel(self, widget: QWidget, title: str, area: str = "right") -> QDockWidget:
        """Add ``widget`` as a dock (tabbed with others in the same area)."""
        dock = add_panel_dock(self, self.docks, widget, title, area)
        self._panels.append(widget)
        self.menu_view.addAction(dock.toggleViewAction())
        return dock

    def choose_pattern(self, name: str) -> None:
        self.patterns.choose(name)

    def apply_edits(self) -> bool:
        """Build a spec from the editors; on a refusal show why and keep the current frame."""
        return self.patterns.apply_edits()

    def _on_spec_shown(self, spec) -> None:
        """The live output took ``spec`` (from the editors, a preset step or a playback)."""
        self.spec = spec
        self.spec_changed.emit(spec)
        self._update_status()
        self.figures.show_apl()

    def _follow_surface(self, _bits: int) -> None:
        presenter = self.loop.presenter
        if presenter is not None:
            untouched = self.settings_store.untouched()
            self.frame_settings.follow_surface(presenter.surface_bits)
            if untouched:     # following the surface is not a change the user made
                self.settings_store.baseline_now()

    def _on_frame_settings(self) -> None:
        device = self.frame_settings.device_setting()
        if device != self.loop.device:
            try:
                self.loop.set_device(device)
            except ValueError as exc:
                self._notice(f"cannot render on {device}: {exc}")
                combo = self.frame_settings.device
                self.frame_settings.set_devices([combo.itemText(i) for i in range(combo.count())],
                                                self.loop.device)
            self._update_status()
        self.patterns.levels_changed()

    # ------------------------------------------------------------ output screens

    def _rebuild_output_menu(self) -> None:
        rebuild_output_menu(self)

    def choose_output_screen(self, screen) -> None:
        """Make ``screen`` (a :class:`~app.preview.ScreenRecord`) the output's, remembered by identity."""
        self.output_choice.remember(screen)
        self.frame_settings.set_native(self.output_native_size())
        if self.frame_settings.size_setting() is None:
            self.apply_edits()
        if self.output.is_open:
            self.output.open(screen.identity)

    # ------------------------------------------------------------ status and live figures
    def _update_status(self) -> None:
        self.status_bar.show_loop(self.loop, self.spec)

    def status_texts(self) -> dict[str, str]:
        return self.status_bar.texts()

    def _notice(self, message: str, log: bool = True) -> None:
        self.statusBar().showMessage(message, 10000)
        if log:
            self.log(message)

    # ------------------------------------------------------------ actions
    def set_paused(self, paused: bool) -> None:
        self.loop.set_paused(paused)
        self.act_pause.setChecked(paused)
        self.act_back.setEnabled(paused)
        self.act_forward.setEnabled(paused)
        self._notice("paused: arrow keys step frames" if paused else "running", log=False)

    def step(self, delta: int) -> None:
        if self.loop.paused:
            self.loop.step(delta)
            self.statusBar().showMessage(f"frame {self.loop.index}", 3000)

    def set_one_to_one(self, on: bool) -> None:
        self.preview.set_one_to_one(on)
        self.settings.one_to_one = bool(on)

    def reset_timing(self) -> None:
        self.loop.reset_timing()
        self.timing.update_from(self.loop.timeline, self.loop.period_ms)

    def toggle_fullscreen(self, on: bool) -> None:
        if on:
            self.session.open_output(self.output_choice.identity())
        else:
            self.session.close_output()

    def set_output_banner(self, on: bool) -> None:
        """Whether going fullscreen shows the banner naming the screen (remembered)."""
        self.output.banner_enabled = self.settings.output_banner = bool(on)
        if not on:
            self.output.hide_banner()

    def leave_fullscreen(self) -> None:
        if self.output.is_open:
            self.session.close_output()
        elif self.isFullScreen():
            self.showNormal()

    def _output_actions(self, is_open: bool) -> None:
        """The output went fullscreen (``is_open``) or left it."""
        self.act_fullscreen.setChecked(is_open)
        self.act_leave.setEnabled(is_open)

    def _on_presenter_key(self, event) -> None:
        """Keys pressed in a GL window (not a widget, so Qt's shortcut map skips it)."""
        seq = QKeySequence(event.keyCombination())
        for a in self.actions():
            if a.isEnabled() and any(seq.matches(s) == QKeySequence.SequenceMatch.ExactMatch
                                     for s in a.shortcuts()):
                a.trigger()
                return

    # ------------------------------------------------------------ closing
    def store_settings(self) -> None:
        """Store the fields changed since the window started (:mod:`app.window.settings_store`)."""
        try:
            self.settings_store.store()
        except OSError as exc:  # SettingsNotSaved: one line naming the file and the reason
            self.statusBar().showMessage(str(exc), 10000)
            self.log_dock.add(str(exc), logging.WARNING)

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt override
        if not self._closing:
            self._closing = True
            if self.persist:
                self.store_settings()
            self.figures.stop()
            self.decisions_watch.stop()
            self.player.stop()
            self.remote.shutdown()
            self.set_timeline_recording(False)
            self.session.close(release=False)
            for panel in self._panels:
                if hasattr(panel, "shutdown"):
                    panel.shutdown()
            self.worker.wait()
            self.figures.wait()
            self.decisions.release()
            self.preview.release()
        super().closeEvent(event)
