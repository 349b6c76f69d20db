"""Reading image files for the located panel's lines alone changes nothing in the report.

A folder of PNG captures -- tears, drops, noise, a blank frame, the panel moving, a frame of
another size, a damaged file, 10-bit codes in 16-bit files with a sidecar -- decodes to the same
report, field for field, with and without the panel-lines path, on one reading thread and on
several; and the path is really taken (most frames are read for their lines alone).
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import core.capture.files as capture_files
from core.decode import DecodeJob, DecodeRequest
from core.decode.reader import PanelReader
from core.imageio import write_frame
from core.manifest import save_frame
from core.patterns import make_spec, render
from tests.helpers.capture_sim import Look, Schedule, Simulator

W, H = 320, 180


def robust(bits=10, depth=8, w=W, h=H):
    return make_spec("counter", {"bits": bits, "layout": "robust"}, width=w, height=h, bit_depth=depth,
                     dtype="uint8" if depth <= 8 else "uint16")


@pytest.fixture
def counted(monkeypatch):
    """Counts of files read for their lines alone, and of such frames read again whole."""
    counts = {"lines": 0, "again": 0}
    read_lines, frame = capture_files.read_image_lines, capture_files.ImageSequence._frame

    def lines_only(*args, **kwargs):
        image = read_lines(*args, **kwargs)
        counts["lines"] += image is not None
        return image

    def framed(self, item, whole=False):
        counts["again"] += whole
        return frame(self, item, whole)

    monkeypatch.setattr(capture_files, "read_image_lines", lines_only)
    monkeypatch.setattr(capture_files.ImageSequence, "_frame", framed)
    return counts


def decode(folder, lines_only: bool, threads: int, **request) -> dict:
    job = DecodeJob(DecodeRequest(str(folder), read_threads=threads, panel_lines_only=lines_only,
                                  **request))
    for _ in job:
        pass
    return job.report()


def assert_same_reports(folder, counted, threads=(1, 2), **request) -> dict:
    counted.update(lines=0, again=0)
    whole = decode(folder, False, 1, **request)
    assert counted["lines"] == 0
    for n in threads:
        assert decode(folder, True, n, **request) == whole, f"{n} thread(s)"
    return whole


def write_capture(folder, frames, names=None):
    for pos, img in enumerate(frames):
        write_frame(folder / (names[pos] if names else f"cap{pos:03d}.png"), img, 8)


def test_a_capture_with_tears_drops_and_trouble_reads_the_same(tmp_path, counted):
    sp = robust()
    sim = Simulator(sp, Look(blur=0.6, noise=1.5), seed=3)
    frames, _ = sim.run(Schedule.build(100, 30, 1 << 10, drops={4, 17}, repeats={9}, tears={6: 70, 12: 120}))
    moved = Simulator(sp, Look(scale_x=0.9, scale_y=0.9, offset_x=11, offset_y=7, size=(W, H)), seed=4)
    later, _ = moved.run(Schedule.build(140, 8, 1 << 10))
    frames = frames[:14] + [np.zeros_like(frames[0])] + frames[14:] + later
    write_capture(tmp_path, frames)
    other = Simulator(robust(w=2 * W, h=2 * H), Look(), seed=5).run(Schedule.build(160, 2, 1 << 10))[0]
    write_frame(tmp_path / "cap020b.png", other[0], 8)          # another size, in the middle
    (tmp_path / "cap025b.png").write_bytes((tmp_path / "cap025.png").read_bytes()[:-40])   # cut short
    report = assert_same_reports(tmp_path, counted)
    statuses = [f["status"] for f in report["frames"]]
    assert {"ok", "torn", "undecodable", "unreadable"} <= set(statuses)
    assert report["decoder"]["searches"] > 2                      # lost and found again
    assert counted["lines"] > len(frames)                         # the lines path was taken
    assert counted["again"] > 0                                   # and left where it must be


def test_sixteen_bit_files_with_a_sidecar_read_the_same(tmp_path, counted):
    sp = robust(bits=12, depth=10)
    for i in range(12):
        save_frame(tmp_path / f"f{i:02d}.png", sp, render(sp, 500 + i), 500 + i)
    report = assert_same_reports(tmp_path, counted)
    assert report["manifest"] and report["summary"]["decoded"] == 12
    assert counted["lines"] > 0


def test_a_manifest_given_reads_the_same(tmp_path, counted):
    sp = robust(bits=8)
    save_frame(tmp_path / "ref.png", sp, render(sp, 0), 0)
    cap = tmp_path / "cap"
    cap.mkdir()
    write_capture(cap, [render(sp, i) for i in range(1, 11)])
    report = assert_same_reports(cap, counted, manifest=str(tmp_path / "ref.png.json"))
    assert report["decoder"]["panel"]["found_by"] == "manifest"


def test_a_compat_capture_is_read_whole(tmp_path, counted):
    sp = make_spec("counter", {"bits": 10, "layout": "compat"}, width=W, height=H, bit_depth=8,
                   dtype="uint8")
    write_capture(tmp_path, [render(sp, 300 + i) for i in range(10)])
    report = assert_same_reports(tmp_path, counted)
    assert report["decoder"]["layout"] == "compat" and counted["lines"] == 0


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10**6), tear=st.integers(0, H - 1), blank=st.integers(0, 15),
       scale=st.sampled_from([1.0, 0.8, 1.25]), noise=st.sampled_from([0.0, 2.0]))
def test_any_capture_reads_the_same(tmp_path_factory, counted, seed, tear, blank, scale, noise):
    folder = tmp_path_factory.mktemp("cap")
    sim = Simulator(robust(bits=8), Look(scale_x=scale, scale_y=scale, noise=noise), seed=seed)
    frames, _ = sim.run(Schedule.build(seed % 256, 16, 256, drops={3}, tears={blank // 2: tear}))
    frames[blank] = np.zeros_like(frames[blank])
    write_capture(folder, frames)
    assert_same_reports(folder, counted, threads=(2,))


def test_a_reader_reads_the_located_panel_from_its_lines_alone():
    sp = robust(bits=8)
    frames = [render(sp, i) for i in range(3)]
    reader = PanelReader()
    assert reader.lines_needed() is None
    assert reader.search(frames[0])
    needed = reader.lines_needed()
    assert needed == tuple(sorted(set(needed))) and len(needed) < H // 4
    part = np.zeros_like(frames[1])
    part[list(needed)] = frames[1][list(needed)]
    whole = PanelReader()
    whole.search(frames[0])
    assert reader.read_located(part, needed) == whole.read(frames[1])
    assert reader.read_located(part, needed[1:]) is None                   # a line it needs is missing
    assert reader.read_located(np.zeros((H + 2, W, 3), np.uint8), needed) is None   # another size
    assert reader.read_located(np.zeros_like(part), needed) is None        # no panel there: read whole
