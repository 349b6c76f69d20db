"""A race's rows, built once for every view: the ranked figure named by its form, and the ratio
to the default the very one the verdict prints."""

import pytest

from core.decisions import (
    CandidateResult,
    RaceResult,
    RaceSettings,
    columns,
    decide,
    decide_live,
    default_path,
    race_rows,
    ranked,
    running_rows,
)
from core.decisions.figures import VS_DEFAULT

SETTINGS = RaceSettings(rounds=5, frames=20, warmup=3)


def done(name, rounds, late=None):
    c = CandidateResult(name, round_ms=list(rounds))
    if late is not None:
        c.round_late = list(late)
    return c


def finish(cands, form="render"):
    import statistics

    from core.decisions import half_iqr

    for c in cands.values():
        c.median_ms, c.spread_ms = statistics.median(c.round_ms), half_iqr(c.round_ms)
    winner, why = (decide_live if form == "live" else decide)(cands, SETTINGS.margin)
    return RaceResult("animated@64x36/rgb8", "cpu", winner, why, cands, SETTINGS, form=form)


def test_the_table_and_the_verdict_print_the_same_ratio_in_the_same_direction():
    # torch-compiled's median of rounds is above numpy's (3.5 vs 3.0: 1.17 as a ratio of medians,
    # slower), but round by round it is 1 % faster in four of five: the verdict's paired ratio
    result = finish({"numpy": done("numpy", [1, 2, 3, 4, 10]),
                     "torch-compiled": done("torch-compiled", [0.99, 1.98, 3.5, 3.96, 9.9])})
    rows = {r.path: r for r in race_rows(result)}
    assert rows["torch-compiled"].figure_ms == 3.5 and rows["numpy"].figure_ms == 3.0
    cells = rows["torch-compiled"].cells("render")
    assert cells[VS_DEFAULT.label] == "0.990"
    assert "torch-compiled/numpy median render time 0.990 +/- 0.000" in result.reason
    assert rows["numpy"].cells("render")[VS_DEFAULT.label] == "1.000"     # the default itself
    assert VS_DEFAULT.label == "vs default (x)" and "below 1 faster" in VS_DEFAULT.means


def test_a_live_race_ranks_on_p99_frame_cost_and_every_column_says_so():
    result = finish({"numpy": done("numpy", [8, 8, 8, 8, 8], [0] * 5),
                     "torch-eager": done("torch-eager", [4, 4, 4, 4, 4], [0] * 5)}, "live")
    assert ranked("live").label == "p99 frame cost (ms)"
    assert ranked("render").label == "median render time (ms)"
    assert columns("live") == ["path", "status", "late frames (of timed)", "p99 present interval (ms)",
                               "p99 frame cost (ms)", "spread (ms)", "compile (s)", "vs default (x)", "note"]
    assert "p99 frame cost (ms)" not in columns("render")
    rows = race_rows(result)
    assert [r.path for r in rows] == ["numpy", "torch-eager"]
    eager = rows[1].cells("live")
    assert eager["path"] == "torch-eager *" and eager["p99 frame cost (ms)"] == "4.000"
    assert eager["vs default (x)"] == "0.500"
    assert "torch-eager/numpy p99 frame cost 0.500 +/- 0.000" in result.reason


def test_the_default_is_the_most_preferred_candidate_that_finished():
    def result(**cands):
        return RaceResult("animated@64x36/rgb10", "cpu", None, "", cands, SETTINGS)

    ok_numpy = CandidateResult("numpy", median_ms=10.0)
    eager = CandidateResult("torch-eager", median_ms=5.0)
    assert default_path(result(**{"torch-eager": eager, "numpy": ok_numpy})) == "numpy"
    broken = CandidateResult("numpy", status="error", median_ms=None)
    assert default_path(result(**{"numpy": broken, "torch-eager": eager})) == "torch-eager"
    assert default_path(result(numpy=broken)) is None
    rows = race_rows(result(numpy=broken))
    assert rows[0].vs_default is None and rows[0].cells("render")["vs default (x)"] == ""


def test_rows_of_a_race_in_progress_list_the_timed_first():
    rows = running_rows(["numpy", "torch-eager", "torch-compiled"], {"torch-eager": 2.5})
    assert [(r.path, r.status, r.figure_ms) for r in rows] == [
        ("torch-eager", "running", 2.5), ("numpy", "waiting", None), ("torch-compiled", "waiting", None)]


def test_an_unknown_form_is_refused():
    with pytest.raises(ValueError, match="form must be one of render, live"):
        ranked("bench")
