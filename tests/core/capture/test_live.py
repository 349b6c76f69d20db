"""Live sources: the clock mapping, the spec, the device list, and real sources -- a video file
played live (and through a FIFO), an X11 grab of a real Xvfb, and (opt-in) a V4L2 device."""

import os
import threading
import time

import numpy as np
import pytest

from core.capture import (
    NONE_FOUND,
    ClockMapping,
    bracketed_reading,
    capture_devices,
    describe_devices,
    list_devices,
    open_source,
    parse_spec,
)
from tests.helpers.live_sources import levels, write_gray_video
from tests.helpers.screens import xvfb_server


def capture_threads():
    return [t for t in threading.enumerate() if t.name.startswith("testcard-capture") and t.is_alive()]


@pytest.fixture(autouse=True)
def _no_thread_left():
    yield
    assert capture_threads() == []


# ---------------------------------------------------------------- the clock mapping
class Clocks:
    """A monotonic clock that ticks ``step`` per reading and a wall clock ``offset(t)`` ahead."""

    def __init__(self, offset, step=1e-6, t=100.0):
        self.t, self.step, self.offset = t, step, offset

    def monotonic(self):
        self.t += self.step
        return self.t

    def realtime(self):
        return self.t + self.offset(self.t)


def test_bracketed_reading_takes_the_midpoint_of_the_tightest_try():
    ticks = iter([0.0, 10.0, 20.0, 22.0, 30.0, 36.0])   # before and after each wall reading
    walls = iter([1000.0, 1020.0, 1032.0])
    r = bracketed_reading(lambda: next(ticks), lambda: next(walls), tries=3)
    # tries: 0..10 (half 5), 20..22 (half 1), 30..36 (half 3): the second is kept
    assert (r.monotonic, r.realtime, r.half_width, r.offset) == (21.0, 1020.0, 1.0, 999.0)


def test_constant_offset_maps_exactly():
    c = Clocks(lambda t: 1.7e9)
    m = ClockMapping(c.monotonic, c.realtime)
    assert m.to_monotonic(1.7e9 + 123.25) == pytest.approx(123.25, abs=1e-5)
    d = m.describe()
    assert d["offset_s"] == pytest.approx(1.7e9, abs=1e-5) and d["steps"] == 0 and d["readings"] == 1
    assert d["uncertainty_ms"] == pytest.approx(0.0005, abs=1e-6)


def test_drifting_offset_followed_between_readings():
    drift = 500e-6   # NTP's largest slew
    c = Clocks(lambda t: 1.7e9 + drift * t)
    m = ClockMapping(c.monotonic, c.realtime, refresh_s=1.0)
    taken = 0
    for _ in range(600):
        c.t += 0.1
        taken += m.refresh()
    assert taken == 60 and m.total_readings == 61
    assert m.drift_ppm == pytest.approx(500, rel=1e-3)
    for t in (110.0, 130.55, 159.99):   # between readings: interpolated
        assert m.to_monotonic(t + 1.7e9 + drift * t) == pytest.approx(t, abs=2e-5)
    # a single reading from the start would be 30 ms off by the end
    first = m.readings[0].offset
    assert abs((160 + 1.7e9 + drift * 160 - first) - 160) > 0.025


def test_a_step_of_the_wall_clock_starts_afresh():
    jump = {"s": 0.0}
    c = Clocks(lambda t: 1.7e9 + jump["s"])
    m = ClockMapping(c.monotonic, c.realtime, refresh_s=1.0)
    c.t += 1.5
    m.refresh()
    jump["s"] = 3600.0          # the clock was set an hour ahead
    c.t += 1.5
    m.refresh()
    assert m.steps == 1 and len(m.readings) == 1
    assert m.to_monotonic(1.7e9 + 3600.0 + 200.0) == pytest.approx(200.0, abs=1e-5)


def test_mapping_refuses_a_bad_refresh():
    with pytest.raises(ValueError, match="refresh_s"):
        ClockMapping(refresh_s=0)


# ---------------------------------------------------------------- specs and parameters
def test_specs_parsed(tmp_path):
    video = tmp_path / "cap.mkv"
    video.write_bytes(b"")
    assert parse_spec("v4l2:/dev/video3") == ("v4l2", "/dev/video3")
    assert parse_spec("x11grab::99") == ("x11grab", ":99")
    assert parse_spec("x11grab::0.0+100,50") == ("x11grab", ":0.0+100,50")
    assert parse_spec(f"file:{video}") == ("file", str(video))
    assert parse_spec(str(video)) == ("file", str(video))


