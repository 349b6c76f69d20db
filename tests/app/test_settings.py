"""Settings persistence: JSON with a schema version, atomic, validated per key, never clobbering
what it cannot read, never stopping the app (headless: no Qt)."""

import json
import os
import shutil
import stat

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app import settings as S


def _write(content, path=None) -> "os.PathLike":
    p = path or S.settings_path()
    p.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        p.write_bytes(content)
    else:
        p.write_text(content if isinstance(content, str) else json.dumps(content))
    return p


def _asides(p):
    return sorted(f for f in p.parent.iterdir() if f.name.startswith(p.name + ".corrupt-"))


def test_path_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("TESTCARD_CONFIG_DIR", str(tmp_path / "cfg"))
    assert S.settings_path() == tmp_path / "cfg" / "settings.json"


def test_defaults_when_nothing_is_stored():
    s = S.load()
    assert s == S.Settings() and s.problems == [] and s.problem is None


def test_round_trip_carries_a_schema_version():
    s = S.Settings(pattern="bars", params={"bars": {"level": 100.0}}, bit_depth=12, limited=True,
                   size=[640, 360], counter=True, counter_bits=20, output_screen="HDMI-1",
                   one_to_one=True, window_geometry="AAEC", window_state="BBB=",
                   dialog_dirs={"frame": "/data/frames"})
    path = S.save(s)
    assert json.loads(path.read_text())["schema"] == S.SCHEMA
    again = S.load()
    assert again == s and again.problems == []
    assert not any(p.name.startswith(".") for p in path.parent.iterdir())  # no temporary left


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pattern=st.sampled_from(["checkerboard", "bars", "counter"]),
       bit_depth=st.integers(8, 16), limited=st.booleans(),
       size=st.none() | st.lists(st.integers(1, 16384), min_size=2, max_size=2),
       screen=st.none() | st.text(alphabet=st.characters(min_codepoint=32, exclude_characters="\x7f"),
                                     min_size=1, max_size=20),
       geometry=st.text(alphabet="ABCDEF0123456789+/=", max_size=40),
       tile=st.integers(1, 8192), palette=st.sampled_from(["100%;0%", "940;64", [[1, 2, 3]]]))
def test_any_valid_settings_round_trip(tmp_path_factory, pattern, bit_depth, limited, size, screen,
                                       geometry, tile, palette):
    path = tmp_path_factory.mktemp("cfg") / "settings.json"
    s = S.Settings(pattern=pattern, bit_depth=bit_depth, limited=limited, size=size, output_screen=screen,
                   window_geometry=geometry, params={"checkerboard": {"tile": tile, "palette": palette}})
    S.save(s, path)
    again = S.load(path)
    assert again == s and again.problems == []


@pytest.mark.parametrize("key, value, default", [
    ("bit_depth", "ten", 10), ("bit_depth", 99, 10), ("bit_depth", True, 10), ("bit_depth", 0, 10),
    ("limited", 1, False), ("size", [0, 5], None), ("size", [20000, 5], None), ("size", [64, True], None),
    ("size", "1920x1080", None), ("counter_bits", True, 16), ("counter_bits", 40, 16),
    ("counter", "yes", False), ("pattern", "nope", "checkerboard"), ("pattern", ["bars"], "checkerboard"),
    ("device", "cuda\n:0", "cpu"), ("device", "x" * 100_000, "cpu"), ("output_screen", 7, None),
    ("output_screen", "HDMI\x00", None), ("window_geometry", "not base64!", ""),
    ("window_state", "A" * (S.MAX_TEXT + 1), ""), ("params", [1, 2], {}), ("dialog_dirs", "x", {}),
])
def test_a_bad_value_falls_back_to_its_default_and_is_reported(key, value, default):
    p = _write({"schema": 1, "pattern": "bars", "counter_bits": 20, key: value})
    before = p.read_bytes()
    s = S.load()
    assert getattr(s, key) == default
    if key != "pattern":
        assert s.pattern == "bars"
    if key != "counter_bits":
        assert s.counter_bits == 20   # the other keys are kept
    assert len(s.problems) == 1 and s.problems[0].startswith(f"settings.json: {key}: ")
    assert len(s.problems[0]) < 400
    assert p.read_bytes() == before   # loading never writes
    assert S.save(s) is None and p.read_bytes() == before   # nothing changed: not saved back
    s.one_to_one = not s.one_to_one   # the user changes something: now the file is rewritten whole
    assert S.save(s) == p and S.load().problems == []


