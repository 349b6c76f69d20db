"""The preset schema's playback fields and the user preset files' load path.

Dwell times (per preset and per entry) are validated with messages that name the field; user
files go through core.jsonfile (bounded, duplicate keys refused) and a bad one is skipped with
its name and reason, never stopping the load.
"""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.decode import decode_counter
from core.patterns import (
    DEFAULT_DWELL_S,
    MAX_DWELL_S,
    SCHEMA,
    builtin_presets,
    get_preset,
    load_preset_file,
    load_presets,
    parse_preset,
    render,
)


def _doc(entries=None, **over):
    d = {"schema": SCHEMA, "name": "mine",
         "entries": entries or [{"pattern": "solid", "params": {"color": "50%"}}]}
    d.update(over)
    return d


# ------------------------------------------------------------------ dwell times
def test_dwells_come_from_the_entry_then_the_preset_then_the_default():
    preset = parse_preset(_doc([{"pattern": "solid", "dwell_s": 2.5}, {"pattern": "solid"}], dwell_s=4),
                          "mine.json")
    assert preset.dwells() == [2.5, 4.0]
    bare = parse_preset(_doc([{"pattern": "solid"}]), "mine.json")
    assert bare.dwells() == [DEFAULT_DWELL_S]


def test_the_meter_greyscale_patch_list_is_shipped_with_names_and_dwells():
    preset = get_preset("meter greyscale 10 steps")
    assert [e.label for e in preset.entries] == [f"grey {v} %" for v in range(0, 101, 10)]
    assert preset.dwells() == [6.0, 6.0] + [3.0] * 9
    centres = [int(render(s)[45, 80, 0]) for s in preset.specs(160, 90, bit_depth=8)]
    assert centres == sorted(centres) and centres[0] == 0 and centres[-1] == 255


@pytest.mark.parametrize("value, message", [
    (True, "'dwell_s' must be a number of seconds, got True"),
    ("2", "'dwell_s' must be a number of seconds, got '2'"),
    (None, "'dwell_s' must be a number of seconds, got None"),
    (0, "'dwell_s' must be a positive finite number"),
    (-1.5, "'dwell_s' must be a positive finite number"),
    (float("inf"), "'dwell_s' must be a positive finite number"),
    (float("nan"), "'dwell_s' must be a positive finite number"),
    (MAX_DWELL_S + 1, r"'dwell_s' 86401 s is over the limit of 86400 s \(24 h\)"),
])
def test_a_bad_dwell_is_refused_naming_the_field_at_either_level(value, message):
    with pytest.raises(ValueError, match=f"preset mine.json: {message}"):
        parse_preset(_doc(dwell_s=value), "mine.json")
    with pytest.raises(ValueError, match=f"preset mine.json entry 2: {message}"):
        parse_preset(_doc([{"pattern": "solid"}, {"pattern": "solid", "dwell_s": value}]), "mine.json")


def test_a_dwell_at_the_cap_is_accepted():
    assert parse_preset(_doc(dwell_s=MAX_DWELL_S), "m.json").dwells() == [MAX_DWELL_S]


@pytest.mark.parametrize("key, value, message", [
    ("bit_depth", True, "'bit_depth' must be a whole number, got True"),
    ("bit_depth", 10.0, "'bit_depth' must be a whole number, got 10.0"),
    ("counter_bits", False, "'counter_bits' must be a whole number, got False"),
    ("counter_bits", "16", "'counter_bits' must be a whole number, got '16'"),
    ("name", 3, "'name' must be a string"),
    ("name", "x" * 201, "'name' must be a string of at most 200"),
])
def test_booleans_and_strings_where_numbers_belong_are_refused_naming_the_field(key, value, message):
    with pytest.raises(ValueError, match=f"entry 1: {message}"):
        parse_preset(_doc([{"pattern": "solid", key: value}]), "mine.json")


def test_new_fields_round_trip_through_the_dict():
    doc = _doc([{"pattern": "solid", "name": "grey", "dwell_s": 1.5}, {"pattern": "window"}], dwell_s=2)
    preset = parse_preset(doc, "m.json")
    assert parse_preset(preset.to_dict(), "m.json") == preset
    for p in builtin_presets():
        assert parse_preset(json.loads(json.dumps(p.to_dict())), p.source) == p


