"""What each present of the frame loop showed, recorded in its timeline, and the stall test hook.

:class:`PresentLog` appends one timeline row per present (a frame rendered for it, or the frame
on screen presented again) and counts them; the test hook :func:`stall_every` makes it record
a frame as presented that never reaches the screen.
"""

from __future__ import annotations

import os

STALL_EVERY_ENV = "TESTCARD_TEST_STALL_EVERY"   # test hook: see stall_every()


def stall_every(environ=None) -> int:
    """The test hook ``TESTCARD_TEST_STALL_EVERY=N`` (0: off): every N-th present, the loop
    behaves as a presenter stalled and caught up by a compositor that discards a frame: the
    frame after the one just shown is recorded as presented (the same present time) and never
    reaches the screen, and the loop moves on to the one after.  A capture shows it as a display
    drop of a frame testcard logged as presented.  Read here only, once per loop."""
    text = (os.environ if environ is None else environ).get(STALL_EVERY_ENV, "").strip()
    return int(text) if text.isdigit() else 0


class PresentLog:
    """The presents recorded in ``timeline`` (a :class:`~core.timing.Timeline`): ``count`` of
    them, ``shown_path`` the render path of the frame on screen, ``stall_every`` the hook's N."""

    def __init__(self, timeline, stall_every: int = 0):
        self.timeline = timeline
        self.count = 0
        self.shown_path = "numpy"
        self.stall_every = stall_every

    def presented(self, got, t_paint: float, t_done: float, upload_ms: float, paused: bool) -> None:
        """``got`` (a :class:`~core.timing.render_ahead.Handed`) reached the screen."""
        present_ms = (t_done - t_paint) * 1e3
        if got.fresh:
            r = got.result[0]
            self.timeline.append(got.index, t_done, r.render_ms, r.transfer_ms, upload_ms, present_ms,
                                 r.path, r.warmup, paused, r.error)
        else:                                     # the frame on screen, presented again
            self.timeline.append(got.index, t_done, 0.0, 0.0, upload_ms, present_ms,
                                 self.shown_path, False, paused, None)
        self.count += 1

    def stalls(self, paused: bool) -> bool:
        """Whether the hook discards the frame after the one just presented."""
        return bool(self.stall_every) and not paused and self.count % self.stall_every == 0

    def discarded(self, index: int, t_done: float) -> None:
        """The hook: ``index`` recorded as presented at ``t_done``, never shown."""
        self.timeline.append(index, t_done, 0.0, 0.0, 0.0, 0.0, self.shown_path, False, False, None)
        self.count += 1
