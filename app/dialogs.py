"""File dialogs that open where the operator last was, never in testcard's own folder.

Every dialog has a kind (``frame``, ``timeline``, ``decisions``, ``capture``, ``manifest``,
``report``...).  It opens in the folder last used for that kind -- kept in the settings'
``dialog_dirs``, so it lasts between runs -- or, the first time and when that folder is gone,
in the user's documents folder (``QStandardPaths.DocumentsLocation``, else the home folder).
Qt's own default would be the working directory, which for a source checkout is the source.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QStandardPaths
from PySide6.QtWidgets import QFileDialog

from app.settings import Settings


def documents_dir() -> str:
    """The user's documents folder where the platform names one, else the home folder."""
    docs = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    return docs if docs and os.path.isdir(docs) else str(Path.home())


class FileDialogs:
    """Open, save and folder dialogs with a remembered start folder per kind.

    ``settings``: whose ``dialog_dirs`` remember the folders (None: remembered for this object's
    life only); ``documents``: the first-time folder (default :func:`documents_dir`).
    """

    def __init__(self, settings: Settings | None = None, documents: Callable[[], str] | None = None):
        self.folders: dict[str, str] = settings.dialog_dirs if settings is not None else {}
        self._documents = documents or documents_dir

    def start_dir(self, kind: str) -> str:
        folder = self.folders.get(kind)
        return folder if folder and os.path.isdir(folder) else self._documents()

    def remember(self, kind: str, path: str, is_folder: bool = False) -> None:
        """Remember the folder of ``path`` (``path`` itself when ``is_folder``) for ``kind``."""
        folder = path if is_folder else os.path.dirname(path)
        if folder:
            self.folders[kind] = os.path.abspath(folder)

    def save_file(self, parent, kind: str, title: str, name: str, filters: str) -> str:
        """A path to write, suggested as ``name`` in the start folder; '' when cancelled."""
        path, _ = QFileDialog.getSaveFileName(parent, title, os.path.join(self.start_dir(kind), name),
                                              filters)
        if path:
            self.remember(kind, path)
        return path

    def open_file(self, parent, kind: str, title: str, filters: str) -> str:
        """An existing file to read; '' when cancelled."""
        path, _ = QFileDialog.getOpenFileName(parent, title, self.start_dir(kind), filters)
        if path:
            self.remember(kind, path)
        return path

    def folder(self, parent, kind: str, title: str) -> str:
        """An existing folder; '' when cancelled."""
        path = QFileDialog.getExistingDirectory(parent, title, self.start_dir(kind))
        if path:
            self.remember(kind, path, is_folder=True)
        return path
