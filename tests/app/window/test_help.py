"""Help: the keyboard-shortcut list is the window's real actions, the one shortcut table
(which the manual's list is generated from) matches them, and the user guide is the manual: the
built one where it is bundled, else its page for this window in docs/, else the README."""

from pathlib import Path

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtGui import QAction, QKeySequence

from app.window import SHORTCUTS
from app.window.help import README, ROOT, bundled_manuals, guide_url, open_readme
from app.window.menus import show_shortcuts
from app.window.shortcuts import plain

pytestmark = pytest.mark.qt

NATIVE = QKeySequence.SequenceFormat.NativeText


def keyed_actions(win) -> list[QAction]:
    return [a for a in win.findChildren(QAction) if any(not k.isEmpty() for k in a.shortcuts())]


def test_the_shortcuts_dialog_lists_every_action_with_a_shortcut(qtbot, main_window):
    dialog = show_shortcuts(main_window)
    qtbot.addWidget(dialog)
    rows = dialog.shown_rows()
    actions = keyed_actions(main_window)
    assert len(rows) == len({(plain(a.text()), a.shortcut().toString(NATIVE)) for a in actions})
    assert sorted(r[2] for r in rows) == sorted(a.shortcut().toString(NATIVE) for a in actions)
    assert {(r[1], r[2]) for r in rows} == {(plain(a.text()), a.shortcut().toString(NATIVE))
                                          for a in actions}
    by_action = {r[1]: r for r in rows}
    assert by_action["Pause"] == ("View", "Pause", "Space")
    assert by_action["Fullscreen output"][0] == "Output" and by_action["Fullscreen output"][2] == "F11"
    assert by_action["Keyboard shortcuts"][0] == "Help"
    assert [r[0] for r in rows] == sorted((r[0] for r in rows),
                                          key=["File", "View", "Presets", "Output", "Help"].index)


def test_a_new_action_shows_up_in_the_dialog_without_any_list_to_update(qtbot, main_window):
    from app.window.menus import add_action

    add_action(main_window, "&Mystery", lambda: None, "Ctrl+Shift+M", menu=main_window.menu_view)
    rows = show_shortcuts(main_window).shown_rows()
    assert ("View", "Mystery", QKeySequence("Ctrl+Shift+M").toString(NATIVE)) in rows


def test_the_shortcut_table_is_the_windows_actions(main_window):
    """The manual's table comes from SHORTCUTS: every keyed action is in it with its text and
    keys, and every entry is an action of the window."""
    actions = {(a.text(), a.shortcut().toString()) for a in keyed_actions(main_window)}
    table = {(s.text, QKeySequence(s.keys).toString()) for s in SHORTCUTS}
    assert actions == table
    for s in SHORTCUTS:
        act = getattr(main_window, f"act_{s.action}")
        assert act.text() == s.text and act.shortcut() == QKeySequence(s.keys)
        assert QKeySequence(s.keys).toString() == s.keys          # written in portable form
    assert len({s.keys for s in SHORTCUTS}) == len(SHORTCUTS)     # no key does two things


def test_the_user_guide_opens_this_windows_page_of_the_manual(main_window, tmp_path):
    built = ROOT / "site" / "index.html"
    expected = QUrl.fromLocalFile(str(ROOT / "site" / "app.html")) if built.is_file() \
        else QUrl.fromLocalFile(str(ROOT / "docs" / "app.md"))
    assert guide_url() == expected and (ROOT / "docs" / "app.md").is_file()
    opened = []
    assert open_readme(main_window, open_url=lambda url: opened.append(url) or True) == expected
    assert opened == [expected]
    assert main_window.act_readme.text().replace("&", "").startswith("User guide")


def test_the_guide_is_the_built_manual_then_the_page_then_the_readme(tmp_path):
    nowhere = "no-such-distribution-here"
    root, site, packaged = tmp_path / "src", tmp_path / "src" / "site", tmp_path / "pkg" / "manual"
    (root / "docs").mkdir(parents=True)
    (root / "README.md").write_text("# testcard\n")
    assert guide_url(root, nowhere, manuals=[site, packaged]) == QUrl.fromLocalFile(str(root / "README.md"))
    (root / "docs" / "app.md").write_text("# Using the app\n")
    assert guide_url(root, nowhere, manuals=[site, packaged]) == \
        QUrl.fromLocalFile(str(root / "docs" / "app.md"))
    packaged.mkdir(parents=True)                          # a manual the package carries ...
    (packaged / "index.html").write_text("<html></html>")
    assert guide_url(root, nowhere, manuals=[site, packaged]) == \
        QUrl.fromLocalFile(str(packaged / "index.html"))  # ... at its home page when it lacks app.html
    site.mkdir()                                          # one built beside the code comes first
    (site / "index.html").write_text("<html></html>")
    (site / "app.html").write_text("<html></html>")
    assert guide_url(root, nowhere, manuals=[site, packaged]) == QUrl.fromLocalFile(str(site / "app.html"))
    # an installed copy with none of these: the project URL, if the metadata has one
    assert guide_url(tmp_path / "empty", nowhere, manuals=[]).isEmpty()
    assert README.name == "README.md" and README.parent == ROOT
    import resources
    assert bundled_manuals(root) == [site, Path(resources.__file__).parent / "manual"]
