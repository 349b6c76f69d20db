"""Live decode: running counts as frames arrive, capture-side losses kept apart, bounded windows
that add up to what one analysis of the whole run says, and the capture log for latency."""

import threading

import numpy as np
import pytest

from core.capture import LiveFrame, open_source
from core.counter import CounterGeometry
from core.decode import DecodeRequest, LiveDecode, LiveRequest, PresentLog, latency_report
from core.decode import live as live_mod
from core.patterns import make_spec, render
from tests.helpers.live_sources import ListSource, write_gray_video

W, H, BITS = 192, 144, 8
_CACHE: dict = {}


def screen(top: int, bottom: int | None = None) -> np.ndarray:
    """The robust counter's green channel showing ``top`` (torn into ``bottom`` below the top
    band, when given)."""
    if "spec" not in _CACHE:
        _CACHE["spec"] = make_spec("counter", {"bits": BITS, "layout": "robust"}, width=W, height=H,
                                   bit_depth=8, dtype="uint8")
    spec = _CACHE["spec"]

    def one(i):
        key = i % (1 << BITS)
        if key not in _CACHE:
            _CACHE[key] = np.ascontiguousarray(np.asarray(render(spec, key))[..., 1])
        return _CACHE[key]

    img = one(top)
    if bottom is None:
        return img
    geom = CounterGeometry.robust(W, H, BITS)
    tear = geom.band_y[0] + 3 * geom.cell_h + 1     # in the black between the top band and the next
    return np.ascontiguousarray(np.where(np.arange(H)[:, None] >= tear, one(bottom), img))


def frames_of(shown, fps: float = 60.0, gaps: dict | None = None, t0: float = 1000.0):
    """LiveFrames showing ``shown`` (an index, or (top, bottom) for a torn one), one per capture
    period; ``gaps`` {position: frames the source lost before it} also skips their times."""
    out, t = [], t0
    for pos, item in enumerate(shown):
        lost = (gaps or {}).get(pos, 0)
        t += lost / fps
        img = screen(*item) if isinstance(item, tuple) else screen(item)
        out.append(LiveFrame(img, t, "monotonic", None, lost))
        t += 1 / fps
    return out


def run(decode: LiveDecode, cancel=None):
    batches = []
    g = decode.steps(cancel)
    while True:
        try:
            batches.append(next(g))
        except StopIteration as stop:
            return batches, stop.value


def test_a_clean_run_counts_every_frame_and_closes_the_source():
    src = ListSource(frames_of(range(100, 220)))
    batches, rep = run(LiveDecode(src, LiveRequest(display_fps=60)))
    s = rep["summary"]
    assert (s["frames"], s["ok"], s["torn"], s["undecodable"]) == (120, 120, 0, 0)
    assert (s["dropped_count"], s["repeated"], s["capture_drops"], s["wraps"]) == (0, 0, 0, 0)
    assert s["layout"] == "robust" and s["bits"] == BITS and s["frozen"] is False
    assert rep["live"] is True and rep["cancelled"] is False and src.closed
    readings = [r for b in batches for r in b.readings]
    assert [r.index for r in readings] == [i % 256 for i in range(100, 220)]
    assert [r.position for r in readings] == list(range(120))
    assert batches[-1].summary["ok"] == 120
    assert all(len(b.samples) == len(b.readings) for b in batches)


def test_drops_repeats_and_tears_counted():
    shown = list(range(0, 40)) + list(range(42, 60)) + [60, 60] + list(range(61, 70)) + [(70, 71)] + \
        list(range(71, 90))
    _, rep = run(LiveDecode(ListSource(frames_of(shown)), LiveRequest(display_fps=60)))
    s = rep["summary"]
    assert s["dropped"] == [40, 41] and s["dropped_count"] == 2
    assert s["repeated"] == 1 and s["torn"] == 1 and s["capture_drops"] == 0
    kinds = [e["kind"] for e in rep["events"]]
    assert kinds.count("drop") == 1 and kinds.count("repeat") == 1 and kinds.count("torn") == 1


def test_capture_gaps_are_not_display_drops():
    # the capture lost 3 frames before position 50; the three indices shown then went unseen
    shown = list(range(0, 50)) + list(range(53, 80))
    _, rep = run(LiveDecode(ListSource(frames_of(shown, gaps={50: 3})), LiveRequest(display_fps=60)))
    s = rep["summary"]
    assert s["dropped_count"] == 0 and s["capture_drops"] == 3 and s["gap_indices"] == 3
    assert s["unreadable"] == 0 and s["frames"] == 77
    assert [e["kind"] for e in rep["events"]] == ["capture_drop", "gap"]
    # the same indices missing with no capture loss: the display dropped them
    _, rep2 = run(LiveDecode(ListSource(frames_of(shown)), LiveRequest(display_fps=60)))
    assert rep2["summary"]["dropped_count"] == 3 and rep2["summary"]["capture_drops"] == 0


