"""File dialogs open in the folder last used for their kind, else the user's documents --
never the working directory (for a checkout, the source folder); the folders persist."""

import os

import pytest
from PySide6.QtWidgets import QFileDialog

from app import settings as S
from app.dialogs import FileDialogs, documents_dir
from tests.helpers import ROOT

pytestmark = pytest.mark.qt


@pytest.fixture
def asked(monkeypatch):
    """Replace Qt's dialogs: record the start folder each is given, answer from ``answers``."""
    calls, answers = [], []

    def fake(kind):
        def ask(parent, title, start="", *rest):
            calls.append((kind, title, start))
            answer = answers.pop(0) if answers else ""
            return answer if kind == "folder" else (answer, "")
        return staticmethod(ask)

    monkeypatch.setattr(QFileDialog, "getSaveFileName", fake("save"))
    monkeypatch.setattr(QFileDialog, "getOpenFileName", fake("open"))
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", fake("folder"))
    return calls, answers


def test_first_time_documents_then_the_last_folder_per_kind(asked, tmp_path):
    calls, answers = asked
    docs, shots, caps = tmp_path / "Documents", tmp_path / "shots", tmp_path / "captures"
    for d in (docs, shots, caps):
        d.mkdir()
    dialogs = FileDialogs(documents=lambda: str(docs))
    answers.append(str(shots / "frame.png"))
    assert dialogs.save_file(None, "frame", "Save", "frame.png", "*.png") == str(shots / "frame.png")
    assert calls[-1][2] == str(docs / "frame.png")
    dialogs.save_file(None, "frame", "Save", "next.png", "*.png")           # cancelled: ''
    assert calls[-1][2] == str(shots / "next.png")
    dialogs.open_file(None, "manifest", "Manifest", "*.json")              # another kind: documents
    assert calls[-1][2] == str(docs)
    answers.append(str(caps))
    dialogs.folder(None, "capture", "Captures")
    dialogs.folder(None, "capture", "Captures")
    assert calls[-1][2] == str(caps)
    caps.rmdir()                                                           # gone: back to documents
    dialogs.folder(None, "capture", "Captures")
    assert calls[-1][2] == str(docs)
    assert all(not c[2].startswith(str(ROOT)) for c in calls)


def test_documents_is_a_folder_that_exists_and_not_the_working_directory():
    d = documents_dir()
    assert os.path.isdir(d) and os.path.abspath(d) != os.getcwd()


def test_the_windows_dialogs_remember_their_folders_between_runs(qtbot, asked, tmp_path, small_settings):
    from app.window import MainWindow

    calls, answers = asked
    out = tmp_path / "out"
    out.mkdir()
    win = MainWindow(settings=small_settings)
    qtbot.addWidget(win)
    answers.append(str(out / "t.csv"))
    win.export_timeline_dialog()
    qtbot.waitUntil(lambda: (out / "t.csv").exists(), timeout=10_000)
    assert not calls[-1][2].startswith(str(ROOT))
    win.close()
    again = MainWindow(settings=S.load())
    qtbot.addWidget(again)
    again.save_frame_dialog()                          # cancelled; started where the CSV went?
    assert not calls[-1][2].startswith(str(out))      # another kind: not that folder ...
    again.export_timeline_dialog()
    assert calls[-1][2] == str(out / "timeline.csv")   # ... the same kind: there, after a restart
    again.close()
