"""``testcard bench timing``: the figures after 1 min, 1 h and 24 h (flat memory and work once
the history is full), as JSON and as text; bad input is one line and exit 2.  Headless."""

import json

import pytest

from app.cli import main

KEYS = {"run", "frames", "rows_held", "memory_mib", "samples", "points", "copy_ms", "view_ms",
        "stats_ms", "plot_ms", "append_us"}


def test_json_rows_show_flat_memory_and_work(capsys):
    assert main(["bench", "timing", "--repeats", "1", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["run"] for r in rows] == ["1 min", "1 h", "24 h"]
    assert all(set(r) == KEYS for r in rows)
    assert [r["frames"] for r in rows] == [3600, 216_000, 5_184_000]
    hour, day = rows[1], rows[2]
    for key in ("rows_held", "memory_mib", "samples", "points"):
        assert hour[key] == day[key], key
    assert rows[0]["memory_mib"] == day["memory_mib"]          # preallocated from the start
    assert all(r["view_ms"] > 0 and r["append_us"] > 0 for r in rows)


def test_text_output_names_the_figures(capsys):
    assert main(["bench", "timing", "--repeats", "1", "--rate", "30", "--window", "60"]) == 0
    captured = capsys.readouterr()
    assert "30 Hz" in captured.err and "plot window 60 s" in captured.err
    for word in ("run", "memory_mib", "view_ms", "plot_ms", "24 h"):
        assert word in captured.out


@pytest.mark.parametrize("argv, message", [
    (["--rate", "0"], "--rate must be above 0"),
    (["--rate", "nan"], "--rate must be above 0"),
    (["--repeats", "0"], "--repeats must be >= 1"),
    (["--window", "7"], "--window must be 5, 60 or 600 seconds, got 7"),
])
def test_bad_input_is_one_line_and_exit_2(argv, message, capsys):
    assert main(["bench", "timing", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("testcard: error:") and message in err
