"""The live output session: one frame loop and everything that decides what it shows and where.

:class:`OutputSession` owns the :class:`~app.preview.FrameLoop`, the presenter kind (GL where
the platform has it, else raster), the :class:`~app.preview.OutputController` that puts the
output fullscreen on a screen, the decision cache the loop's path is chosen from (held in
memory for the session; a verdict saved or imported through it reaches the loop at once), the
race override a live race names its candidates in (:class:`~core.decisions.RaceOverride`: this
session's loop renders them, no other), the preset player and the preset being stepped.  Its
one door is :meth:`OutputSession.show`; it reports through signals (notes, keys, the surface's
depth, the engine, the output opening and closing), never by calling a window's slots.

The kiosk (``testcard show``, ``serve``) is a session and its keys; the main window composes
one beside its docks.  So what the output can do (stepping a preset, following the surface's
depth on "auto", the banner, metrics) is the same in both.

Following the surface (``auto_depth``): when the surface presenting the output says how many
bits it has, the frame format takes that depth and the frame on screen (and the preset's
entries) are built again at it, their colours carried there by the one depth rule.
"""

from __future__ import annotations

import os

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QGuiApplication

from app.preview.frame_loop import FrameLoop
from app.preview.output import OutputController
from app.preview.placement import ScreenIdentity
from app.preview.playback import PresetPlayer
from app.preview.presenter import GLPresenter, gl_problem
from app.preview.raster import RasterPresenter
from core.decisions import DecisionCache, RaceOverride
from core.patterns import FrameFormat


def presenter_kind(asked: str | None = None) -> tuple[str, str | None]:
    """``("opengl" | "raster", why not GL)``: GL unless it is unavailable or raster is asked
    for (the argument, else ``TESTCARD_PRESENTER``)."""
    kind = asked or os.environ.get("TESTCARD_PRESENTER") or None
    why = gl_problem() if kind in (None, "opengl") else f"presenter {kind!r} requested"
    return ("opengl" if why is None else "raster"), why


def refresh_of(presenter) -> float:
    """The refresh rate of the screen ``presenter`` is on (60 where Qt does not know)."""
    screen = presenter.screen() if isinstance(presenter, GLPresenter) else None
    if screen is None:
        window = presenter.window() if hasattr(presenter, "window") else None
        handle = window.windowHandle() if window is not None else None
        screen = handle.screen() if handle is not None else None
    screen = screen or QGuiApplication.primaryScreen()
    return float(screen.refreshRate() or 60.0)


