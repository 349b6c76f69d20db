"""A YUV4MPEG2 header that lies about its frames' size or format never makes a torn frame: each
frame is checked against the header before it is decoded, and one whose bytes do not end where
the next FRAME begins is unreadable (a gap), with the frames after it left unread."""

import numpy as np
import pytest

from app.cli import main
from core.capture import open_capture
from core.capture.y4m import frame_bytes, y4m_layout
from core.decode import DecodeJob, DecodeRequest
from core.patterns import make_spec, render

W, H = 320, 180


def y4m(path, indices, header_w=W, header_h=H, colour="420jpeg", planes=1.5, depth=1, frame_line=b"FRAME\n"):
    """Robust counter frames 320x180 as 4:2:0 (``planes`` luma sizes a frame, ``depth`` bytes a
    sample) under a header that may say otherwise."""
    sp = make_spec("counter", {"bits": 16, "layout": "robust"}, width=W, height=H, bit_depth=8, dtype="uint8")
    with open(path, "wb") as fh:
        fh.write(f"YUV4MPEG2 W{header_w} H{header_h} F60:1 Ip A1:1 C{colour}\n".encode())
        for i in indices:
            y = render(sp, i)[..., 1]
            if depth == 2:
                y = (y.astype("<u2") << 2)
            fh.write(frame_line + y.tobytes())
            fh.write(bytes([128] * depth) * int(W * H * (planes - 1)) if depth == 1 else
                     (np.full(int(W * H * (planes - 1)), 512, "<u2")).tobytes())
    return path


def readings(path):
    job = DecodeJob(DecodeRequest(str(path)))
    for _ in job:
        pass
    return job.results


def test_a_header_claiming_twice_the_height_is_not_a_torn_frame(tmp_path):
    # a 320x360 claim makes FFmpeg's first packet two frames: counter 0 above, counter 1 below
    got = readings(y4m(tmp_path / "tall.y4m", range(30), header_h=2 * H))
    assert [r.status for r in got] == ["unreadable"]
    assert not any(r.status == "torn" for r in got)
    assert "frame 0 is not the 320x360 C420jpeg" in got[0].note and "not decoded" in got[0].note


@pytest.mark.parametrize("lie", [dict(header_h=H - 10), dict(header_w=W + 8), dict(colour="444"),
                                 dict(colour="mono"), dict(colour="420p10")])
def test_a_header_lying_about_size_or_format_decodes_nothing_from_the_lie(tmp_path, lie):
    got = readings(y4m(tmp_path / "lie.y4m", range(10), **lie))
    assert [r.status for r in got] == ["unreadable"]
    assert "the header lies about the frame size or format" in got[0].note


def test_the_decode_says_gap_never_torn(tmp_path, capsys):
    path = y4m(tmp_path / "tall.y4m", range(30), header_h=2 * H)
    assert main(["decode", str(path), "--fail-on-gap"]) == 1
    out = capsys.readouterr().out
    assert "torn 0" in out and "unreadable: 1" in out
    assert main(["decode", str(path), "--fail-on-drop"]) == 3      # nothing decoded: cannot tell


def test_honest_streams_decode_whole(tmp_path):
    assert [r.index for r in readings(y4m(tmp_path / "ok.y4m", range(12)))] == list(range(12))
    # frame lines with parameters, and 10-bit samples, are laid out as the header says
    assert [r.index for r in readings(y4m(tmp_path / "p.y4m", range(4), frame_line=b"FRAME Ip\n"))] == \
        [0, 1, 2, 3]
    ten = y4m(tmp_path / "ten.y4m", range(4), colour="420p10", depth=2)
    assert [f.image.shape for f in open_capture(ten).frames()] == [(H, W)] * 4


def test_a_stream_cut_short_keeps_its_whole_frames(tmp_path):
    path = y4m(tmp_path / "cut.y4m", range(6))
    data = path.read_bytes()
    path.write_bytes(data[:-1000])
    got = readings(path)
    assert [r.status for r in got[:5]] == ["ok"] * 5 and [r.index for r in got[:5]] == list(range(5))
    assert got[5].status == "unreadable" and "cut short" in got[5].note


def test_frame_sizes_follow_the_colour_tag():
    assert frame_bytes(4, 2, b"420jpeg") == 8 + 2 * 2
    assert frame_bytes(5, 3, b"420") == 15 + 2 * 3 * 2          # odd sizes round the chroma up
    assert frame_bytes(4, 2, b"422") == 16 and frame_bytes(4, 2, b"444") == 24
    assert frame_bytes(4, 2, b"444alpha") == 32 and frame_bytes(4, 2, b"mono") == 8
    assert frame_bytes(8, 2, b"411") == 16 + 2 * 2 * 2
    assert frame_bytes(4, 2, b"420p10") == 24 and frame_bytes(4, 2, b"mono16") == 16
    assert frame_bytes(4, 2, b"rgb") is None


def test_a_fifo_is_never_walked(tmp_path):
    import os

    fifo = tmp_path / "live.y4m"
    os.mkfifo(fifo)
    assert y4m_layout(fifo) is None
