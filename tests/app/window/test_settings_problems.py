"""A bad settings file never stops the window: it opens on defaults, and each reason is in the
log and the gist in the status bar; a settings folder that cannot be written is one line."""

import json

import pytest

pytestmark = pytest.mark.qt


def test_a_corrupt_settings_file_opens_on_defaults_with_the_reason_shown(qtbot):
    from app import settings as S
    from app.window import MainWindow

    p = S.settings_path()
    p.parent.mkdir(parents=True)
    p.write_bytes(b"\xff{ not settings")
    win = MainWindow()
    qtbot.addWidget(win)
    assert win.spec.pattern == "checkerboard"
    message = win.statusBar().currentMessage()
    assert "not UTF-8" in message and "moved aside" in message
    assert any("not UTF-8" in line for line in win.log_dock.lines)
    win.close()


def test_bad_values_are_listed_and_the_window_uses_the_defaults_for_them(qtbot):
    from app import settings as S
    from app.window import MainWindow

    p = S.settings_path()
    p.parent.mkdir(parents=True)
    p.write_text(json.dumps({"schema": 1, "pattern": "bars", "bit_depth": 99, "size": [64, 36],
                             "params": {"bars": {"level": "inf"}}}))
    win = MainWindow()
    qtbot.addWidget(win)
    assert win.spec.pattern == "bars" and win.spec.bit_depth == 8   # the default: the (raster) surface's
    assert win.spec.param_dict["level"] == 75.0
    assert win.statusBar().currentMessage().startswith("2 problems reading the settings")
    logged = "\n".join(win.log_dock.lines)
    assert "bit_depth: expected an integer 1..16, got 99" in logged
    assert "level: inf is not a finite number" in logged
    win.persist = False
    win.close()


def test_an_unwritable_settings_folder_is_one_log_line_on_close(qtbot, tmp_path, monkeypatch):
    from app.window import MainWindow

    blocker = tmp_path / "blocker"
    blocker.write_text("a file where the settings folder should be")
    monkeypatch.setenv("TESTCARD_CONFIG_DIR", str(blocker / "cfg"))
    win = MainWindow()
    qtbot.addWidget(win)
    win.close()
    lines = [line for line in win.log_dock.lines if "settings not saved" in line]
    assert len(lines) == 1 and lines[0].startswith("settings not saved to ")
    assert "\n" not in lines[0]


def test_a_window_closed_untouched_leaves_a_bad_settings_file_as_it_was(qtbot):
    """Replaced values are reported, not saved back: the window converts the palette to the
    surface's depth and falls back on the bad depth, but the user changed nothing."""
    from app import settings as S
    from app.window import MainWindow

    p = S.settings_path()
    p.parent.mkdir(parents=True)
    p.write_text(json.dumps({"schema": 1, "pattern": "checkerboard", "bit_depth": 99,
                             "size": [64, 36],
                             "params": {"checkerboard": {"palette": [[255, 255, 255]]}}}))
    before = p.read_bytes()
    win = MainWindow()
    qtbot.addWidget(win)
    assert win.spec.bit_depth == 8 and win.settings.problems     # fell back, and said so
    win.close()
    assert p.read_bytes() == before


def test_a_change_the_user_makes_is_still_saved(qtbot):
    from app import settings as S
    from app.window import MainWindow

    p = S.settings_path()
    p.parent.mkdir(parents=True)
    p.write_text(json.dumps({"schema": 1, "pattern": "checkerboard", "size": [64, 36]}))
    win = MainWindow()
    qtbot.addWidget(win)
    win.catalog.select("bars")
    win.close()
    assert json.loads(p.read_text())["pattern"] == "bars"