@pytest.mark.parametrize(("spec", "kw", "message"), [
    ("rtsp://camera", {}, "unknown capture source 'rtsp://camera': expected v4l2:/dev/videoN"),
    ("", {}, "no capture source given"),
    ("v4l2:", {}, "needs a device path"),
    ("x11grab:nodisplay", {}, "x11grab needs a display like"),
    ("x11grab::0", {"fps": 0}, "fps must be a number of frames per second above 0"),
    ("x11grab::0", {"fps": float("nan")}, "fps must be"),
    ("x11grab::0", {"size": (640, 0)}, "size must be .width, height."),
    ("x11grab::0", {"size": "640x480"}, "size must be"),
    ("x11grab::0", {"size": (100_000, 100_000)}, "over the limit"),
    ("x11grab::0", {"pixel_format": "yuyv422"}, "pixel_format applies to v4l2 sources only"),
    ("v4l2:/dev/video0", {"pixel_format": "YUYV; rm"}, "pixel_format must be an FFmpeg format name"),
    ("x11grab::0", {"queue_size": 0}, "queue_size must be a whole number of frames 1..1024"),
])
def test_bad_parameters_refused_naming_them(spec, kw, message):
    with pytest.raises(ValueError, match=message):
        open_source(spec, **kw)
    assert capture_threads() == []


def test_missing_device_and_file_said_plainly(tmp_path):
    with pytest.raises(ValueError, match=r"v4l2:/nonexistent/video9: No such file"):
        open_source("v4l2:/nonexistent/video9")
    with pytest.raises(ValueError, match="is not a device"):
        f = tmp_path / "video0"
        f.write_bytes(b"x")
        open_source(f"v4l2:{f}")
    with pytest.raises(ValueError, match="cannot open video"):
        open_source(str(f))
    with pytest.raises(ValueError, match="size and fps apply to v4l2 and x11grab"):
        open_source(str(f), fps=30)


# ---------------------------------------------------------------- the device list
def test_no_devices_said_plainly(tmp_path):
    (tmp_path / "dev").mkdir()
    devices = list_devices(str(tmp_path / "dev"), str(tmp_path / "sys"))
    assert devices == [] and describe_devices(devices) == [NONE_FOUND]
    assert NONE_FOUND == "no V4L2 capture devices"


def test_nodes_that_are_not_v4l2_devices_listed_with_the_reason(tmp_path):
    dev, sysfs = tmp_path / "dev", tmp_path / "sys"
    dev.mkdir()
    for n in (10, 2):
        (dev / f"video{n}").write_bytes(b"")
        (sysfs / f"video{n}").mkdir(parents=True)
        (sysfs / f"video{n}" / "name").write_text(f"Card {n}\n")
    (dev / "videoX").write_bytes(b"")     # not a node name
    devices = list_devices(str(dev), str(sysfs))
    assert [d.path for d in devices] == [str(dev / "video2"), str(dev / "video10")]
    assert [d.name for d in devices] == ["Card 2", "Card 10"]
    assert all(d.capture is False and d.error == "not a V4L2 device" for d in devices)
    assert capture_devices(devices) == []
    lines = describe_devices(devices)
    assert lines[-1] == NONE_FOUND and lines[0].startswith(f"v4l2:{dev / 'video2'}  Card 2")
    assert devices[0].to_dict()["spec"] == f"v4l2:{dev / 'video2'}"


def test_a_node_that_cannot_be_opened_is_listed_as_unknown(tmp_path):
    dev = tmp_path / "dev"
    dev.mkdir()
    (dev / "video0").mkdir()               # opening it read-only fails (a directory)
    devices = list_devices(str(dev), str(tmp_path / "sys"))
    assert len(devices) == 1 and devices[0].capture in (None, False)


# ---------------------------------------------------------------- a video file played live
def test_file_source_yields_every_frame_in_order_paced_by_its_stream(tmp_path):
    path = tmp_path / "levels.mkv"
    write_gray_video(path, levels(24), fps=60)
    got = []
    with open_source(f"file:{path}") as src:
        assert src.info.kind == "file" and src.info.size == (64, 48) and src.info.rate_hz == 60.0
        assert src.info.clock == "stream" and src.info.plane == "luma"
        for f in src:
            got.append((f, time.monotonic()))
        assert src.finished and src.error is None
    frames = [f for f, _ in got]
    assert [int(f.image[0, 0]) for f in frames] == [8 * i + 4 for i in range(24)]
    assert all(f.image.shape == (48, 64) and f.image.dtype == np.uint8 for f in frames)
    assert all(f.clock == "stream" and f.lost_before == 0 for f in frames)
    t = np.array([f.t_s for f in frames])
    pts = np.array([f.source_time for f in frames])
    assert np.diff(t) == pytest.approx(np.diff(pts), abs=1e-6)   # laid on the stream's own times
    assert np.diff(t) == pytest.approx(np.full(23, 1 / 60), abs=1e-3)   # (Matroska keeps ms)
    assert [f.source_time for f in frames] == pytest.approx([i / 60 for i in range(24)], abs=1e-3)
    # each frame released at its time on the monotonic clock, never ahead of it
    assert all(f.t_s <= seen + 1e-3 and seen - f.t_s < 0.5 for f, seen in got)