def test_bad_parameters_fall_back_one_by_one():
    _write({"schema": 1, "params": {
        "checkerboard": {"tile": "inf", "columns": 4, "palette": True, "nope": 1},
        "solid": "red", "no_such_pattern": {"x": 1}, "bars": {"level": 50.0}}})
    s = S.load()
    assert s.params == {"checkerboard": {"columns": 4}, "bars": {"level": 50.0}}
    text = "\n".join(s.problems)
    for reason in ("checkerboard: tile: inf is not a finite number",
                   "checkerboard: palette: true is a true/false value",
                   "checkerboard: pattern 'checkerboard' has no parameter 'nope'",
                   "params: solid: expected an object", "unknown pattern 'no_such_pattern'"):
        assert reason in text
    assert len(s.problems) == 5


def test_limited_range_below_8_bits_is_reported_and_dropped():
    _write({"schema": 1, "bit_depth": 6, "limited": True})
    s = S.load()
    assert (s.bit_depth, s.limited) == (6, False)
    assert "limited range needs at least 8 bits" in s.problem


def test_unknown_keys_are_reported():
    _write({"schema": 1, "pattern": "bars", **{f"k{i}": i for i in range(8)}})
    s = S.load()
    assert s.pattern == "bars" and len(s.problems) == 1
    assert "ignored unknown settings 'k0', 'k1', 'k2', 'k3', 'k4' and 3 more" in s.problems[0]


@pytest.mark.parametrize("content, reason", [
    ("{ not json", "not valid JSON"),
    (b"\xff\xfe{\x00}", "not UTF-8"),
    ("[" * 100 + "]" * 100, "nested 100 deep"),
    ('{"schema": 1, "schema": 1}', "duplicate key 'schema'"),
    ('{"schema": 1, "bit_depth": NaN}', "NaN is not a number"),
    ('{"schema": 1, "bit_depth": 1' + "0" * 40 + "}", "integer of 41 digits"),
    ("[1, 2]", "expected a JSON object, got list"),
    ('{"pattern": "bars"}', "no schema version (got None)"),
    ('{"schema": "1"}', "no schema version (got '1')"),
    ('{"schema": true}', "no schema version (got True)"),
    ('{"schema": 0}', "no schema version (got 0)"),
    (" " * (S.MAX_BYTES + 1), "over the 1048576-byte limit"),
])
def test_an_unreadable_file_is_moved_aside_and_the_app_starts_on_defaults(content, reason):
    p = _write(content)
    before = p.read_bytes()
    s = S.load()
    assert s == S.Settings() and s.writable
    assert len(s.problems) == 1 and reason in s.problems[0] and str(p) in s.problems[0]
    (aside,) = _asides(p)
    assert aside.read_bytes() == before and not p.exists()
    assert f"moved aside to {aside.name}" in s.problems[0]
    assert S.save(s) == p  # a fresh file can be written now


def test_a_second_corrupt_file_never_overwrites_the_first_copy():
    p = _write("{ first")
    S.load()
    _write("{ second")
    S.load()
    copies = sorted(a.read_text() for a in _asides(p))
    assert copies == ["{ first", "{ second"]


def test_a_file_that_cannot_be_read_is_left_alone_and_never_written():
    p = S.settings_path()
    p.mkdir(parents=True)   # a folder where the file belongs: no mode bits involved, root included
    s = S.load()
    assert s == S.Settings() and not s.writable
    assert "cannot be read" in s.problem and "leaving it as it is" in s.problem
    assert S.save(s) is None and p.is_dir()


def test_a_corrupt_file_that_cannot_be_moved_aside_is_not_overwritten(monkeypatch):
    p = _write("{ corrupt")

    def refuse(path, tag):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(S, "move_aside", refuse)
    s = S.load()
    assert not s.writable and "could not be moved aside (Permission denied)" in s.problem
    s.pattern = "bars"
    assert S.save(s) is None and p.read_text() == "{ corrupt"