class OutputSession(QObject):
    """The live output of ``spec`` (in ``frame_format``; None: the spec's own)."""

    note = Signal(str)                  # a sentence for the operator
    key_pressed = Signal(object)        # a key in a presenting window (the output, the preview)
    surface_ready = Signal(int)         # the presenting surface's bits per channel
    engine_changed = Signal()           # path, format or rounding note changed
    spec_shown = Signal(object)         # the loop took this spec (a preset step, the surface's depth)
    output_opened = Signal(object)      # the fullscreen presenter
    output_closed = Signal()
    output_lost = Signal()              # the window system closed the output (not close())
    entry_shown = Signal(object, int)   # a preset entry on screen: (preset, position)

    def __init__(self, spec, *, frame_format: FrameFormat | None = None, device: str = "cpu",
                 frame_limit: int = 0, presenter: str | None = None, banner: bool = True,
                 reuse_static: bool = True, read_decisions: bool = True, auto_depth: bool = False,
                 parent=None):
        super().__init__(parent)
        self.presenter_kind, self.presenter_note = presenter_kind(presenter)
        self.format = frame_format or FrameFormat(spec.width, spec.height, spec.bit_depth,
                                                  spec.limited, spec.counter_bits, spec.transfer)
        self.auto_depth = bool(auto_depth)
        self.decisions = DecisionCache()
        if read_decisions:   # before any frame; a window reads it on a worker instead
            self.decisions.refresh()
        self.decisions.hold()     # lookups from memory: a pattern switch never parses the file
        self.race = RaceOverride()  # a live race's candidate on this loop (app/panels/live_race.py)
        self.loop = FrameLoop(spec, device=device, frame_limit=frame_limit, reuse_static=reuse_static,
                              decisions=self.decisions, race=self.race, parent=self)
        self.loop.render_failed.connect(lambda m: self.note.emit(f"render error: {m}"))
        self.loop.engine_changed.connect(self.engine_changed.emit)
        self.output = OutputController(self.make_presenter, self)
        self.output.banner_enabled = bool(banner)
        self.output.note.connect(self.note.emit)
        self.output.opened.connect(self._on_opened)
        self.output.closed.connect(self._on_closed)
        self.player = PresetPlayer(self._show_played_entry, self.loop, self)
        self.player.entry_refused.connect(self.note.emit)
        self.preview = None               # the presenter that paces the loop with no output open
        self.preset = None
        self.position = 0
        self._entry_specs: list | None = None
        self._closing = False
        self._asked_close = False
        self.closed = False
        self.refusal: str | None = None   # why the last spec shown was refused

    # ------------------------------------------------------------ presenters
    def make_presenter(self):
        return GLPresenter() if self.presenter_kind == "opengl" else RasterPresenter()

    def attach_preview(self, presenter) -> None:
        """``presenter`` (a window's preview) paces the loop while no output is open."""
        self.preview = presenter
        self._wire(presenter)
        self.loop.attach(presenter, refresh_of(presenter))
        self._known_surface(presenter)

    def _wire(self, presenter) -> None:
        presenter.key_pressed.connect(self.key_pressed.emit)
        presenter.surface_ready.connect(self._on_surface)

    def _known_surface(self, presenter) -> None:
        # a GL surface says its depth once it exists (surface_ready); a raster one has it now
        if not isinstance(presenter, GLPresenter) and presenter.surface_bits:
            self._on_surface(presenter.surface_bits)

    def _on_opened(self, presenter) -> None:
        self._wire(presenter)
        self.loop.attach(presenter, refresh_of(presenter))
        self.loop.set_mirror(self.preview)
        self.output_opened.emit(presenter)
        self._known_surface(presenter)

    def _on_closed(self) -> None:
        asked, self._asked_close = self._asked_close, False
        self.loop.set_mirror(None)
        if self.preview is not None and not self._closing:
            self.loop.attach(self.preview, refresh_of(self.preview))
        self.output_closed.emit()
        if not asked and not self._closing:
            self.output_lost.emit()

    # ------------------------------------------------------------ the output window
    @property
    def is_open(self) -> bool:
        return self.output.is_open

    def open_output(self, wanted: ScreenIdentity | None = None) -> None:
        """The output fullscreen on the screen ``wanted`` names (None: the primary)."""
        self.output.open(wanted)

    def close_output(self) -> None:
        if self.output.is_open:
            self._asked_close = True
            self.output.close()

    def start(self, wanted: ScreenIdentity | None = None, *, fullscreen: bool = True) -> None:
        if fullscreen:
            self.open_output(wanted)
        self.loop.start()

    def close(self, *, release: bool = True):
        """Stop presenting and close the output (safe to call twice); how a timeline record
        ended, if one was being made.  ``release=False`` keeps the decision cache held (a
        window releases it once its worker reading the cache has finished)."""
        if self.closed:
            return None
        self.closed = self._closing = True
        self.player.stop()
        result = self.loop.timeline.stop_recording()     # a record put in place
        self.loop.close()
        self.output.close()
        if release:
            self.decisions.release()
        return result

    # ------------------------------------------------------------ the render path
    def rechoose_path(self) -> bool:
        """Choose the loop's render path again (a verdict saved or imported a moment ago, a live
        race's candidate named in :attr:`race`): it takes effect on the next frame.  A note says
        the new path, or why the path could not change; True when the path changed."""
        before = self.loop.path
        try:
            self.loop.redecide()
        except ValueError as exc:
            self.note.emit(f"render path not changed: {exc}")
            return False
        if self.loop.path == before:
            return False
        self.note.emit(f"render path now {self.loop.path}: {self.loop.path_reason}")
        return True

    # ------------------------------------------------------------ what is shown
    def show(self, spec) -> bool:
        """Show ``spec`` from the next frame; False (and a note) when the loop refuses it."""
        try:
            self.loop.set_spec(spec)
        except ValueError as exc:
            self.refusal = str(exc)
            self.note.emit(self.refusal)
            return False
        self.refusal = None
        self.spec_shown.emit(spec)
        return True

    def show_preset(self, preset, *, play: bool = False, loop: bool = False, position: int = 0) -> bool:
        """Show ``preset`` in this session's format: entry ``position``, or (``play``) each for
        its dwell.  ``ValueError`` (one sentence) when an entry cannot be shown here."""
        specs = self.format.preset_specs(preset)
        self.player.stop()
        self.preset, self._entry_specs, self.position = preset, specs, position % len(specs)
        if play:
            self.player.play(preset, loop=loop)
            return True
        return self._show_entry(self.position)

    def step_preset(self, delta: int) -> bool:
        """The next (``delta`` 1) or previous (-1) entry; while playing, the playback moves."""
        if self.player.active:
            self.player.next() if delta > 0 else self.player.previous()
            return True
        if self.preset is None:
            return False
        return self._show_entry((self.position + delta) % len(self._entry_specs))

    def toggle_pause(self) -> bool:
        """Pause or resume the playback (else the frames): True when now paused."""
        if self.player.active:
            paused = not self.player.paused
            self.player.set_paused(paused)
            return paused
        paused = not self.loop.paused
        self.loop.set_paused(paused)
        return paused

    def describe(self) -> str:
        """One line: what is on screen now (the preset entry, the pattern, the format, the path)."""
        spec, loop = self.loop.spec, self.loop
        what = spec.pattern
        if self.preset is not None:
            entry = self.preset.entries[self.position]
            what = f"preset {self.preset.name} entry {self.position + 1}/{len(self.preset.entries)} " \
                   f"({entry.label})"
            if self.player.active:
                what += f"; {self.player.status_text()}"
        return (f"{what}, {spec.width}x{spec.height} {spec.bit_depth}-bit "
                f"{'limited' if spec.limited else 'full'}, frame {loop.index}, "
                f"render path {loop.path} ({loop.path_source})")

    def _show_entry(self, position: int) -> bool:
        if not self.show(self._entry_specs[position]):
            return False
        self.position = position
        self.entry_shown.emit(self.preset, position)
        return True

    def _show_played_entry(self, preset, position: int) -> bool:
        if preset is not self.preset or self._entry_specs is None:
            self.preset, self._entry_specs = preset, self.format.preset_specs(preset)
        return self._show_entry(position)

    # ------------------------------------------------------------ the surface's depth
    def _on_surface(self, bits: int) -> None:
        presenter = self.loop.presenter
        if presenter is not None and presenter.surface_bits:
            bits = int(presenter.surface_bits)
        self.surface_ready.emit(int(bits))
        if not self.auto_depth or bits == self.format.bit_depth:
            return
        try:
            fmt = self.format.with_depth(bits)
        except ValueError as exc:       # a depth this range cannot have: keep the frame's
            self.note.emit(f"the surface has {bits} bits: {exc}")
            return
        self.format = fmt
        if self._entry_specs is not None:
            self._entry_specs = [fmt.respec(s) for s in self._entry_specs]
        if self.show(fmt.respec(self.loop.spec)):
            self.note.emit(f"following the surface: {bits}-bit frames (the depth is on auto)")
