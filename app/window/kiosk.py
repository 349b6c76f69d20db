"""Kiosk mode: the fullscreen output alone, no control window (``testcard show`` and ``serve``).

:class:`Kiosk` is an :class:`~app.preview.session.OutputSession` (the main window composes the
same one) and its keys: the frame loop on the decision cache's path, the output fullscreen on
the chosen screen with the cursor hidden (following screens as they go and come back), the
preset player, the surface's depth followed on "auto".  In the output:

- Esc, F11 or Ctrl+Q end it, and so does the window system closing the output;
- PgDown / PgUp step a preset (while playing, they move the playback), Space pauses (the
  playback, else the frames), I prints what is on screen;

and :func:`quit_on_signals` makes SIGTERM and SIGINT end it, SIGUSR1 and SIGUSR2 step to the
next and previous entry (a headless box is steered without a keyboard), all within a second,
through the event loop (a socket pair the C-level handler writes to, read by a
``QSocketNotifier``), so everything closes as it does on Esc: the loop, the output, a timeline
record put in place.
"""

from __future__ import annotations

import contextlib
import signal
import socket
import sys

from PySide6.QtCore import QEvent, QSocketNotifier, Qt, Signal

from app.preview import OutputSession, ScreenIdentity

QUIT_KEYS = {Qt.Key.Key_Escape, Qt.Key.Key_F11}
STEP_KEYS = {Qt.Key.Key_PageDown: 1, Qt.Key.Key_PageUp: -1}
STEP_SIGNALS = {"SIGUSR1": 1, "SIGUSR2": -1}


class Kiosk(OutputSession):
    """The output window alone, showing ``spec`` on the screen ``wanted`` identifies (None:
    the primary).  ``frame_limit``: quit after that many presented frames (0: until asked)."""

    quit_requested = Signal(str)     # why: "Esc", "SIGTERM", "frame limit", "window closed"

    def __init__(self, spec, *, wanted: ScreenIdentity | None = None, banner: bool = True,
                 frame_limit: int = 0, presenter_kind: str | None = None, frame_format=None,
                 auto_depth: bool = False, parent=None):
        super().__init__(spec, frame_format=frame_format, frame_limit=frame_limit,
                         presenter=presenter_kind, banner=banner, auto_depth=auto_depth, parent=parent)
        self.wanted = wanted
        self.loop.finished.connect(lambda: self.quit_requested.emit("frame limit"))
        self.output_lost.connect(lambda: self.quit_requested.emit("window closed"))
        self.key_pressed.connect(self._on_key)
        self.player.state_changed.connect(self._on_play_state)
        self.timeline_result = None      # how a --timeline record ended, once closed

    @property
    def decision_notes(self) -> list[str]:
        """What is wrong with the decision cache, if anything (say each once at start)."""
        return list(self.decisions.notes)

    def start(self, wanted: ScreenIdentity | None = None, *, fullscreen: bool = True) -> None:
        """Open the output fullscreen and start presenting."""
        super().start(wanted if wanted is not None else self.wanted, fullscreen=fullscreen)

    def close(self):
        result = super().close()
        if result is not None:
            self.timeline_result = result
        return result

    show_spec = OutputSession.show

    def on_signal(self, name: str) -> bool:
        """SIGUSR1 / SIGUSR2: the next / previous preset entry; False for any other signal."""
        delta = STEP_SIGNALS.get(name)
        if delta is None:
            return False
        if not self.step_preset(delta):
            self.note.emit(f"{name}: no preset to step (give --preset NAME)")
        return True

    def _on_play_state(self, state: str) -> None:
        if state == "finished":
            self.note.emit(f"played preset {self.preset.name}: the last entry stays on screen")

    def _on_key(self, event) -> None:
        key = event.key()
        ctrl_q = key == Qt.Key.Key_Q and event.modifiers() & Qt.KeyboardModifier.ControlModifier
        if key in QUIT_KEYS or ctrl_q:
            self.quit_requested.emit("Esc" if key == Qt.Key.Key_Escape else "key")
        elif key in STEP_KEYS:
            if not self.step_preset(STEP_KEYS[key]):
                self.note.emit("PgDown/PgUp step a preset: give --preset NAME")
        elif key == Qt.Key.Key_Space:
            self.note.emit("paused" if self.toggle_pause() else "running")
        elif key == Qt.Key.Key_I:
            print(f"testcard show: {self.describe()}", flush=True)


@contextlib.contextmanager
def quit_on_signals(on_signal, signals=(signal.SIGTERM, signal.SIGINT), *, other=None):
    """While in the block, SIGTERM and SIGINT call ``on_signal(name)`` on the GUI thread
    (from the event loop, within a few milliseconds of the signal), instead of killing the
    process or raising KeyboardInterrupt somewhere in Qt.  The previous handlers come back
    after the block.  ``other``: ``{signal: callback(name)}`` for signals that do not quit
    (SIGUSR1 and SIGUSR2 step a kiosk's preset).  Only from the main thread; elsewhere it does
    nothing."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    rsock, wsock = socket.socketpair()
    rsock.setblocking(False)
    wsock.setblocking(False)
    other = dict(other or {})
    names = {int(s): s.name for s in signals}
    others = {int(s): (s.name, fn) for s, fn in other.items()}
    previous = {s: signal.getsignal(s) for s in (*signals, *other)}
    notifier = QSocketNotifier(rsock.fileno(), QSocketNotifier.Type.Read)

    def readable() -> None:
        try:
            data = rsock.recv(64)
        except OSError:
            return
        for number in data:
            if number in others:
                name, fn = others[number]
                fn(name)
            elif number in names:
                on_signal(names[number])
                return

    notifier.activated.connect(readable)
    old_fd = signal.set_wakeup_fd(wsock.fileno(), warn_on_full_buffer=False)
    for s in (*signals, *other):
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
        steps = {signal.SIGUSR1: kiosk.on_signal, signal.SIGUSR2: kiosk.on_signal} \
            if hasattr(signal, "SIGUSR1") else {}
        with quit_on_signals(leave, other=steps):
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
