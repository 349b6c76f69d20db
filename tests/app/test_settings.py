"""Settings persistence: JSON with a schema version, atomic, never clobbering what it cannot read."""

import json
import os

from hypothesis import given, settings
from hypothesis import strategies as st

from app import settings as S


def test_path_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("TESTCARD_CONFIG_DIR", str(tmp_path / "cfg"))
    assert S.settings_path() == tmp_path / "cfg" / "settings.json"


def test_defaults_when_nothing_is_stored():
    s = S.load()
    assert s == S.Settings() and s.problem is None


def test_round_trip_carries_a_schema_version():
    s = S.Settings(pattern="bars", params={"bars": {"level": 100.0}}, bit_depth=12, limited=True,
                   size=[640, 360], counter=True, counter_bits=20, output_screen="HDMI-1",
                   one_to_one=True, window_geometry="AAEC", window_state="BBB=")
    path = S.save(s)
    assert json.loads(path.read_text())["schema"] == S.SCHEMA
    assert S.load() == s
    assert not any(p.name.startswith(".") for p in path.parent.iterdir())  # no temporary left


@settings(max_examples=40, deadline=None)
@given(pattern=st.sampled_from(["checkerboard", "bars", "counter"]),
       bit_depth=st.integers(1, 16), limited=st.booleans(),
       size=st.none() | st.lists(st.integers(1, 16384), min_size=2, max_size=2),
       screen=st.none() | st.text(min_size=1, max_size=20),
       geometry=st.text(alphabet="ABCDEF0123456789+/=", max_size=40),
       params=st.dictionaries(st.text(min_size=1, max_size=8),
                              st.integers(-5, 5) | st.floats(allow_nan=False) | st.text(max_size=5),
                              max_size=4))
def test_any_settings_round_trip(tmp_path_factory, pattern, bit_depth, limited, size, screen, geometry,
                                 params):
    path = tmp_path_factory.mktemp("cfg") / "settings.json"
    s = S.Settings(pattern=pattern, bit_depth=bit_depth, limited=limited, size=size, output_screen=screen,
                   window_geometry=geometry, params={pattern: params})
    S.save(s, path)
    assert S.load(path) == s


def test_wrong_types_fall_back_per_field():
    s = S.Settings.from_dict({"schema": 1, "bit_depth": "ten", "limited": 1, "size": [0, 5],
                              "pattern": "bars", "counter_bits": True, "unknown": 3})
    assert s.pattern == "bars"
    assert (s.bit_depth, s.limited, s.size, s.counter_bits) == (10, False, None, 16)


def test_unreadable_file_is_moved_aside_not_lost():
    p = S.settings_path()
    p.parent.mkdir(parents=True)
    p.write_text("{ not json")
    s = S.load()
    assert s == S.Settings() and "could not be read" in s.problem
    assert (p.parent / "settings.json.unreadable").read_text() == "{ not json"
    assert S.save(s) == p  # a fresh file can be written now


def test_newer_schema_is_left_untouched():
    p = S.settings_path()
    p.parent.mkdir(parents=True)
    text = json.dumps({"schema": S.SCHEMA + 1, "pattern": "bars", "future": True})
    p.write_text(text)
    s = S.load()
    assert "newer" in s.problem and not s.writable
    s.pattern = "ramp"
    assert S.save(s) is None
    assert p.read_text() == text


def test_save_is_atomic_replace(monkeypatch):
    seen = []
    real = os.replace
    monkeypatch.setattr(os, "replace", lambda a, b: (seen.append((a, b)), real(a, b)))
    p = S.save(S.Settings())
    assert seen and seen[0][1] == p and seen[0][0] != p