def test_file_source_unpaced_reads_a_recording_by_its_pts(tmp_path):
    path = tmp_path / "levels.mkv"
    write_gray_video(path, levels(30), fps=30)
    with open_source(str(path), paced=False, queue_size=2) as src:
        time.sleep(0.2)                    # a consumer late to start loses nothing offline
        frames = list(src)
    assert len(frames) == 30 and src.frames_behind == 0
    assert [f.t_s for f in frames] == pytest.approx([i / 30 for i in range(30)], abs=1e-3)


def test_gaps_in_the_stream_are_the_source_losing_frames(tmp_path):
    path = tmp_path / "gap.mkv"
    write_gray_video(path, levels(6), fps=60, pts=[0, 1, 2, 5, 6, 7])
    with open_source(str(path)) as src:
        frames = list(src)
    assert [f.source_seq_gap for f in frames] == [0, 0, 0, 2, 0, 0]
    assert src.source_lost == 2 and src.frames_behind == 0 and src.capture_drops == 2


def test_a_slow_consumer_makes_the_source_drop_never_grow(tmp_path):
    path = tmp_path / "levels.mkv"
    write_gray_video(path, levels(30), fps=120)
    got = []
    with open_source(str(path), queue_size=4) as src:
        for f in src:
            got.append(f)
            time.sleep(0.05)               # 20 frames a second against 120
        counters = src.counters()
    assert counters["frames_read"] == 30
    assert counters["frames_behind"] > 0 and counters["max_backlog"] <= 4
    assert len(got) + counters["frames_behind"] == 30
    # every drop is carried by the next frame that got through (drops at the very end by none)
    assert 0 < sum(f.dropped_before for f in got) <= counters["frames_behind"]
    levels_seen = [int(f.image[0, 0]) for f in got]
    assert levels_seen == sorted(levels_seen)


def test_a_fifo_played_live(tmp_path):
    path = tmp_path / "levels.mkv"
    write_gray_video(path, levels(12), fps=60)
    fifo = tmp_path / "live.fifo"
    os.mkfifo(fifo)
    data = path.read_bytes()

    def feed():
        with open(fifo, "wb") as fh:
            fh.write(data)

    writer = threading.Thread(target=feed)
    writer.start()
    try:
        with open_source(str(fifo)) as src:
            frames = list(src)
    finally:
        writer.join(timeout=10)
    assert [int(f.image[0, 0]) for f in frames] == [8 * i + 4 for i in range(12)]


def test_a_fifo_nobody_writes_to_times_out_and_leaves_no_thread(tmp_path):
    fifo = tmp_path / "silent.fifo"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="did not open within 0.3 s"):
        open_source(str(fifo), open_timeout=0.3)


# ---------------------------------------------------------------- an X11 grab
@pytest.mark.xvfb
def test_x11grab_frames_are_on_the_monotonic_clock():
    with xvfb_server("320x240") as display, open_source(f"x11grab:{display}", fps=30) as src:
        assert src.info.kind == "x11grab" and src.info.size == (320, 240)
        assert src.info.clock == "realtime-mapped" and src.info.plane == "green"
        got = []
        while len(got) < 10:
            f = src.read(timeout=5.0)
            assert f is not None, src.error
            got.append((f, time.monotonic()))
        mapping = src.mapping
    for f, seen in got:
        assert f.clock == "realtime-mapped" and f.image.shape == (240, 320)
        assert abs(f.t_s - seen) < 0.5 and f.t_s <= seen + 0.01
        assert abs(f.source_time - f.t_s) > 1e6       # it was on the wall clock
    assert mapping["readings"] >= 1 and mapping["uncertainty_ms"] < 50
    assert abs(mapping["offset_s"] - (time.time() - time.monotonic())) < 0.05


@pytest.mark.xvfb
def test_x11grab_region():
    with xvfb_server("320x240") as display, \
            open_source(f"x11grab:{display}+10,20", size=(100, 80), fps=30) as src:
        f = src.read(timeout=5.0)
    assert f is not None and f.image.shape == (80, 100)


# ---------------------------------------------------------------- a real device (opt in)
@pytest.mark.capture_device
def test_a_real_v4l2_device_yields_frames_on_the_monotonic_clock():
    devices = [d for d in list_devices() if d.capture]
    if not devices:
        pytest.fail(f"-m capture_device selected but there are {NONE_FOUND}")
    with open_source(devices[0].spec) as src:
        got = []
        while len(got) < 5:
            f = src.read(timeout=5.0)
            assert f is not None, src.error
            got.append((f, time.monotonic()))
    for f, seen in got:
        assert f.clock in ("monotonic", "realtime-mapped") and abs(f.t_s - seen) < 0.5
        assert f.image.ndim == 2
