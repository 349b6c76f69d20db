"""Every float option of every command is a finite number in a stated range: ``inf``, ``nan``,
``1e300`` and its negative are one ``testcard: error:`` line naming the option and its range,
exit 2, before any work starts; and no JSON testcard prints carries ``NaN``/``Infinity``."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import pytest

from app.cli import build_parser, main
from app.commands.common import Number

BAD = ("inf", "-inf", "nan", "1e300", "-1e300", "1e309")


def _float_options(parser, path=()):
    """(command words, option, its type) for every option parsed as a number with a fraction."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _float_options(sub, (*path, name))
        elif action.type is float or isinstance(action.type, Number):
            yield path, action.option_strings[-1], action.type


OPTIONS = list(_float_options(build_parser()))
IDS = [f"{' '.join(p)} {o}" for p, o, _ in OPTIONS]


def test_the_sweep_finds_the_float_options():
    # the options the findings were about are among those swept
    found = {(" ".join(p), o) for p, o, _ in OPTIONS}
    assert {("latency", "--offset-ms"), ("latency", "--capture-offset-s"), ("serve", "--ack-timeout"),
            ("decode", "--display-fps"), ("bench timing", "--rate")} <= found
    assert len(OPTIONS) >= 14


@pytest.mark.parametrize(("path", "option", "kind"), OPTIONS, ids=IDS)
def test_every_float_option_has_a_range(path, option, kind):
    # a bare float would let inf, nan and 1e300 through to the command
    assert isinstance(kind, Number), f"testcard {' '.join(path)} {option} is a bare float"
    assert kind.contains(kind.lo if not kind.above else kind.hi)


@pytest.mark.parametrize(("path", "option", "kind"), OPTIONS, ids=IDS)
@pytest.mark.parametrize("value", BAD)
def test_non_finite_and_huge_values_are_one_line_naming_the_range(capsys, path, option, kind, value):
    assert main([*path, f"{option}={value}"]) == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err.count("\n") == 1 and "Traceback" not in out.err
    assert out.err.startswith(f"testcard: error: {option} must be ")
    assert f"got {value}" in out.err and kind.range_text in out.err


def test_offset_ms_1e300_is_refused_by_the_installed_command():
    # the finding as it was found: accepted, and Infinity in its --json
    got = subprocess.run([sys.executable, "-m", "app", "latency", "--timeline", "t.csv", "--capture",
                          "c.mkv", "--offset-ms", "1e300", "--json"], capture_output=True, text=True,
                         timeout=120)
    assert got.returncode == 2 and got.stdout == ""
    assert got.stderr == ("testcard: error: --offset-ms must be at least -10000 ms and at most 10000 ms, "
                          "got 1e300 (see testcard latency --help)\n")


def test_the_core_offset_correction_holds_the_same_range():
    from app.commands import latency
    from core.decode import offset_correction
    from core.decode.latency_log import MAX_OFFSET_MS

    assert latency.MAX_OFFSET_MS == MAX_OFFSET_MS
    assert offset_correction(MAX_OFFSET_MS).ms == -MAX_OFFSET_MS
    for ms in (MAX_OFFSET_MS * 1.0001, 1e300, float("inf")):
        with pytest.raises(ValueError, match="--offset-ms must be a finite number"):
            offset_correction(ms)


def test_other_bad_arguments_are_one_line_too(capsys):
    assert main(["latency", "--bits", "x"]) == 2
    err = capsys.readouterr().err
    assert err == "testcard: error: argument --bits: invalid int value: 'x' (see testcard latency --help)\n"
    assert main(["no-such-command"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("testcard: error: argument COMMAND: invalid choice") and err.count("\n") == 1


def test_an_option_s_largest_value_is_accepted(capsys):
    # the range is the range: its end still reaches the command (here: the check after parsing)
    assert main(["latency", "--offset-ms", "10000"]) == 2
    assert "give --source SOURCE" in capsys.readouterr().err


def test_json_never_carries_nan_or_infinity():
    from core.jsonfile import NonFiniteError, dump_json

    assert json.loads(dump_json({"a": [1.5, None]})) == {"a": [1.5, None]}
    for bad in (float("nan"), float("inf"), -float("inf")):
        with pytest.raises(NonFiniteError, match=r"\$\.report\.latency_ms\[1\] is"):
            dump_json({"report": {"latency_ms": [1.0, bad]}})
