"""``testcard presets``: list, render to a folder, user presets from the settings folder."""

import json
import os
from pathlib import Path

import numpy as np

from app.cli import main
from core.imageio import read_frame
from core.patterns import builtin_presets


def test_list_names_every_preset(capsys):
    assert main(["presets"]) == 0
    out = capsys.readouterr().out
    for p in builtin_presets():
        assert out.count(f"{p.name} (") == 1


def test_json_lists_entries_and_sources(capsys):
    assert main(["presets", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    ansi = next(d for d in data if d["name"] == "ANSI contrast")
    assert ansi["entries"][0]["params"]["columns"] == 4 and ansi["source"].endswith(".json")


def test_render_writes_every_frame_of_a_preset(tmp_path):
    out = tmp_path / "frames"
    assert main(["presets", "10 % windows 0-100 %", "--size", "80x45", "--bit-depth", "8",
                 "-o", str(out)]) == 0
    files = sorted(out.glob("*.png"))
    assert [f.name for f in files][:2] == ["01-window.png", "02-window.png"] and len(files) == 11
    last = read_frame(files[-1])
    assert last.dtype == np.uint8 and int(last[22, 40, 0]) == 255 and int(last[0, 0, 0]) == 0
    assert json.loads(Path(str(files[-1]) + ".json").read_text())["pattern"] == "window"


def test_unknown_preset_is_one_line_and_exit_2(capsys):
    assert main(["presets", "no such thing", "-o", "x"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "unknown preset 'no such thing'" in err[0]


def test_user_presets_come_from_the_settings_folder_and_bad_ones_are_skipped(capsys):
    folder = Path(os.environ["TESTCARD_CONFIG_DIR"]) / "presets"
    folder.mkdir(parents=True)
    (folder / "mine.json").write_text(json.dumps(
        {"schema": 1, "name": "my greys", "entries": [{"pattern": "solid", "params": {"color": "18%"}}]}))
    (folder / "broken.json").write_text(json.dumps({"schema": 1, "name": "x", "entries": [{"pattern": "?"}]}))
    assert main(["presets"]) == 0
    captured = capsys.readouterr()
    assert "my greys (1 frame)" in captured.out
    assert "skipped preset broken.json entry 1" in captured.err


def test_control_characters_in_a_user_preset_are_shown_escaped(capsys):
    folder = Path(os.environ["TESTCARD_CONFIG_DIR"]) / "presets"
    folder.mkdir(parents=True)
    (folder / "odd.json").write_text(json.dumps(
        {"schema": 1, "name": "bell\x07\x1b[2Jclear", "description": "two\nlines",
         "entries": [{"pattern": "solid"}]}))
    assert main(["presets"]) == 0
    out = capsys.readouterr().out
    assert "\x07" not in out and "\x1b" not in out
    line = next(x for x in out.splitlines() if x.startswith("bell"))
    assert line == "bell\\x07\\x1b[2Jclear (1 frame): two\\nlines"