def test_a_long_capture_loss_says_nothing_across_it(monkeypatch):
    monkeypatch.setattr(live_mod, "MAX_PLACEHOLDERS", 8)
    shown = list(range(0, 30)) + list(range(100, 130))
    _, rep = run(LiveDecode(ListSource(frames_of(shown, gaps={30: 50})), LiveRequest(display_fps=60)))
    s = rep["summary"]
    assert s["dropped_count"] == 0 and s["gap_indices"] == 0 and s["capture_drops"] == 50


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_bounded_windows_add_up_to_one_analysis_of_the_whole(monkeypatch, seed):
    rng = np.random.default_rng(seed)
    shown, gaps, idx = [], {}, 5
    while len(shown) < 420:             # wraps the 8-bit counter
        roll = rng.random()
        if roll < 0.04:
            idx += 2                     # a display drop
        elif roll < 0.07:
            shown.append(idx)            # a repeat
        elif roll < 0.09:
            shown.append((idx, idx + 1))
            idx += 1
            continue
        elif roll < 0.11:
            gaps[len(shown)] = int(rng.integers(1, 4))
            idx += gaps[len(shown)]
        shown.append(idx)
        idx += 1

    def summary(chunk):
        monkeypatch.setattr(live_mod, "CHUNK", chunk)
        monkeypatch.setattr(live_mod, "MAX_CHUNK", 4 * chunk)
        _, rep = run(LiveDecode(ListSource(frames_of(shown, gaps=gaps)), LiveRequest(display_fps=60)))
        return rep

    whole, windowed = summary(10_000), summary(12)
    keys = ("frames", "ok", "torn", "dropped", "dropped_count", "repeated", "gap_indices", "capture_drops",
            "wraps", "out_of_order", "jumps_back", "first_index", "last_index")
    assert {k: windowed["summary"][k] for k in keys} == {k: whole["summary"][k] for k in keys}
    assert whole["summary"]["wraps"] >= 1 and whole["summary"]["dropped_count"] > 0
    assert sorted(map(str, windowed["events"])) == sorted(map(str, whole["events"]))


def test_cancel_returns_the_partial_report():
    cancel = threading.Event()

    def on_read(src):
        if src.reads == 30:
            cancel.set()

    src = ListSource(frames_of(range(200)), on_read=on_read)
    _, rep = run(LiveDecode(src, LiveRequest()), cancel)
    assert rep["cancelled"] is True and 25 <= rep["summary"]["frames"] <= 30 and src.closed


def test_seconds_and_frames_end_the_run_by_the_injected_clock():
    ticks = iter(np.arange(0, 100, 0.01))
    _, rep = run(LiveDecode(ListSource(frames_of(range(500))), LiveRequest(seconds=0.5),
                            clock=lambda: float(next(ticks))))
    assert 0 < rep["summary"]["frames"] < 500 and rep["summary"]["elapsed_s"] == pytest.approx(0.5, abs=0.02)
    _, rep = run(LiveDecode(ListSource(frames_of(range(100))), LiveRequest(frames=40)))
    assert rep["summary"]["frames"] == 40


def test_bad_requests_refused_before_any_frame():
    src = ListSource(frames_of(range(3)))
    for req, message in ((LiveRequest(bits=0), "--bits"), (LiveRequest(seconds=-1), "--seconds"),
                         (LiveRequest(frames=0), "--frames")):
        with pytest.raises(ValueError, match=message):
            LiveDecode(src, req)
    assert src.reads == 0
    decode = LiveDecode(src, DecodeRequest("ignored", bits=None, display_fps=50.0))
    assert decode.request.display_fps == 50.0


def test_capture_log_joins_the_present_log_per_band():
    frames = frames_of([(i, i + 1) if i % 10 == 5 else i for i in range(60)] + [60] * 3)
    decode = LiveDecode(ListSource(frames), LiveRequest(display_fps=60))
    run(decode)
    log = decode.capture_log()
    assert log.modulus == 256 and len(log.band_y) == 3 and log.rate_hz == 60.0 and log.clock == "monotonic"
    assert log.band_y[0] < log.band_y[1] < log.band_y[2]
    torn = [s for s in log.samples if s.status == "torn"]
    assert len(torn) == 6 and torn[0].bands[0] == 5 and torn[0].bands[-1] == 6
    # testcard presented index i 25 ms before the capture that first shows it
    t_first = {}
    for s in log.samples:
        for v in s.indices:
            t_first.setdefault(v, s.t_s)
    idx = np.arange(61)
    present = PresentLog(idx, np.array([t_first[i] for i in idx]) - 0.025)
    rep = latency_report(present, log)
    assert rep["matched"] == 61 and rep["latency_ms"]["median"] == pytest.approx(25.0, abs=1e-3)
    # the indices a torn frame shows only at the top were never seen in the bottom band
    assert rep["torn"] == 6 and rep["bands"]["top"]["latency_ms"]["n"] == 61
    assert rep["bands"]["bottom"]["latency_ms"]["n"] == 55


def test_a_real_file_source_decoded_live(tmp_path):
    path = tmp_path / "counter.mkv"
    shown = list(range(0, 30)) + list(range(31, 60))
    write_gray_video(path, [screen(i) for i in shown], fps=60)
    with open_source(str(path), paced=False) as src:
        decode = LiveDecode(src, LiveRequest(display_fps=60))
        _, rep = run(decode)
    s = rep["summary"]
    assert (s["frames"], s["ok"], s["dropped"], s["capture_drops"]) == (59, 59, [30], 0)
    assert rep["capture"]["kind"] == "file" and rep["capture"]["plane"] == "luma"
    assert decode.capture_log().clock == "stream"
