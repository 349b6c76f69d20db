"""End to end: `testcard measure` on a small band, then the decisions commands around it."""

import json

import pytest

from app.cli import main
from core.decisions import DecisionCache, cache_path, fingerprint

SMALL = ["--band", "animated@64x36/rgb10", "--candidates", "numpy,torch-eager", "--candidates",
         "torch-cudagraphs", "--rounds", "2",
         "--frames", "3", "--warmup", "1"]


def test_measure_records_and_which_reports_the_cache(capsys, tmp_path):
    assert main(["measure", *SMALL, "--json"]) == 0
    out = capsys.readouterr()
    data = json.loads(out.out)
    assert len(data) == 1
    band = data[0]
    assert band["band"] == "animated@64x36/rgb10" and band["device"] == "cpu"
    assert band["winner"] in ("numpy", "torch-eager") and band["recorded"] is True
    assert band["fingerprint"] == fingerprint("cpu")
    assert list(band["candidates"]) == ["numpy", "torch-eager", "torch-cudagraphs"]
    for name in ("numpy", "torch-eager"):
        c = band["candidates"][name]
        assert c["status"] == "ok" and c["median_ms"] > 0 and c["spread_ms"] >= 0
        assert c["compile_s"] is not None
    # cannot run on this CPU box: reported with its reason, never raced
    cg = band["candidates"]["torch-cudagraphs"]
    assert cg["status"] == "unavailable" and "CUDA" in cg["reason"] and cg["median_ms"] is None
    assert "measure: animated@64x36/rgb10 on cpu" in out.err

    entries = DecisionCache().load()
    key = f"{fingerprint('cpu')}|animated@64x36/rgb10"
    assert entries[key]["winner"] == band["winner"] and entries[key]["rounds"] == 2

    assert main(["decisions", "which", "animated@64x36/rgb10"]) == 0
    text = capsys.readouterr().out
    assert f": {band['winner']}\n" in text and "source: cache" in text

    assert main(["decisions", "which", "animated@64x36/rgb10", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["source"] == "cache"

    # ship it: export, clear, import, which
    ship = tmp_path / "ship.json"
    assert main(["decisions", "export", str(ship)]) == 0
    assert "exported 1 decision(s)" in capsys.readouterr().out
    assert main(["decisions", "clear"]) == 0
    assert "removed 1 decision(s)" in capsys.readouterr().out
    assert main(["decisions", "which", "animated@64x36/rgb10"]) == 0
    assert "source: default" in capsys.readouterr().out
    assert main(["decisions", "import", str(ship)]) == 0
    text = capsys.readouterr().out
    assert "imported 1, kept local 0, carried for other devices 0" in text
    assert main(["decisions", "show", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["band"] for r in rows] == ["animated@64x36/rgb10"] and rows[0]["here"] is True
    assert main(["decisions", "show"]) == 0
    assert "animated@64x36/rgb10" in capsys.readouterr().out


def test_measure_table_and_no_record(capsys):
    assert main(["measure", *SMALL, "--no-record"]) == 0
    out = capsys.readouterr().out
    assert "median render time (ms)" in out and "numpy" in out and "torch-eager" in out and " *" in out
    assert "vs default (x)" in out and "below 1 faster" in out
    assert "[recorded]" not in out
    assert not cache_path().exists()


def test_pin_shown_by_which(capsys, monkeypatch):
    monkeypatch.setenv("TESTCARD_RENDER_PATH", "counter@2160p/rgb10=torch-cudagraphs,*=torch-eager")
    assert main(["decisions", "which", "counter@2160p/rgb10"]) == 0
    out = capsys.readouterr().out
    # the first matching item decides the pin; it cannot run here, so the next source decides
    assert "source: default" in out and ": numpy\n" in out
    assert "fell through: pinned torch-cudagraphs cannot run here" in out
    assert main(["decisions", "which", "counter@1080p/rgb10"]) == 0
    out = capsys.readouterr().out
    assert "source: pin -- pinned by TESTCARD_RENDER_PATH: *=torch-eager" in out


@pytest.mark.parametrize("argv,msg", [
    (["measure", "--band", "nope@1080p/rgb8"], "unknown family 'nope'"),
    (["measure", "--band", "counter@1080p/rgb8", "--candidates", "numpy,opencl"], "unknown render path"),
    (["measure", "--band", "counter@1080p/rgb8", "--margin", "150"], "--margin"),
    (["measure", "--band", "counter@1080p/rgb8", "--rounds", "0"], "rounds must be"),
    (["measure", "--band", "counter@1080p/rgb8", "--device", "cuda:7"], "CUDA"),
    (["decisions", "which", "counter@1080p"], "FAMILY@RESOLUTION/FORMAT"),
    (["decisions", "export", "x.json"], "nothing to export"),
])
def test_bad_input_one_line_exit_2(capsys, argv, msg):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and msg in err[0]
    assert not cache_path().exists()


def test_import_refuses_a_bad_file_whole(capsys, tmp_path):
    assert main(["measure", *SMALL]) == 0
    capsys.readouterr()
    before = cache_path().read_bytes()
    bad = tmp_path / "bad.json"
    doc = json.loads(before)
    first = next(iter(doc["entries"].values()))
    doc["entries"]["cuda:Other GPU sm_90|static@1080p/rgb8"] = dict(first, winner="opencl")
    bad.write_text(json.dumps(doc))
    assert main(["decisions", "import", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "refused, nothing imported" in err[0] and "opencl" in err[0]
    assert cache_path().read_bytes() == before
    assert main(["decisions", "import", str(tmp_path / "missing.json")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_corrupt_cache_warns_once_on_stderr(capsys):
    cache_path().parent.mkdir(parents=True, exist_ok=True)
    cache_path().write_text("{not json")
    assert main(["decisions", "which", "counter@1080p/rgb8"]) == 0
    cap = capsys.readouterr()
    assert "source: default" in cap.out
    warn = [line for line in cap.err.splitlines() if line.startswith("testcard: warning:")]
    assert len(warn) == 1 and "moved aside" in warn[0]


def test_measure_with_the_compiled_path(capsys):
    """torch-compiled at a tiny size compiles in seconds: it passes parity and reports its compile."""
    from core.engine import path_problem

    why = path_problem("torch-compiled", "cpu")
    if why:
        pytest.skip(why)
    assert main(["measure", "--band", "counter@64x36/rgb8", "--candidates", "numpy,torch-compiled",
                 "--rounds", "1", "--frames", "2", "--warmup", "1", "--json"]) == 0
    band = json.loads(capsys.readouterr().out)[0]
    c = band["candidates"]["torch-compiled"]
    assert c["status"] == "ok" and c["compile_s"] > 0 and c["median_ms"] > 0
    assert band["recorded"] and band["winner"] in ("numpy", "torch-compiled")


def test_report_warnings_passes_other_warnings_on(capsys):
    import warnings

    from app.commands.decisions import report_warnings
    from core.decisions import DecisionCacheWarning

    with pytest.warns(UserWarning, match="something else") as rec:
        with report_warnings():
            warnings.warn("something else", UserWarning, stacklevel=1)
            warnings.warn("cache moved aside", DecisionCacheWarning, stacklevel=1)
    assert [str(w.message) for w in rec] == ["something else"]
    assert capsys.readouterr().err == "testcard: warning: cache moved aside\n"
