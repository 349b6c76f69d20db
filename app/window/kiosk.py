"""Kiosk mode: the fullscreen output alone, no control window (``testcard show`` and ``serve``).

:class:`Kiosk` is the output half of the main window: a :class:`~app.preview.FrameLoop` on
the render path the decision cache chooses (the same ``choose_path_for`` the GUI's loop asks),
an :class:`~app.preview.OutputController` that puts the output fullscreen on the chosen
screen with the cursor hidden and follows screens as they go and come back, and a
:class:`~app.window.playback.PresetPlayer` for ``--preset NAME --play``.  Esc, F11 or Ctrl+Q in
the output ends it, and so does the window system closing the output; :func:`quit_on_signals`
makes SIGTERM and SIGINT end it too, within a second, through the event loop (a socket pair the
C-level handler writes to, read by a ``QSocketNotifier``), so everything closes as it does on
Esc: the loop, the output, a timeline record put in place.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import sys

from PySide6.QtCore import QEvent, QObject, QSocketNotifier, Qt, Signal
from PySide6.QtGui import QGuiApplication

from app.preview import (
    FrameLoop,
    GLPresenter,
    OutputController,
    RasterPresenter,
    ScreenIdentity,
    gl_problem,
)
from app.window.playback import PresetPlayer
from core.decisions import DecisionCache

QUIT_KEYS = {Qt.Key.Key_Escape, Qt.Key.Key_F11}


class Kiosk(QObject):
    """The output window alone, showing ``spec`` on the screen ``wanted`` identifies (None:
    the primary).  ``frame_limit``: quit after that many presented frames (0: until asked)."""

    quit_requested = Signal(str)     # why: "Esc", "SIGTERM", "frame limit", "window closed"
    note = Signal(str)               # a sentence for the operator (stderr)

    def __init__(self, spec, *, wanted: ScreenIdentity | None = None, banner: bool = True,
                 frame_limit: int = 0, presenter_kind: str | None = None, parent=None):
        super().__init__(parent)
        kind = presenter_kind or os.environ.get("TESTCARD_PRESENTER") or None
        why = gl_problem() if kind in (None, "opengl") else f"presenter {kind!r} requested"
        self.presenter_kind = "opengl" if why is None else "raster"
        self.wanted = wanted
        # read the decision cache now, before any frame (the GUI reads it on a worker; here
        # nothing is on screen yet), then serve lookups from memory
        self.decisions = DecisionCache()
        self.decisions.refresh()
        self.decisions.hold()
        self.loop = FrameLoop(spec, frame_limit=frame_limit, parent=self)
        self.loop.render_failed.connect(lambda m: self.note.emit(f"render error: {m}"))
        self.loop.finished.connect(lambda: self.quit_requested.emit("frame limit"))
        self.output = OutputController(self._make_presenter, self)
        self.output.banner_enabled = bool(banner)
        self.output.opened.connect(self._on_opened)
        self.output.closed.connect(self._on_output_closed)
        self.output.note.connect(self.note.emit)
        self.player = PresetPlayer(self._show_entry, self.loop, self)
        self.player.entry_refused.connect(self.note.emit)
        self.player.state_changed.connect(self._on_play_state)
        self.preset = None
        self.timeline_result = None      # how a --timeline record ended, once closed
        self._closed = False

    @property
    def decision_notes(self) -> list[str]:
        """What is wrong with the decision cache, if anything (say each once at start)."""
        return list(self.decisions.notes)

    # ------------------------------------------------------------ running
    def start(self) -> None:
        """Open the output fullscreen and start presenting."""
        self.output.open(self.wanted)
        self.loop.start()

    def close(self) -> None:
        """Stop presenting and close the output (safe to call twice)."""
        if self._closed:
            return
        self._closed = True
        self.player.stop()
        self.timeline_result = self.loop.timeline.stop_recording()   # a record put in place
        self.loop.close()
        self.output.close()
        self.decisions.release()

    def show_spec(self, spec) -> bool:
        """Show ``spec`` from the next frame; False (and a note) when the loop refuses it."""
        try:
            self.loop.set_spec(spec)
        except ValueError as exc:
            self.note.emit(str(exc))
            return False
        return True

    def show_preset(self, preset, entry_specs, play: bool = False) -> bool:
        """Show ``preset``: its first entry, or (``play``) each for its dwell.  ``entry_specs``
        are its entries' specs for this output, checked already."""
        self.preset, self._entry_specs = preset, list(entry_specs)
        if play:
            self.player.play(preset)
            return True
        return self.show_spec(self._entry_specs[0])

    def _show_entry(self, preset, position: int) -> bool:
        return self.show_spec(self._entry_specs[position])

    def _on_play_state(self, state: str) -> None:
        if state == "finished":
            self.note.emit(f"played preset {self.preset.name}: the last entry stays on screen")

    # ------------------------------------------------------------ the output window
    def _make_presenter(self):
        return GLPresenter() if self.presenter_kind == "opengl" else RasterPresenter()

    def _on_opened(self, presenter) -> None:
        presenter.key_pressed.connect(self._on_key)
        self.loop.attach(presenter, _refresh_of(presenter))

    def _on_output_closed(self) -> None:
        if not self._closed:           # the window system closed it (not close() here)
            self.quit_requested.emit("window closed")

    def _on_key(self, event) -> None:
        key = event.key()
        ctrl_q = key == Qt.Key.Key_Q and event.modifiers() & Qt.KeyboardModifier.ControlModifier
        if key in QUIT_KEYS or ctrl_q:
            self.quit_requested.emit("Esc" if key == Qt.Key.Key_Escape else "key")


