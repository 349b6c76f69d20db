"""What closing the window stores: only the fields changed since it started."""

import pytest

pytestmark = pytest.mark.qt


@pytest.fixture
def store(qtbot):
    from PySide6.QtWidgets import QMainWindow

    from app import settings as S
    from app.window.param_editor import FrameSettings
    from app.window.settings_store import SettingsStore
    from core.patterns import make_spec

    s = S.load()
    window, fs = QMainWindow(), FrameSettings()
    qtbot.addWidget(window)
    qtbot.addWidget(fs)
    fs.set_values(s.bit_depth, s.limited, s.size, s.counter, s.counter_bits, chosen=s.bit_depth_chosen)
    shown = {"spec": make_spec("ramp", {}, width=64, height=36, bit_depth=8)}
    st = SettingsStore(s, window=window, frame_settings=fs, spec=lambda: shown["spec"],
                       device=lambda: "cpu", one_to_one=lambda: False)
    return st, fs, shown


def test_untouched_holds_from_the_baseline_until_a_field_changes(store):
    st, fs, _shown = store
    assert not st.untouched()                 # no baseline yet: nothing counts as untouched
    st.baseline_now()
    assert st.untouched()
    fs.counter.setChecked(not fs.counter.isChecked())
    assert not st.untouched()


def test_store_writes_the_changed_fields_and_leaves_the_others_as_the_file_had_them(store):
    from app import settings as S
    from core.patterns import make_spec

    st, fs, shown = store
    st.settings.device = "cuda:0"             # shown as cpu (not on this box): never chosen here
    st.baseline_now()
    fs.counter.setChecked(True)
    shown["spec"] = make_spec("ramp", {"direction": "vertical"}, width=64, height=36, bit_depth=8)
    st.store()
    again = S.load()
    assert again.counter is True and again.params["ramp"]["direction"] == "vertical"
    # shown from the start and never changed: the file keeps what it had
    assert again.pattern == "checkerboard" and again.device == "cuda:0"
