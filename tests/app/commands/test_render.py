import json

import numpy as np
import pytest

from app.cli import main
from core.counter import CounterGeometry
from core.decode import decode_counter
from core.imageio import read_frame


def test_render_png_tif_npy_identical(tmp_path):
    outs = {}
    for ext in ("png", "tif", "npy"):
        out = tmp_path / f"f.{ext}"
        rc = main(["render", "checkerboard", "--size", "96x54", "--bit-depth", "10",
                   "--set", "palette=940;64", "--set", "tile=7", "--frame", "42", "--counter",
                   "--counter-bits", "8", "-o", str(out)])
        assert rc == 0
        outs[ext] = read_frame(out)
        side = json.loads((tmp_path / f"f.{ext}.json").read_text())
        assert side["pattern"] == "checkerboard" and side["frame"] == 42
        assert side["params"]["tile"] == 7 and side["params"]["palette"] == [[940] * 3, [64] * 3]
        assert side["counter"]["bits"] == 8
    assert outs["png"].dtype == np.uint16
    assert np.array_equal(outs["png"], outs["npy"]) and np.array_equal(outs["tif"], outs["npy"])
    g = CounterGeometry.from_dict(side["counter"])
    assert decode_counter(outs["png"], g, bit_depth=10) == 42


def test_the_largest_frame_index_renders_and_its_sidecar_reads_back(tmp_path):
    from core.jsonfile import load_json

    out = tmp_path / "f.png"
    assert main(["render", "counter", "--size", "64x36", "--frame", str((1 << 63) - 1), "-o", str(out)]) == 0
    assert load_json(str(out) + ".json")["frame"] == (1 << 63) - 1


def test_render_8bit_png_is_8bit(tmp_path):
    out = tmp_path / "r.png"
    assert main(["render", "ramp", "--size", "256x4", "--bit-depth", "8", "-o", str(out)]) == 0
    img = read_frame(out)
    assert img.dtype == np.uint8 and img[0, :, 0].tolist() == list(range(256))


def test_render_torch_backend_matches_numpy(tmp_path):
    a, b = tmp_path / "a.npy", tmp_path / "b.npy"
    assert main(["render", "zone_plate", "--size", "64x48", "-o", str(a)]) == 0
    assert main(["render", "zone_plate", "--size", "64x48", "--backend", "torch", "-o", str(b)]) == 0
    assert np.array_equal(np.load(a), np.load(b))


@pytest.mark.parametrize("argv,msg", [
    (["render", "nope", "--size", "8x8"], "unknown pattern"),
    (["render", "solid", "--size", "8x8", "--set", "zzz=1"], "no parameter 'zzz'"),
    (["render", "checkerboard", "--size", "8x8", "--set", "tile=0"], "below the minimum"),
    (["render", "solid", "--size", "8x8", "--bit-depth", "8", "--set", "color=300"], "outside 0..255"),
    (["render", "solid", "--size", "8x8", "--dtype", "uint8"], "cannot hold"),
    (["render", "solid", "--size", "8by8"], "WIDTHxHEIGHT"),
    (["render", "solid", "--size", "8x8", "--backend", "torch", "--device", "cuda:7"], "CUDA"),
    (["render", "counter", "--size", "64x36", "--frame", "-1"], "--frame must be 0..9223372036854775807"),
    (["render", "counter", "--size", "64x36", "--frame", "9" * 35], "--frame must be 0.."),
    (["render", "counter", "--size", "64x36", "--frame", str(1 << 63)], "--frame must be 0.."),
])
def test_bad_input_one_line_exit_2_nothing_written(tmp_path, capsys, argv, msg):
    out = tmp_path / "x.png"
    rc = main(argv + ["-o", str(out)])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2
    assert len(err) == 1 and msg in err[0]
    assert list(tmp_path.iterdir()) == []


def test_bad_output_suffix(tmp_path, capsys):
    assert main(["render", "solid", "--size", "8x8", "-o", str(tmp_path / "x.gif")]) == 2
    assert "must end in" in capsys.readouterr().err


def test_patterns_json(capsys):
    assert main(["patterns", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    names = [p["name"] for p in data]
    assert "counter" in names and all("params" in p for p in data)
    counter = next(p for p in data if p["name"] == "counter")
    assert counter["animates"] is True
    bits = next(p for p in counter["params"] if p["name"] == "bits")
    assert (bits["min"], bits["max"], bits["default"]) == (1, 31, 16)


def test_render_warns_when_the_window_cannot_hold_its_apl(tmp_path, capsys):
    out = tmp_path / "w.png"
    argv = ["render", "window", "--size", "320x180", "--set", "background_mode=apl", "--set", "area=50",
            "--set", "apl=10", "-o", str(out)]
    assert main(argv) == 0 and out.exists()
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and err[1].startswith("warning: window: APL 10 % cannot be reached")
    assert main(argv[:-4] + ["--set", "apl=60", "-o", str(out)]) == 0
    assert "warning" not in capsys.readouterr().err
