"""The control window's decision cache, read off the GUI thread.

:class:`DecisionsWatch` reads the live output's decision cache on a worker once the window is
up, and again every :attr:`DecisionsWatch.INTERVAL_MS` (a verdict another testcard recorded);
it says once what is wrong with the file, and chooses the render path again when what the
cache holds changed, through the session's one rule
(:meth:`~app.preview.OutputSession.rechoose_path`, which says what changed).  The loop itself
never parses the file (the session holds the cache).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer, Signal


class DecisionsWatch(QObject):
    """The decision cache ``decisions`` (held by the session), read with ``worker`` (a
    :class:`~app.workers.TaskRunner`); ``rechoose()`` chooses the loop's path again (the
    session's ``rechoose_path``)."""

    notice = Signal(str)        # a sentence for the operator (the status bar and the log)
    warning = Signal(str)       # what is wrong with the cache file, once
    path_changed = Signal()     # the render path was chosen again (the status may differ)

    INTERVAL_MS = 10_000        # how often the cache is checked

    def __init__(self, decisions, rechoose: Callable[[], object], worker, parent=None):
        super().__init__(parent)
        self.decisions, self.worker = decisions, worker
        self._rechoose = rechoose
        self.closed = False
        self.timer = QTimer(self)
        self.timer.setInterval(self.INTERVAL_MS)
        self.timer.timeout.connect(lambda: self.worker.submit(self.decisions.refresh, self._read))

    def start(self) -> None:
        """The first read now (its notes said whatever it finds), the later ones on the timer."""
        self.worker.submit(self.decisions.refresh, lambda changed, exc: self._read(changed, exc, first=True))
        self.timer.start()

    def stop(self) -> None:
        self.closed = True
        self.timer.stop()

    def _read(self, changed: bool, exc: Exception | None, first: bool = False) -> None:
        if self.closed:
            return
        if exc is not None:
            self.notice.emit(f"the decision cache was not read: {exc}")
            return
        for note in self.decisions.notes if (first or changed) else ():
            self.warning.emit(note)
        if changed:
            self.rechoose()

    def rechoose(self) -> None:
        """Choose the live output's render path again: a verdict saved or imported a moment
        ago takes effect on the next frame."""
        self._rechoose()
        self.path_changed.emit()
