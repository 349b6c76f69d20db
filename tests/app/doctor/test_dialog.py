"""Help > Doctor: the checks fill a table as they come, the headless ones on the one worker, and
the run can be cancelled or the dialog closed without waiting on the GUI thread."""

import threading

import pytest

from core.doctor import NOT_RUN

pytestmark = pytest.mark.qt


@pytest.fixture
def dialog(qtbot):
    from app.doctor import DoctorDialog
    from app.settings import Settings

    before = set(threading.enumerate())
    d = DoctorDialog(Settings(), quick=True, frames=30)
    qtbot.addWidget(d)
    d.show()
    yield d
    d.close()
    if d.worker is not None:
        d.worker.wait()
    left = [t for t in threading.enumerate() if t not in before and t.is_alive()]
    assert not left, f"threads left running: {left}"


def test_every_check_gets_a_row_as_it_comes(qtbot, dialog):
    rows_seen = []
    threads = []
    dialog.check_added.connect(lambda c: rows_seen.append(dialog.table.rowCount()))
    dialog.check_added.connect(lambda c: threads.append(threading.current_thread()))
    with qtbot.waitSignal(dialog.done, timeout=180_000):
        dialog.start()
    assert dialog.worker.thread.name == "testcard-doctor" and not dialog.worker.is_running
    n = dialog.table.rowCount()
    assert n == len(dialog.checks) and rows_seen == list(range(1, n + 1))   # one row per signal
    assert all(t is threading.main_thread() for t in threads)              # rows made on the GUI thread
    groups = {c.group for c in dialog.checks}
    assert {"screens", "hdr", "surface", "paths", "speed", "decisions", "capture"} <= groups
    verdicts = {dialog.table.item(r, 0).text(): dialog.table.item(r, 1).text() for r in range(n)}
    assert verdicts["paths: numpy on cpu"] == "ok"
    assert verdicts["paths: torch-compiled on cpu"] == NOT_RUN                # --quick
    assert verdicts["surface: presents"] == "warning"                         # offscreen: no vsync
    assert dialog.status.text().startswith("done: ")
    assert not dialog.cancel_button.isEnabled()


def test_cancel_lists_what_was_left_as_not_run(qtbot, dialog):
    with qtbot.waitSignal(dialog.done, timeout=180_000):
        dialog.start()
        dialog.cancel()
    figures = [c.figure for c in dialog.checks]
    assert "not run (cancelled)" in figures
    assert dialog.status.text().startswith("cancelled: ")
    assert dialog.table.rowCount() == len(dialog.checks)


def test_help_doctor_opens_the_dialog_and_closing_it_cancels(qtbot, main_window):
    win = main_window
    assert win.act_doctor in win.menuBar().actions()[-1].menu().actions()
    win.act_doctor.trigger()
    dialog = win.doctor_dialog
    assert dialog.isVisible() and dialog.table.rowCount() > 0        # the display checks, at once
    with qtbot.waitSignal(dialog.done, timeout=180_000):
        dialog.close()                                               # never waits on the worker
    assert not dialog.worker.is_running
    assert any(c.figure == "not run (cancelled)" for c in dialog.checks)
