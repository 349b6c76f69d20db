"""The output screen as the settings remember it: by identity, with a fallback said when gone."""

import pytest

pytestmark = pytest.mark.qt


def test_the_chosen_screen_is_remembered_by_identity_and_a_gone_one_falls_back_with_a_note(qtbot):
    from app import settings as S
    from app.preview import ScreenIdentity, primary_screen, screen_records
    from app.window.output_screen import OutputScreen

    s = S.load()
    out = OutputScreen(s)
    primary = primary_screen(screen_records())
    assert out.identity() is None and out.record() == primary      # nothing chosen: the primary
    assert out.native_size() == primary.native_size and out.match().note is None
    out.remember(primary)
    assert (s.output_screen, s.output_screen_id) == (primary.name, primary.identity.to_dict())
    assert out.identity() == primary.identity and out.match().how == "exact"
    g = out.qscreen().geometry()
    assert (g.x(), g.y(), g.width(), g.height()) == primary.geometry
    s.output_screen_id = ScreenIdentity(name="HDMI-9", serial="GONE1").to_dict()
    found = out.match()
    assert found.screen == primary and "is not connected" in found.note
