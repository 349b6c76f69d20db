"""The Remote dock: what calibration software is doing to the output.

It shows the remote connections and their state ("listening on 127.0.0.1:85", "connected to
..."), the patch on screen (what was asked, the frame that first showed it, receive-to-present
latency), the latency over the last patches, and the last commands and events, newest at the
bottom.  Connections are opened and closed from the Remote menu; the dock's Close all button
closes every one.

It receives the window's :class:`app.preview.RemoteLink` (``main_window.remote``) and only
connects to its signals: it computes nothing itself.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from core.remote import TITLES

PANEL_TITLE = "Remote"
PANEL_AREA = "bottom"
SHOWN_EVENTS = 100          # lines the list keeps
NO_CONNECTIONS = "No connection. Open one from the Remote menu (Resolve, ArgyllCMS, PGenerator, UPGCI)."


def event_text(record: dict) -> str:
    """One line of the event list."""
    kind = record.get("kind", "")
    if kind == "shown":
        latency = record.get("latency_ms")
        lat = f" after {latency:.1f} ms" if latency is not None else ""
        return f"shown at frame {record.get('frame')}{lat}: {record.get('message', '')}"
    source = record.get("source", "")
    return f"{source} {kind}: {record.get('message', '')}".strip()


class RemotePanel(QWidget):
    """Connections, the patch on screen, latency and the last events of a RemoteLink."""

    def __init__(self, link, parent=None):
        super().__init__(parent)
        self.link = link
        self.connections = QLabel(NO_CONNECTIONS)
        self.connections.setObjectName("RemoteConnections")
        self.connections.setWordWrap(True)
        self.connections.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.close_all = QPushButton("Close all")
        self.close_all.setToolTip("close every remote connection")
        self.close_all.clicked.connect(link.close_all)
        top = QHBoxLayout()
        top.addWidget(self.connections, 1)
        top.addWidget(self.close_all, 0, Qt.AlignmentFlag.AlignTop)

        self.patch = QLabel("\u2013")
        self.patch.setObjectName("RemotePatch")
        self.patch.setWordWrap(True)
        self.frame = QLabel("\u2013")
        self.latency = QLabel("\u2013")
        self.latency.setObjectName("RemoteLatency")
        self.note = QLabel("")
        self.note.setWordWrap(True)
        box = QGroupBox("On screen")
        form = QFormLayout(box)
        form.addRow("Patch", self.patch)
        form.addRow("First frame", self.frame)
        form.addRow("Receive \u2192 present", self.latency)
        form.addRow("", self.note)

        self.events = QListWidget()
        self.events.setObjectName("RemoteEvents")
        self.events.setMinimumHeight(80)
        self.events.setUniformItemSizes(True)

        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(box)
        layout.addWidget(QLabel("Last commands and events"))
        layout.addWidget(self.events, 1)

        link.state_changed.connect(lambda _k, _s: self.show_connections())
        link.connections_changed.connect(self.show_connections)
        link.patch_shown.connect(self.show_patch)
        link.event_logged.connect(self.add_event)
        for record in list(link.events)[-SHOWN_EVENTS:]:
            self.add_event(record)
        if link.on_screen is not None:
            self.show_patch(link.on_screen)
        self.show_connections()

    def show_connections(self) -> None:
        keys = list(self.link.transports)
        self.close_all.setEnabled(bool(keys))
        if not keys:
            self.connections.setText(NO_CONNECTIONS)
            return
        lines = [f"{TITLES[self.link.connections[key].kind]}: {self.link.states.get(key, '')}"
                 for key in keys]
        self.connections.setText("\n".join(lines))

    def show_patch(self, record: dict) -> None:
        self.patch.setText(record.get("message", ""))
        self.frame.setText(f"{record.get('frame')} (present at {record.get('present_s', 0.0):.3f} s)")
        latency = record.get("latency_ms")
        summary = self.link.latency_summary()
        self.latency.setText(f"{latency:.1f} ms ({summary})" if latency is not None else summary or "\u2013")
        self.note.setText(record.get("note") or "")

    def add_event(self, record: dict) -> None:
        if record.get("kind") == "presented":
            return   # the shown line says it, with the patch
        self.events.addItem(event_text(record))
        while self.events.count() > SHOWN_EVENTS:
            self.events.takeItem(0)
        self.events.scrollToBottom()

    def texts(self) -> dict[str, str]:
        """What the dock shows (tests and screenshots)."""
        return {"connections": self.connections.text(), "patch": self.patch.text(),
                "frame": self.frame.text(), "latency": self.latency.text(),
                "events": [self.events.item(i).text() for i in range(self.events.count())]}


def create_panel(main_window) -> RemotePanel:
    """The dock of the main window's remote connections (``main_window.remote``)."""
    return RemotePanel(main_window.remote)


__all__ = ["PANEL_AREA", "PANEL_TITLE", "RemotePanel", "create_panel", "event_text"]
