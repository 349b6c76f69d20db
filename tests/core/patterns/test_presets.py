"""Presets: the shipped ones load, every entry renders, and bad files are refused clearly."""

import fnmatch
import json
import tomllib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.decode import decode_counter
from core.patterns import (
    SCALE_CHART_MIN,
    SCHEMA,
    builtin_presets,
    get_preset,
    load_preset_file,
    load_presets,
    parse_preset,
    render,
)
from tests.helpers import ROOT

W, H = 160, 90


def test_the_presets_operators_expect_are_shipped():
    names = {p.name for p in builtin_presets()}
    for expected in ("near-black steps", "ANSI contrast", "ANSI contrast inverse", "10 % windows 0-100 %",
                     "counter over checkerboard", "PLUGE", "75 % bars", "zone plate", "geometry grid"):
        assert expected in names


@pytest.mark.parametrize("preset", builtin_presets(), ids=lambda p: p.name)
def test_every_entry_of_every_preset_renders(preset):
    # a preset with the scale chart is shown at the chart's smallest size or more
    w, h = SCALE_CHART_MIN if any(e.pattern == "scale_chart" for e in preset.entries) else (W, H)
    for depth in (8, 10):
        for spec in preset.specs(w, h, bit_depth=depth):
            top = (1 << spec.bit_depth) - 1
            for frame in (0, 1) if spec.animated else (0,):
                img = render(spec, frame)
                assert img.shape == (h, w, 3)
                assert img.dtype == np.uint16
                assert int(img.max()) <= top


def test_ansi_contrast_is_a_4x4_board_white_top_left_and_its_inverse_swaps_it():
    white = 1023
    board = render(get_preset("ANSI contrast").specs(W, H)[0])
    inverse = render(get_preset("ANSI contrast inverse").specs(W, H)[0])
    cw, ch = W // 4, H // 4
    for r in range(4):
        for c in range(4):
            y, x = r * ch + ch // 2, c * cw + cw // 2
            expect = white if (r + c) % 2 == 0 else 0
            assert int(board[y, x, 0]) == expect
            assert int(inverse[y, x, 0]) == white - expect
    assert np.array_equal(board + inverse, np.full_like(board, white))


def test_ten_percent_windows_step_from_black_to_white_over_black():
    specs = get_preset("10 % windows 0-100 %").specs(W, H)
    assert len(specs) == 11
    centres = [int(render(s)[H // 2, W // 2, 0]) for s in specs]
    assert centres[0] == 0 and centres[-1] == 1023
    assert centres == sorted(centres) and len(set(centres)) == 11
    assert all(int(render(s)[0, 0, 0]) == 0 for s in specs)


def test_counter_over_checkerboard_decodes_to_the_frame_index():
    for spec in get_preset("counter over checkerboard").specs(640, 360):
        geom = spec.counter_geometry()
        assert geom is not None
        for frame in (0, 1, 1234):
            assert decode_counter(render(spec, frame), geom, spec.bit_depth) == frame


def test_an_entry_pins_its_own_range_and_the_output_fills_the_rest():
    entries = get_preset("near-black steps").specs(W, H, bit_depth=12)
    assert [s.bit_depth for s in entries] == [12, 12, 12]
    assert [s.limited for s in entries] == [False, False, True]


def test_get_preset_ignores_case_and_lists_names_when_unknown():
    assert get_preset("pluge").name == "PLUGE"
    with pytest.raises(ValueError, match="unknown preset 'nope': expected one of .*ANSI contrast"):
        get_preset("nope")


def _doc(**over):
    d = {"schema": SCHEMA, "name": "mine", "entries": [{"pattern": "solid", "params": {"color": "50%"}}]}
    d.update(over)
    return d


@pytest.mark.parametrize("doc, message", [
    (_doc(schema=2), "schema must be 1"),
    (_doc(colour="x"), "unknown key 'colour'"),
    (_doc(name=""), "'name' must be a non-empty string"),
    (_doc(entries=[]), "'entries' must be a non-empty list"),
    (_doc(entries=[{"pattern": "nope"}]), "entry 1 .*unknown pattern 'nope'"),
    (_doc(entries=[{"pattern": "solid", "parms": {}}]), "entry 1: unknown key 'parms'"),
    (_doc(entries=[{"pattern": "solid", "params": {"color": "2000"}}]), "entry 1 .*outside 0..1023"),
    (_doc(entries=[{"pattern": "solid", "params": {"size": 3}}]), "no parameter 'size'"),
    (_doc(entries=[{"pattern": "solid", "limited": "yes"}]), "'limited' must be true or false"),
    (_doc(entries=[{"pattern": "pluge", "bit_depth": 6}]), "needs at least 8 bits"),
    ([1, 2], "expected a JSON object"),
])
def test_bad_presets_are_refused_with_the_reason(doc, message):
    with pytest.raises(ValueError, match=message) as info:
        parse_preset(doc, "mine.json")
    assert "mine.json" in str(info.value)


@settings(max_examples=60, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
                    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=8), kids,
                                                                              max_size=3),
                    max_leaves=12),
       st.sampled_from(["solid", "checkerboard", "window", "nope"]))
def test_any_decoded_json_either_loads_or_is_refused_with_value_error(junk, pattern):
    for doc in (junk, _doc(entries=[{"pattern": pattern, "params": junk}]),
                _doc(entries=[{"pattern": pattern, "params": {"color": junk}}])):
        try:
            preset = parse_preset(doc, "fuzz.json")
        except ValueError:
            continue
        for spec in preset.specs(16, 9):
            render(spec)


def test_a_user_folder_adds_and_replaces_presets_and_skips_bad_files(tmp_path):
    (tmp_path / "a.json").write_text(json.dumps(_doc(name="PLUGE")))
    (tmp_path / "b.json").write_text(json.dumps(_doc(name="my grey")))
    (tmp_path / "c.json").write_text("{not json")
    presets, problems = load_presets([tmp_path, tmp_path / "missing"])
    names = [p.name for p in presets]
    builtin = [p.name for p in builtin_presets()]
    assert names == builtin + ["my grey"]
    assert presets[names.index("PLUGE")].source == "a.json"
    assert len(problems) == 1 and "c.json: not valid JSON" in problems[0]


def test_load_preset_file_names_an_unreadable_file(tmp_path):
    with pytest.raises(ValueError, match="cannot read preset file"):
        load_preset_file(tmp_path / "absent.json")


def test_preset_round_trips_through_its_dict():
    for preset in builtin_presets():
        again = parse_preset(json.loads(json.dumps(preset.to_dict())), preset.source)
        assert again == preset


def test_package_data_ships_every_resource_file():
    """pyproject's package-data must match every non-Python file under resources/."""
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    from setuptools import find_packages

    packages = set(find_packages(str(ROOT), include=cfg["packages"]["find"]["include"]))
    globs = cfg["package-data"]
    files = [p for p in (ROOT / "resources").rglob("*") if p.is_file()
             and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts]
    assert len(files) > 10
    for f in files:
        package = ".".join(f.parent.relative_to(ROOT).parts)
        assert package in packages, f"{f.relative_to(ROOT)}: {package} is not a listed package"
        patterns = globs.get(package, [])
        assert any(fnmatch.fnmatch(f.name, g) for g in patterns), \
            f"{f.relative_to(ROOT)} is not shipped: add it to [tool.setuptools.package-data] {package}"
