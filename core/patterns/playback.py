"""Playing a preset: each entry on screen for its dwell, once or looped, and a log of it.

This is how a spot meter or a colorimeter with a fixed settle time is driven without
calibration software: a patch list whose entries each stay up for ``dwell_s`` seconds
(:meth:`core.patterns.Preset.dwells`), with pause, next, previous and stop.

Pure logic on timestamps: no Qt and no clock of its own.  The caller drives it with the
present timestamps of the frames that reach the screen, so the schedule cannot drift
against the frames:

- :meth:`Playback.start` asks for entry 0 (a :class:`EntryChange`);
- when the first frame showing a requested entry has been presented, the caller says so
  with :meth:`Playback.shown` ``(frame, t)``: that entry's dwell starts at ``t`` and the
  log records ``frame`` and ``t`` (and closes the record of the entry it replaced);
- after every present, :meth:`Playback.advance` ``(t, period)`` returns the next
  :class:`EntryChange` once the dwell is up, else ``None``.  With ``period`` (the frame period)
  it asks for the change one frame ahead, so the next entry's first frame is the one
  presented nearest the deadline: an entry whose dwell is a whole number of frames is
  shown for exactly that many (and every entry for at least one frame).

Pausing freezes the running dwell (the entry stays on screen; the time paused is logged,
whether the entry is left by resume and its dwell, by next or previous while still paused, or
by stop); next and previous start the new entry's dwell afresh when it is shown (paused too
when stepped to while paused).  A :class:`EntryChange`
to ``None`` ends a run that is not looped: the last entry stays on screen, and its record
closes at the next present, exactly when its dwell ended.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence
from dataclasses import astuple, dataclass, fields
from pathlib import Path

from core.atomic import atomic_text, require_parent

IDLE, PLAYING, PAUSED, FINISHED, STOPPED = "idle", "playing", "paused", "finished", "stopped"


@dataclass(frozen=True)
class EntryChange:
    """The entry to show next (``position``; ``None`` ends the run) and why."""
    position: int | None
    reason: str          # "start", "dwell", "next", "previous"


@dataclass(frozen=True)
class PlayRecord:
    """One entry's time on screen during a run.

    ``frame``/``shown_s``: the first frame that showed it and its present timestamp.
    ``left_frame``/``left_s``: the present at which its part of the run ended -- the first
    frame of what followed (or, at the end of a run, the first frame after its dwell); for a
    stop, the last frame presented before it.  ``paused_s``: time paused while it was up.
    ``left_by``: "dwell", "next", "previous" or "stop".
    """
    preset: str
    entry: int           # 1-based, as menus and the status bar count
    lap: int             # 1 for the first pass, 2 for the second of a looped run, ...
    name: str
    pattern: str
    frame: int
    shown_s: float
    left_frame: int | None = None
    left_s: float | None = None
    paused_s: float = 0.0
    left_by: str = ""

    @property
    def on_screen_s(self) -> float | None:
        return None if self.left_s is None else self.left_s - self.shown_s


_COLUMNS = [f.name for f in fields(PlayRecord)]
_INTS = {"entry", "lap", "frame", "left_frame"}
_FLOATS = {"shown_s", "left_s", "paused_s"}


class PlaybackLog:
    """The records of one run, in the order the entries were shown."""

    def __init__(self, records: Sequence[PlayRecord] = ()):
        self.records: list[PlayRecord] = list(records)

    def __len__(self) -> int:
        return len(self.records)

    def __iter__(self):
        return iter(self.records)

    def snapshot(self) -> PlaybackLog:
        """A copy that later records do not change (to write on another thread)."""
        return PlaybackLog(self.records)

    def to_csv(self) -> str:
        """CSV text (RFC 4180: CRLF rows): one header row, one row per record, times at full
        float precision."""
        out = io.StringIO()
        w = csv.writer(out)
        w.writerow(_COLUMNS + ["on_screen_s"])
        for r in self.records:
            w.writerow([_cell(v) for v in astuple(r)] + [_cell(r.on_screen_s)])
        return out.getvalue()

    def write_csv(self, path) -> int:
        """Write the log as CSV (through :mod:`core.atomic`); returns the number of records.

        Refuses (``ValueError``) a path whose folder does not exist.
        """
        atomic_text(require_parent(path), self.to_csv())
        return len(self.records)

    @classmethod
    def from_csv(cls, text: str) -> PlaybackLog:
        """The log :meth:`to_csv` wrote (``ValueError`` naming the row for anything else)."""
        try:
            rows = list(csv.reader(io.StringIO(text, newline="")))
        except csv.Error as exc:
            raise ValueError(f"play log: not CSV ({exc})") from None
        if not rows or rows[0][:len(_COLUMNS)] != _COLUMNS:
            raise ValueError(f"play log: the header must start with {','.join(_COLUMNS)}")
        records = []
        for n, row in enumerate(rows[1:], start=2):
            if len(row) < len(_COLUMNS):
                raise ValueError(f"play log row {n}: {len(row)} cells, expected {len(_COLUMNS) + 1}")
            try:
                values = {k: _uncell(k, v) for k, v in zip(_COLUMNS, row, strict=False)}
            except ValueError as exc:
                raise ValueError(f"play log row {n}: {exc}") from None
            records.append(PlayRecord(**values))
        return cls(records)

    @classmethod
    def read_csv(cls, path) -> PlaybackLog:
        """The log in a file :meth:`write_csv` wrote (bytes as written: no newline translation)."""
        return cls.from_csv(Path(path).read_bytes().decode("utf-8"))


def _cell(v) -> str:
    if v is None:
        return ""
    return repr(v) if isinstance(v, float) else str(v)


def _uncell(key: str, text: str):
    if key in _INTS:
        return None if text == "" else int(text)
    if key in _FLOATS:
        if text == "":
            return None
        v = float(text)
        if not math.isfinite(v):
            raise ValueError(f"{key}: {text!r} is not a finite number")
        return v
    return text


class Playback:
    """The schedule of one run over entries with the given dwells (seconds each).

    States: ``idle`` (not started), ``playing``, ``paused``, ``finished`` (a run that is not
    looped reached its end), ``stopped``.  Refuses (``ValueError``) an empty list or a dwell
    that is not a positive finite number.
    """

    def __init__(self, dwells: Sequence[float], *, loop: bool = False, preset: str = "",
                 names: Sequence[str] = (), patterns: Sequence[str] = ()):
        dwells = [float(d) for d in dwells]
        if not dwells:
            raise ValueError("a playback needs at least one entry")
        for i, d in enumerate(dwells):
            if not math.isfinite(d) or d <= 0:
                raise ValueError(f"entry {i + 1}: dwell_s must be a positive finite number, got {d!r}")
        self.dwells = dwells
        self.loop = bool(loop)
        self.preset = preset
        self._names = list(names) + [""] * (len(dwells) - len(names))
        self._patterns = list(patterns) + [""] * (len(dwells) - len(patterns))
        self.state = IDLE
        self.position = 0
        self.lap = 1
        self.log = PlaybackLog()
        self._pending: EntryChange | None = None    # requested, not yet on screen
        self._open: PlayRecord | None = None   # the record of the entry on screen
        self._shown_at: float | None = None
        self._paused_total = 0.0
        self._paused_since: float | None = None

    @classmethod
    def of(cls, preset, *, loop: bool = False) -> Playback:
        """A playback of a :class:`~core.patterns.presets.Preset`'s entries and dwells."""
        return cls(preset.dwells(), loop=loop, preset=preset.name,
                   names=[e.label for e in preset.entries], patterns=[e.pattern for e in preset.entries])

    def __len__(self) -> int:
        return len(self.dwells)

    # ------------------------------------------------------------ state
    @property
    def active(self) -> bool:
        """Playing or paused: the schedule still drives the screen."""
        return self.state in (PLAYING, PAUSED)

    @property
    def paused(self) -> bool:
        return self.state == PAUSED

    @property
    def ended(self) -> bool:
        """Finished or stopped: nothing more will be shown."""
        return self.state in (FINISHED, STOPPED)

    @property
    def finished(self) -> bool:
        """A run that is not looped played its last entry to the end."""
        return self.state == FINISHED

    @property
    def switching(self) -> bool:
        """A change was asked for and its first frame has not been presented yet."""
        return self._pending is not None

    def remaining(self, now: float) -> float | None:
        """Seconds left of the current entry's dwell (frozen while paused; the whole dwell
        until it is shown); ``None`` once the run has ended."""
        if self.state in (FINISHED, STOPPED):
            return None
        dwell = self.dwells[self.position]
        if self._pending is not None:
            return 0.0 if self._pending.position is None else dwell
        if self._shown_at is None:
            return dwell
        return max(0.0, dwell - self._elapsed(now))

    def _elapsed(self, now: float) -> float:
        assert self._shown_at is not None   # both callers return early while nothing is shown
        end = self._paused_since if self._paused_since is not None else now
        return end - self._shown_at - self._paused_total

    # ------------------------------------------------------------ driving
    def start(self) -> EntryChange:
        """Ask for entry 0 (again, for a run that ended); the log starts afresh."""
        self.state = PLAYING
        self.position, self.lap = 0, 1
        self.log = PlaybackLog()
        self._open, self._shown_at = None, None
        self._paused_total, self._paused_since = 0.0, None
        return self._request(EntryChange(0, "start"))

    def shown(self, frame: int, now: float) -> None:
        """The first frame of the requested change, ``frame``, was presented at ``now``."""
        change = self._pending
        if change is None:
            return
        self._pending = None
        if self._paused_since is not None:   # left paused (next, previous): its pause is its own
            self._add_paused(max(0.0, now - self._paused_since))
        self._close(frame, now, change.reason)
        if change.position is None:
            self.state = FINISHED
            self._shown_at = None
            return
        self._shown_at = now
        self._paused_total = 0.0
        if self._paused_since is not None:   # stepped while paused: the new dwell waits too
            self._paused_since = now
        self._open = PlayRecord(self.preset, change.position + 1, self.lap, self._names[change.position],
                                self._patterns[change.position], int(frame), float(now))

    def advance(self, now: float, period: float = 0.0) -> EntryChange | None:
        """After the present at ``now``: the next change once the current dwell is up, else None.

        ``period`` (seconds) is when the frame being prepared will be presented; the change
        is asked for when that frame lands within half a period of the deadline.
        """
        if self.state != PLAYING or self._pending is not None or self._shown_at is None:
            return None
        period = max(0.0, float(period))
        if self.dwells[self.position] - self._elapsed(now + period) > period / 2:
            return None
        return self._step(+1, "dwell")

    def next(self) -> EntryChange | None:
        """Ask for the next entry now (the end of a run that is not looped, after the last)."""
        return self._step(+1, "next") if self.active else None

    def previous(self) -> EntryChange | None:
        """Ask for the previous entry now (the first restarts, unless the run loops)."""
        return self._step(-1, "previous") if self.active else None

    def pause(self, now: float) -> None:
        if self.state == PLAYING:
            self.state = PAUSED
            self._paused_since = now

    def resume(self, now: float) -> None:
        if self.state == PAUSED:
            self.state = PLAYING
            if self._paused_since is not None and self._shown_at is not None:
                paused = max(0.0, now - self._paused_since)
                self._paused_total += paused
                self._add_paused(paused)
            self._paused_since = None

    def stop(self, frame: int | None, now: float | None) -> None:
        """End the run; the entry on screen leaves the log at the last present (``frame``, ``now``)."""
        if self.state in (FINISHED, STOPPED):
            return
        if self._paused_since is not None and now is not None:
            self._add_paused(max(0.0, now - self._paused_since))
        self._paused_since = None
        self._pending = None
        self._close(frame, now, "stop")
        self.state = STOPPED

    # ------------------------------------------------------------ helpers
    def _step(self, delta: int, reason: str) -> EntryChange:
        # From the entry asked for last, so two quick presses of Next move two entries.
        pos = self._pending.position if self._pending is not None else self.position
        if pos is None:
            pos = len(self) - 1
        target = pos + delta
        if target >= len(self):
            if not self.loop:
                return self._request(EntryChange(None, reason))
            target, self.lap = 0, self.lap + 1
        elif target < 0:
            target = len(self) - 1 if self.loop else 0
        return self._request(EntryChange(target, reason))

    def _request(self, change: EntryChange) -> EntryChange:
        self._pending = change
        if change.position is not None:
            self.position = change.position
        return change

    def _add_paused(self, seconds: float) -> None:
        if self._open is not None:
            r = self._open
            self._open = PlayRecord(**{**_asdict(r), "paused_s": r.paused_s + seconds})

    def _close(self, frame: int | None, now: float | None, why: str) -> None:
        if self._open is None:
            return
        self.log.records.append(PlayRecord(**{**_asdict(self._open), "left_frame": frame,
                                              "left_s": None if now is None else float(now),
                                              "left_by": why}))
        self._open = None


def _asdict(r: PlayRecord) -> dict:
    return {f: getattr(r, f) for f in _COLUMNS}


__all__ = ["EntryChange", "FINISHED", "IDLE", "PAUSED", "PLAYING", "PlayRecord", "Playback", "PlaybackLog",
           "STOPPED"]