# ------------------------------------------------------------------ the counter overlay
def test_the_outputs_counter_overlay_is_laid_on_every_entry_but_the_counter_itself():
    preset = parse_preset(_doc([{"pattern": "solid"}, {"pattern": "counter"},
                                {"pattern": "checkerboard", "counter_bits": 12}]), "m.json")
    specs = preset.specs(640, 360, bit_depth=8, counter_bits=16)
    assert [s.counter_bits for s in specs] == [16, None, 12]    # the entry's own wins
    for spec in (specs[0], specs[2]):
        for frame in (0, 7, 1000):
            assert decode_counter(render(spec, frame), spec.counter_geometry(), 8) == frame
    assert [s.counter_bits for s in preset.specs(640, 360)] == [None, None, 12]


def test_an_overlay_that_does_not_fit_names_the_entry():
    preset = parse_preset(_doc([{"pattern": "solid"}]), "m.json")
    with pytest.raises(ValueError, match="preset 'mine' entry 1 .*does not fit"):
        preset.specs(8, 8, counter_bits=16)


# ------------------------------------------------------------------ user files
def _write(folder, name, text):
    (folder / name).write_bytes(text.encode() if isinstance(text, str) else text)


@pytest.mark.parametrize("text, reason", [
    ('{"schema": 1, "name": "a", "name": "b", "entries": []}', "preset bad.json: duplicate key 'name'"),
    ('{"schema": 1, "name": "a", "dwell_s": NaN, "entries": []}', "preset bad.json: NaN is not a number"),
    ("[" * 40 + "]" * 40, "preset bad.json: nested 40 deep"),
    ('{"schema": 1, "name": "a", "dwell_s": ' + "9" * 40 + ', "entries": []}', "digits is too long"),
    (b"\xff\xfe{}", "preset bad.json: not UTF-8"),
    ("{not json", "preset bad.json: not valid JSON"),
    ('{"schema": 1, "name": "a", "entries": [{"pattern": "solid", "dwell_s": true}]}',
     "preset bad.json entry 1: 'dwell_s' must be a number of seconds, got True"),
    ('{"schema": 1, "name": "a", "entries": [{"pattern": "solid", "bit_depth": true}]}',
     "preset bad.json entry 1: 'bit_depth' must be a whole number"),
])
def test_a_bad_user_file_is_skipped_with_its_name_and_reason(tmp_path, text, reason):
    _write(tmp_path, "bad.json", text)
    _write(tmp_path, "good.json", json.dumps(_doc(name="my grey")))
    presets, problems = load_presets([tmp_path])
    assert [p.name for p in presets][-1] == "my grey"
    assert len(problems) == 1 and reason in problems[0]
    assert str(tmp_path) not in problems[0]      # the file's name, not this machine's path
    with pytest.raises(ValueError, match="bad.json"):
        load_preset_file(tmp_path / "bad.json")


def test_an_oversized_user_file_is_refused_from_its_size(tmp_path):
    from core.jsonfile import MAX_BYTES

    with open(tmp_path / "big.json", "wb") as fh:   # sparse: costs no disk
        fh.seek(MAX_BYTES + 1)
        fh.write(b"}")
    presets, problems = load_presets([tmp_path])
    assert len(problems) == 1 and problems[0].startswith("preset big.json: ")
    assert "over the" in problems[0]


def test_a_folder_named_like_a_preset_and_an_unlistable_folder_are_skipped(tmp_path):
    (tmp_path / "folder.json").mkdir()
    presets, problems = load_presets([tmp_path, tmp_path / "absent"])
    assert [p.name for p in presets] == [p.name for p in builtin_presets()]
    assert len(problems) == 1 and "cannot read preset file" in problems[0] and "folder.json" in problems[0]


def test_a_user_preset_replaces_a_built_in_one_whatever_its_case(tmp_path):
    _write(tmp_path, "p.json", json.dumps(_doc(name="pluge")))
    presets, problems = load_presets([tmp_path])
    assert not problems
    assert [p.name for p in presets].count("pluge") == 1 and "PLUGE" not in [p.name for p in presets]
    assert get_preset("PLUGE", presets).source == "p.json"


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=200) | st.text(max_size=200).map(str.encode))
def test_no_file_content_stops_the_load(tmp_path_factory, content):
    folder = tmp_path_factory.mktemp("presets")
    _write(folder, "x.json", content)
    presets, problems = load_presets([folder])
    assert len(presets) >= len(builtin_presets())
    assert len(problems) <= 1