def _refresh_of(presenter) -> float:
    screen = presenter.screen() if isinstance(presenter, GLPresenter) else None
    if screen is None:
        handle = presenter.windowHandle() if hasattr(presenter, "windowHandle") else None
        screen = handle.screen() if handle is not None else None
    screen = screen or QGuiApplication.primaryScreen()
    return float(screen.refreshRate() or 60.0)


@contextlib.contextmanager
def quit_on_signals(on_signal, signals=(signal.SIGTERM, signal.SIGINT)):
    """While in the block, SIGTERM and SIGINT call ``on_signal(name)`` on the GUI thread
    (from the event loop, within a few milliseconds of the signal), instead of killing the
    process or raising KeyboardInterrupt somewhere in Qt.  The previous handlers come back
    after the block.  Only from the main thread; elsewhere it does nothing."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    rsock, wsock = socket.socketpair()
    rsock.setblocking(False)
    wsock.setblocking(False)
    names = {int(s): s.name for s in signals}
    previous = {s: signal.getsignal(s) for s in signals}
    notifier = QSocketNotifier(rsock.fileno(), QSocketNotifier.Type.Read)

    def readable() -> None:
        try:
            data = rsock.recv(64)
        except OSError:
            return
        for number in data:
            if number in names:
                on_signal(names[number])
                return

    notifier.activated.connect(readable)
    old_fd = signal.set_wakeup_fd(wsock.fileno(), warn_on_full_buffer=False)
    for s in signals:
        signal.signal(s, lambda *_: None)   # the wake-up byte is what counts
    try:
        yield
    finally:
        signal.set_wakeup_fd(old_fd)
        for s, handler in previous.items():
            with contextlib.suppress(TypeError, ValueError):
                signal.signal(s, handler if handler is not None else signal.SIG_DFL)
        notifier.setEnabled(False)
        notifier.deleteLater()
        rsock.close()
        wsock.close()


def say(text: str) -> None:
    """One ``testcard: `` line on stderr (never raises)."""
    with contextlib.suppress(OSError, ValueError):
        print(f"testcard: {text}", file=sys.stderr, flush=True)


def output_target(screen: str | None, remembered: ScreenIdentity | None = None):
    """The screen the output goes to, as ``(identity, record)``: ``--screen INDEX|NAME``
    (``ValueError`` naming the connected screens when it names none), else the remembered
    screen or its fallback, else the primary.  The QApplication must exist."""
    from app.preview import match_screen, resolve_screen, screen_records

    records = screen_records()
    if screen is not None:
        rec = resolve_screen(records, screen)
        return rec.identity, rec
    m = match_screen(records, remembered)
    return (m.screen.identity if remembered is not None else None), m.screen


def run_until_quit(app, kiosk: Kiosk, started=None) -> str:
    """Start ``kiosk`` (then call ``started()``, the output open and its render path chosen)
    and run the event loop until Esc, SIGTERM, SIGINT, the frame limit or the output window
    closing; returns why it ended.  The kiosk is closed afterwards."""
    why: list[str] = []

    def leave(reason: str) -> None:
        if not why:          # once: Qt 6 posts each quit() as an event
            why.append(reason)
            app.quit()

    kiosk.quit_requested.connect(leave)
    try:
        with quit_on_signals(leave):
            kiosk.start()
            if started is not None:
                started()
            app.exec()
    finally:
        # closing the kiosk emits quit_requested again; a quit() with no event loop running
        # would be left for the next loop the process starts (a test's wait, a panel's worker)
        kiosk.quit_requested.disconnect(leave)
        kiosk.close()
        # a quit posted but not yet delivered would end the next event loop this process runs
        app.removePostedEvents(None, QEvent.Type.Quit)
        # the output window, closed, is deleted now while the application exists: no event loop
        # runs after this one to do it, and at interpreter exit it would go after Qt itself
        app.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    return why[0] if why else "the output window closed"


__all__ = ["Kiosk", "output_target", "quit_on_signals", "run_until_quit", "say"]
