"""`testcard gui` options, checked before any window or QApplication exists (no Qt here)."""

import json
import os
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app import cli
from app.commands.gui import PLACEHOLDER_SIZE, plan_start
from app.settings import Settings
from core.patterns import builtin_presets, make_spec
from tests.helpers import ROOT


def args_of(*argv):
    return cli.build_parser().parse_args(["gui", *argv])


def plan(*argv, stored=None):
    return plan_start(args_of(*argv), stored or Settings(), builtin_presets())


def test_typed_options_become_the_starting_settings():
    start = plan("--pattern", "bars", "--set", "level=50", "--set", "white=10", "--size", "640x360",
                 "--bit-depth", "8", "--limited", "--counter", "--counter-bits", "12", "--no-banner",
                 "--screen", "1", "--fullscreen")
    s = start.settings
    want = make_spec("bars", {"level": "50", "white": "10"}, width=640, height=360, bit_depth=8, limited=True,
                     counter_bits=12)
    assert (s.pattern, s.params["bars"]) == ("bars", want.to_dict()["params"])
    assert (s.size, s.bit_depth, s.limited, s.counter, s.counter_bits) == ([640, 360], 8, True, True, 12)
    assert s.bit_depth_chosen and s.output_banner is False
    assert (start.screen, start.fullscreen, start.preset, start.play) == ("1", True, None, False)


def test_what_is_not_typed_stays_as_remembered_and_the_stored_settings_are_untouched():
    stored = Settings(pattern="ramp", params={"ramp": {"scroll": 3}}, bit_depth=12, limited=True,
                      size=None, counter=True, counter_bits=20)
    start = plan(stored=stored)
    s = start.settings
    assert (s.pattern, s.params, s.bit_depth, s.limited, s.size, s.counter, s.counter_bits) == \
           ("ramp", {"ramp": {"scroll": 3}}, 12, True, None, True, 20)
    assert s.output_banner is True and not s.bit_depth_chosen
    s2 = plan("--no-limited", "--no-counter", "--set", "scroll=1", stored=stored).settings
    assert (s2.limited, s2.counter, s2.params["ramp"]["scroll"]) == (False, False, 1)
    assert stored.params == {"ramp": {"scroll": 3}} and stored.limited   # a copy was changed


def test_a_remembered_overlay_is_left_off_the_counter_pattern_and_a_typed_one_refused():
    assert plan("--pattern", "counter", stored=Settings(counter=True)).settings.pattern == "counter"
    with pytest.raises(ValueError, match="already is a counter"):
        plan("--pattern", "counter", "--counter")


def test_preset_is_named_as_its_file_spells_it_and_play_needs_one():
    name = builtin_presets()[0].name
    start = plan("--preset", name.upper(), "--play")
    assert (start.preset, start.play) == (name, True)
    with pytest.raises(ValueError, match="--play needs --preset NAME"):
        plan("--play")
    with pytest.raises(ValueError, match=f"unknown preset 'nope': expected one of {name}"):
        plan("--preset", "nope")
    with pytest.raises(ValueError, match="leave out --pattern and --set"):
        plan("--preset", name, "--pattern", "bars")


@pytest.mark.parametrize("argv, message", [
    (["--screen", " "], "--screen takes a screen's index (0, 1, ...) or its name, got ''"),
    (["--frames", "-1"], "--frames must be >= 0, got -1"),
])
def test_gui_only_options_are_checked(argv, message):
    with pytest.raises(ValueError) as err:
        plan(*argv)
    assert str(err.value) == message


BAD = [
    ["--pattern", "nope"],
    ["--pattern", "bars", "--set", "level=abc"],
    ["--pattern", "bars", "--set", "colour"],
    ["--pattern", "checkerboard", "--set", "foo=1"],
    ["--pattern", "bars", "--bit-depth", "17"],
    ["--pattern", "bars", "--size", "10x"],
    ["--pattern", "bars", "--size", "0x5"],
    ["--pattern", "bars", "--bit-depth", "4", "--limited"],
]


@pytest.mark.parametrize("argv", BAD, ids=[" ".join(a) for a in BAD])
def test_a_bad_value_gets_the_line_render_gives(argv, capsys, tmp_path):
    pattern = argv[1]
    rest = argv[2:]
    render_argv = ["render", pattern, *rest, "-o", str(tmp_path / "x.png")]
    if "--size" not in rest:
        render_argv += ["--size", "x".join(map(str, PLACEHOLDER_SIZE))]
    assert cli.main(render_argv) == 2
    render_err = capsys.readouterr().err
    assert cli.main(["gui", *argv]) == 2
    gui_err = capsys.readouterr().err
    assert gui_err == render_err and gui_err.count("\n") == 1 and gui_err.startswith("testcard: error: ")
    assert not (tmp_path / "x.png").exists()


@settings(max_examples=30, deadline=None)
@given(w=st.integers(1, 16384), h=st.integers(1, 16384), sep=st.sampled_from(["x", "X", " x "]))
def test_any_valid_size_is_taken_as_typed(w, h, sep):
    assert plan("--size", f"{w}{sep}{h}").settings.size == [w, h]


def test_bad_options_are_refused_before_qt_is_even_imported(tmp_path):
    probe = ("import json, sys\nfrom app.cli import main\n"
             "rc = main(['gui', '--pattern', 'bars', '--set', 'level=abc'])\n"
             "print(json.dumps([rc, 'PySide6' in sys.modules]))")
    env = dict(os.environ, PYTHONPATH=str(ROOT), TESTCARD_CONFIG_DIR=str(tmp_path / "config"))
    res = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, env=env,
                         timeout=120)
    assert json.loads(res.stdout) == [2, False]
    assert res.stderr == "testcard: error: level: cannot read 'abc' as a number\n"
    assert not (tmp_path / "config").exists()            # nothing written either