def test_a_newer_schema_is_read_for_the_keys_we_know_and_never_overwritten():
    p = _write({"schema": S.SCHEMA + 1, "pattern": "bars", "bit_depth": 12, "future": {"x": 1},
                "counter_bits": "many"})
    text = p.read_text()
    s = S.load()
    assert (s.pattern, s.bit_depth, s.counter_bits) == ("bars", 12, 16)
    assert not s.writable
    assert "newer testcard (schema 2, this one reads 1)" in s.problems[0]
    assert "changes made now are not saved" in s.problems[0]
    assert any("counter_bits" in m for m in s.problems) and any("'future'" in m for m in s.problems)
    s.pattern = "ramp"
    assert S.save(s) is None
    assert p.read_text() == text


def test_an_unwritable_folder_is_one_line_not_a_traceback(tmp_path, monkeypatch):
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where the settings folder should be")
    monkeypatch.setenv("TESTCARD_CONFIG_DIR", str(blocker / "cfg"))
    s = S.load()
    assert s == S.Settings() and s.problems == []
    with pytest.raises(S.SettingsNotSaved) as info:
        S.save(s)
    message = str(info.value)
    assert message.startswith(f"settings not saved to {blocker / 'cfg' / 'settings.json'}: ")
    assert "\n" not in message and isinstance(info.value, OSError)


def test_a_folder_without_write_permission_is_one_line_naming_the_file(monkeypatch):
    # root ignores mode bits, so the refusal the disk would give is injected
    def refuse(path, text, make_parent=False):
        raise PermissionError(13, "Permission denied", str(path.parent / ".settings.json.1f2e.tmp"))

    monkeypatch.setattr(S, "atomic_text", refuse)
    with pytest.raises(S.SettingsNotSaved) as info:
        S.save(S.Settings())
    assert str(info.value) == f"settings not saved to {S.settings_path()}: Permission denied"


def test_a_read_only_settings_file_is_refused_not_replaced():
    p = _write({"schema": 1, "pattern": "bars"})
    p.chmod(stat.S_IRUSR | stat.S_IRGRP)
    try:
        s = S.load()
        s.pattern = "ramp"
        with pytest.raises(S.SettingsNotSaved, match="settings not saved to"):
            S.save(s)
        assert json.loads(p.read_text())["pattern"] == "bars"
    finally:
        p.chmod(stat.S_IRUSR | stat.S_IWUSR)


def test_save_is_atomic_replace(monkeypatch):
    seen = []
    real = os.replace
    monkeypatch.setattr(os, "replace", lambda a, b: (seen.append((a, b)), real(a, b)))
    p = S.save(S.Settings())
    assert seen and seen[0][1] == p and seen[0][0] != p


def test_summary_is_one_line():
    assert S.summary(["one"]) == "one"
    assert S.summary(["a", "b", "c"]).startswith("3 problems reading the settings")


_JUNK = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=8), kids, max_size=3),
    max_leaves=10)
_KEYS = st.sampled_from([f.name for f in S.fields(S.Settings)] + ["schema", "other"])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(_KEYS, _JUNK, max_size=8) | _JUNK,
       st.sampled_from(["json", "cut", "flip"]), st.integers(0, 10_000))
def test_any_mutated_file_loads_without_a_traceback(tmp_path_factory, doc, how, where):
    """A random document, cut short or with a byte flipped: ``load`` returns settings whose
    every value is valid, reports the reason, and moves aside only what it could not parse."""
    folder = tmp_path_factory.mktemp("cfg")
    p = folder / "settings.json"
    if isinstance(doc, dict):
        doc.setdefault("schema", 1)
    data = json.dumps(doc).encode()
    if how == "cut":
        data = data[: where % (len(data) + 1)]
    elif how == "flip" and data:
        i = where % len(data)
        data = data[:i] + bytes([data[i] ^ 0x80]) + data[i + 1:]
    p.write_bytes(data)
    s = S.load(p)
    clean = S.Settings.from_dict(s.to_dict(), [])   # everything kept passes the checks again
    assert clean == s and clean.problems == []
    left = sorted(f.name for f in folder.iterdir())
    assert left == ["settings.json"] or (len(left) == 1 and left[0].startswith("settings.json.corrupt-"))
    if left != ["settings.json"]:
        assert (folder / left[0]).read_bytes() == data and s.problems
    else:
        assert p.read_bytes() == data   # never written on load
    shutil.rmtree(folder)
