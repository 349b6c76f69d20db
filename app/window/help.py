"""The Help menu's windows: the keyboard shortcuts, the user guide, About.

:class:`ShortcutsDialog` lists the window's real actions at run time (every ``QAction`` with a
shortcut, under the menu it sits in), so it shows what the keys do now, panels' actions
included.  The user guide is the manual, opened at the page for this window (docs/app.md): the
built manual where it is bundled (``site/`` beside the code, as ``mkdocs build -d site`` leaves
it, or a ``manual/`` folder in the package's resources), else the page's Markdown in ``docs/``
beside the code (a source checkout, an editable install), else the README beside the code,
else the project page the package metadata names, else the README text the package carries,
shown here.
"""

from __future__ import annotations

from importlib import metadata, resources
from pathlib import Path

from PySide6.QtCore import QUrl
from PySide6.QtGui import QAction, QDesktopServices, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QMenu,
    QMessageBox,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QVBoxLayout,
)

from app.window.shortcuts import plain
from core import version

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DISTRIBUTION = "testcard"
PAGE = "app"        # the manual's page for this window: docs/app.md, app.html when built


def action_rows(win) -> list[tuple[str, str, str]]:
    """``(menu, action, keys)`` for every action of ``win`` that has a shortcut, in the order
    of the menu bar and of each menu; keys in the platform's own notation, several joined by
    ", "."""
    order = {plain(a.text()): i for i, a in enumerate(win.menuBar().actions())}
    rows = {}
    for a in win.findChildren(QAction):
        keys = ", ".join(k.toString(QKeySequence.SequenceFormat.NativeText) for k in a.shortcuts()
                         if not k.isEmpty())
        if not keys:
            continue
        menus = [m for m in a.associatedObjects() if isinstance(m, QMenu)]
        title = plain(menus[0].title()) if menus else ""
        where = (order.get(title, len(order)), menus[0].actions().index(a) if menus else 0)
        rows.setdefault((title, plain(a.text()), keys), where)
    return sorted(rows, key=lambda r: (rows[r], r))


class ShortcutsDialog(QDialog):
    """A table of every shortcut: menu, action, keys."""

    def __init__(self, win):
        super().__init__(win)
        self.setWindowTitle("Keyboard shortcuts")
        self.rows = action_rows(win)
        lay = QVBoxLayout(self)
        self.table = QTableWidget(len(self.rows), 3)
        self.table.setHorizontalHeaderLabels(["menu", "action", "keys"])
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        for i, row in enumerate(self.rows):
            for j, text in enumerate(row):
                self.table.setItem(i, j, QTableWidgetItem(text))
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        lay.addWidget(self.table)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)
        self.resize(460, min(640, 90 + (self.fontMetrics().height() + 8) * len(self.rows)))

    def shown_rows(self) -> list[tuple[str, str, str]]:
        """What the table shows, row by row (for tests)."""
        return [tuple(self.table.item(i, j).text() for j in range(3)) for i in range(self.table.rowCount())]


def bundled_manuals(root: Path = ROOT) -> list[Path]:
    """Folders a built manual may be in: ``site/`` beside the code, then the package's own."""
    found = [root / "site"]
    try:
        found.append(Path(str(resources.files("resources") / "manual")))
    except (ModuleNotFoundError, TypeError):
        pass
    return found


def guide_url(root: Path = ROOT, dist: str = DISTRIBUTION, manuals: list[Path] | None = None) -> QUrl:
    """Where the user guide is, best first: the built manual at this window's page (or its home
    page), the page's Markdown in ``docs/``, the README beside the code, the project URL in the
    package metadata; an empty URL when there is none of them."""
    for site in bundled_manuals(root) if manuals is None else manuals:
        if (site / "index.html").is_file():
            page = site / f"{PAGE}.html"
            return QUrl.fromLocalFile(str(page if page.is_file() else site / "index.html"))
    for local in (root / "docs" / f"{PAGE}.md", root / "README.md"):
        if local.is_file():
            return QUrl.fromLocalFile(str(local))
    try:
        meta = metadata.metadata(dist)
    except metadata.PackageNotFoundError:
        return QUrl()
    for entry in meta.get_all("Project-URL") or []:
        url = entry.split(",", 1)[-1].strip()
        if url.startswith(("http://", "https://")):
            return QUrl(url)
    home = meta.get("Home-page") or ""
    return QUrl(home) if home.startswith(("http://", "https://")) else QUrl()


def open_readme(win, open_url=QDesktopServices.openUrl) -> QUrl:
    """Open the user guide (see :func:`guide_url`); where the system cannot open it, show the
    README text the package carries.  Returns the URL tried (empty when there was none)."""
    url = guide_url()
    if url.isValid() and not url.isEmpty() and open_url(url):
        return url
    text = _packaged_readme()
    if text:
        box = QDialog(win)
        box.setWindowTitle("testcard user guide")
        lay = QVBoxLayout(box)
        view = QTextBrowser()
        view.setMarkdown(text)
        view.setOpenExternalLinks(True)
        lay.addWidget(view)
        box.resize(800, 600)
        box.show()
    else:
        QMessageBox.information(win, "testcard user guide",
                                "The user guide is testcard's manual; this copy carries none. "
                                "`testcard --help` lists the commands.")
    return url


def _packaged_readme() -> str:
    try:
        meta = metadata.metadata(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return ""
    return meta.get_payload() or meta.get("Description") or ""


def show_about(win) -> None:
    QMessageBox.about(win, "testcard", f"testcard {version()}\nDisplay test patterns as exact code "
                      "values, frame timing against the refresh budget.")
