"""Preset playback on the live output: a patch list for meter readings, driven by presents.

:class:`PresetPlayer` runs a :class:`core.patterns.Playback` on the frame loop's presents,
not on a timer of its own: after each present it reads that frame's index and present
timestamp (the loop's timeline row, written just before ``frame_presented``) and asks the
schedule whether the dwell is up.  A change is applied in that slot, so the very next frame
the loop renders is the new entry's, and the present after it is logged as that entry's
first frame.  The operator's actions (play, pause, next, previous) are queued for the next
present for the same reason; stop ends the run at once, at the last present seen.

Showing an entry is the window's job (``show_entry(preset, position) -> bool``, which keeps
the counter overlay when it is ticked); the player only decides when.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from core.patterns import Playback, PlaybackLog, Preset

IDLE_TEXT = ""


class PresetPlayer(QObject):
    """Plays one preset at a time on ``loop``'s presents (``loop`` may be None in tests that
    drive :meth:`on_presented` themselves)."""

    status_changed = Signal(str)     # the status-bar text; "" when nothing plays
    state_changed = Signal(str)      # core.patterns.playback's state names
    entry_refused = Signal(str)      # an entry could not be shown: the run stopped

    def __init__(self, show_entry: Callable[[Preset, int], bool], loop=None, parent=None):
        super().__init__(parent)
        self._show_entry = show_entry
        self.playback: Playback | None = None
        self.preset: Preset | None = None
        self._queued: list[Callable[[float], object]] = []
        self._last: tuple[int, float] | None = None   # (frame, present time) of the last present
        self._period_s = 0.0
        self._text = IDLE_TEXT
        self._loop = loop
        if loop is not None:
            loop.frame_presented.connect(self._on_frame)

    # ------------------------------------------------------------ state
    @property
    def active(self) -> bool:
        """A run is playing or paused, or about to start at the next present."""
        return self.playback is not None and not self.playback.ended

    @property
    def paused(self) -> bool:
        return self.playback is not None and self.playback.paused

    @property
    def state(self) -> str:
        return self.playback.state if self.playback is not None else "idle"

    @property
    def log(self) -> PlaybackLog:
        return self.playback.log if self.playback is not None else PlaybackLog()

    def status_text(self) -> str:
        return self._text

    # ------------------------------------------------------------ the operator's actions
    def play(self, preset: Preset, *, loop: bool = False) -> None:
        """Play ``preset`` from its first entry (any run before it ends here)."""
        if self.active:
            self.stop()
        self.preset = preset
        self.playback = Playback.of(preset, loop=loop)
        self._queued = [lambda _now: self.playback.start()]
        self._emit_state()
        self._update_text(None)

    def set_loop(self, on: bool) -> None:
        """Loop the run being played (and nothing else: the next :meth:`play` says again)."""
        if self.playback is not None:
            self.playback.loop = bool(on)

    def set_paused(self, paused: bool) -> None:
        if not self.active:
            return
        if paused:
            self._queued.append(lambda now: self.playback.pause(now))
        else:
            self._queued.append(lambda now: self.playback.resume(now))

    def next(self) -> None:
        if self.active:
            self._queued.append(lambda _now: self.playback.next())

    def previous(self) -> None:
        if self.active:
            self._queued.append(lambda _now: self.playback.previous())

    def stop(self) -> None:
        """End the run now; the entry on screen stays, its record closes at the last present.
        After a run that finished, only clears its "Played ..." line."""
        if not self.active:
            if self._text:
                self._text = IDLE_TEXT
                self.status_changed.emit(IDLE_TEXT)
            return
        frame, now = self._last if self._last is not None else (None, None)
        self._queued = []
        self.playback.stop(frame, now)
        self._emit_state()
        self._update_text(now)

    # ------------------------------------------------------------ driven by presents
    def _on_frame(self, index: int) -> None:
        if not self.active:
            return
        present = self._loop.timeline.column("present_s", last=1)
        if len(present):
            self.on_presented(index, float(present[-1]), self._loop.period_ms / 1000.0)

    def on_presented(self, frame: int, now: float, period_s: float = 0.0) -> None:
        """Frame ``frame`` reached the screen at ``now`` (the frame loop's clock)."""
        pb = self.playback
        if not self.active:
            return
        self._last = (int(frame), float(now))
        self._period_s = period_s
        before = pb.state
        pb.shown(frame, now)
        queued, self._queued = self._queued, []
        change = None
        for action in queued:
            change = action(now) or change
        change = pb.advance(now, period_s) or change
        if change is not None and change.position is not None:
            if not self._show_entry(self.preset, change.position):
                pb.stop(frame, now)
                self.entry_refused.emit(f"playing {self.preset.name!r} stopped: entry {change.position + 1} "
                                        "cannot be shown")
        if pb.state != before:
            self._emit_state()
        self._update_text(now)

    # ------------------------------------------------------------ status
    def _emit_state(self) -> None:
        self.state_changed.emit(self.state)

    def _update_text(self, now: float | None) -> None:
        text = self._describe(now)
        if text != self._text:
            self._text = text
            self.status_changed.emit(text)

    def _describe(self, now: float | None) -> str:
        pb, preset = self.playback, self.preset
        if pb is None or preset is None:
            return IDLE_TEXT
        if pb.finished:
            return f"Played preset {preset.name}: {len(pb.log)} entries shown"
        if not self.active:
            return IDLE_TEXT
        left = pb.remaining(now if now is not None else 0.0)
        lap = f", lap {pb.lap}" if pb.loop or pb.lap > 1 else ""
        verb = "Paused" if pb.paused else "Playing"
        return (f"{verb} preset {preset.name}: entry {pb.position + 1}/{len(pb)}{lap}, "
                f"{_seconds(left)} left")


def _seconds(s: float | None) -> str:
    if s is None:
        return "\u2013"
    if s >= 3600:
        return f"{int(s // 3600)} h {int(s % 3600 // 60):02d} min"
    if s >= 60:
        return f"{int(s // 60)} min {int(s % 60):02d} s"
    return f"{s:.1f} s"


__all__ = ["PresetPlayer"]
