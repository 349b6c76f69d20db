"""The log dock: render errors, fallbacks and notices, newest last, with a time stamp."""

from __future__ import annotations

import logging
import time

from PySide6.QtWidgets import QDockWidget, QPlainTextEdit

log = logging.getLogger("testcard")


class LogDock(QDockWidget):
    MAX_LINES = 2000

    def __init__(self, parent=None):
        super().__init__("Log", parent)
        self.setObjectName("LogDock")
        self.view = QPlainTextEdit()
        self.view.setReadOnly(True)
        self.view.setMaximumBlockCount(self.MAX_LINES)
        self.setWidget(self.view)
        self.lines: list[str] = []

    def add(self, message: str, level: int = logging.INFO) -> None:
        line = f"{time.strftime('%H:%M:%S')}  {message}"
        self.lines.append(message)
        del self.lines[:-self.MAX_LINES]
        self.view.appendPlainText(line)
        log.log(level, message)
