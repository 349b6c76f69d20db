"""The main window's remote connections: the Remote menu and the slots behind it.

A mixin of :class:`~app.window.main_window.MainWindow` (it uses the window's loop, frame
settings, editor, catalog and player), kept apart so the window module stays its construction.
The window's :class:`~app.preview.RemoteLink` (``win.remote``) shows each patch as the
window's own pattern (the editor and the catalog follow; a playing preset stops) on the frame
settings' depth, range, size and counter overlay; the Remote dock
(:mod:`app.panels.remote`) shows what it does.
"""

from __future__ import annotations

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QInputDialog, QLineEdit

from app.preview import RemoteLink
from core.patterns import FrameFormat
from core.remote import DEFAULT_ADDRESSES, KINDS, TITLES, discovery_for, parse_connection

# what each Open action asks for, and how
ASK = {"resolve": "Host[:port] of the calibration program (DisplayCAL: Resolve mode, port 20002):",
       "argyll-web": "Address of dispwin -dweb (as it prints it), e.g. http://127.0.0.1:8080:",
       "pgenerator": "[Address:]port to listen on (HCFR connects to port 85; 0.0.0.0:85 for the "
                     "network; ports under 1024 need privileges):",
       "upgci": "[Address:]port to listen on (Calman, ColourSpace; default 2100):"}


class RemoteActions:
    """Remote slots of the main window."""

    def _build_remote(self) -> None:
        self.remote = RemoteLink(self.loop, self.show_remote_spec, self.remote_surface, parent=self)
        self.remote.connections_changed.connect(self._rebuild_remote_menu)
        self.remote.patch_shown.connect(
            lambda r: self.statusBar().showMessage(f"remote: {r['message']}", 5000))

    def remote_surface(self) -> FrameFormat:
        """What a remote patch is rendered in: the frame settings' format as it is now."""
        return self.frame_settings.frame_format()

    def show_remote_spec(self, spec) -> bool:
        """A remote patch on the live output, as if chosen here (a preset playing stops)."""
        self.player.stop()
        self.patterns.remember_params()
        if not self.patterns.show(spec):
            return False
        self.patterns.show_editor(spec)
        self.catalog.select(spec.pattern)   # after: the pattern is the spec's, nothing is re-chosen
        return True

    def open_remote(self, kind: str, text: str | None = None) -> str | None:
        """Open a connection (``text`` as typed; None: the kind's default); a refusal is a
        notice, never an exception.  Returns the connection's key, or None."""
        try:
            conn = parse_connection(kind, text)
            if conn.kind == "discovery" and text is None:
                server = next((c for c in self.remote.connections.values() if c.kind == "pgenerator"), None)
                if server is None:
                    raise ValueError("PGenerator discovery answers for a PGenerator server: "
                                     "open one first")
                conn = discovery_for(server)
            w, h = self.frame_settings.frame_size()
            key = self.remote.open(conn, resolution=(w, h),
                                   refresh_hz=1000.0 / self.loop.period_ms)
        except ValueError as exc:
            self._notice(str(exc))
            return None
        self._notice(f"{TITLES[conn.kind]} {self.remote.where(key)}")
        return key

    def ask_remote(self, kind: str) -> None:
        text, ok = QInputDialog.getText(self, TITLES[kind], ASK[kind], QLineEdit.EchoMode.Normal,
                                        DEFAULT_ADDRESSES[kind])
        if ok:
            self.open_remote(kind, text)

    def close_remote(self, key: str) -> None:
        conn = self.remote.connections.get(key)
        self.remote.close(key)
        if conn is not None:
            self._notice(f"closed the {TITLES[conn.kind]}")

    def _rebuild_remote_menu(self) -> None:
        rebuild_remote_menu(self)


def build_remote_menu(win, mb) -> None:
    """Remote: open each kind of connection, answer PGenerator discovery, close one or all."""
    m = mb.addMenu("Re&mote")
    win.menu_remote = m
    win.remote_open_actions = {}
    for kind in KINDS:
        if kind == "discovery":
            continue
        act = QAction(f"{TITLES[kind]}\u2026", win)
        act.triggered.connect(lambda _=False, k=kind: win.ask_remote(k))
        win.remote_open_actions[kind] = act
    act = QAction("Answer PGenerator &discovery", win)
    act.setToolTip("answer HCFR's UDP search (port 1977) on the PGenerator server's address")
    act.triggered.connect(lambda: win.open_remote("discovery"))
    win.remote_open_actions["discovery"] = act
    win.act_remote_close_all = QAction("&Close all connections", win)
    win.act_remote_close_all.triggered.connect(win.remote.close_all)
    m.setToolTipsVisible(True)
    rebuild_remote_menu(win)


def rebuild_remote_menu(win) -> None:
    """The open actions, then one Close entry per open connection, then Close all."""
    m = win.menu_remote
    m.clear()
    for act in win.remote_open_actions.values():
        m.addAction(act)
    m.addSeparator()
    for key in win.remote.transports:
        title = TITLES[win.remote.connections[key].kind]
        a = QAction(f"Close {title} ({win.remote.where(key)})", m)   # the menu's: clear() deletes it
        a.triggered.connect(lambda _=False, k=key: win.close_remote(k))
        m.addAction(a)
    m.addAction(win.act_remote_close_all)
    win.act_remote_close_all.setEnabled(bool(win.remote.transports))
