"""How fast counter panels decode: in memory once located (one core), and from files, each
read with one thread and with several (image files decoded ahead, a video's codec threads).
PNG files are read whole, and then for the located panel's lines alone
(:mod:`core.capture.png_lines`): each such row says how it compares with the whole files read
on one thread, and whether every frame's reading is the same as there.

Rows of figures for ``testcard bench decode``; nothing here passes or fails.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from core.capture import INFLATER, default_threads
from core.decode.job import DecodeJob, DecodeRequest
from core.decode.reader import PanelReader
from core.imageio import write_frame
from core.patterns import make_spec, render


def _robust_frames(width: int, height: int, bits: int, count: int, start: int = 1000) -> list[np.ndarray]:
    spec = make_spec("counter", {"bits": bits, "layout": "robust"}, width=width, height=height,
                     bit_depth=8, dtype="uint8")
    return [render(spec, start + i) for i in range(count)]


def _rate(n: int, seconds: float) -> dict:
    return {"frames": n, "frames_per_s": round(n / seconds, 1) if seconds > 0 else None,
            "ms_per_frame": round(seconds / n * 1e3, 4) if n else None}


def bench_decode(width: int = 1920, height: int = 1080, bits: int = 16, frames: int = 120,
                 files: int = 60, repeats: int = 5, progress: Callable[[str], None] | None = None,
                 clock: Callable[[], float] = time.perf_counter, threads: int | None = None) -> list[dict]:
    """Decode rates: in memory (RGB and luma, panel located beforehand), then PNG and video
    files, each read with one thread and with ``threads`` (default: the CPUs, at most 4):
    image files decoded ahead, a video on that many codec threads."""
    import cv2

    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1):
        raise ValueError(f"threads must be a whole number >= 1, got {threads!r}")

    step = progress or (lambda note: None)
    step("rendering")
    rgb = _robust_frames(width, height, bits, frames)
    luma = [np.ascontiguousarray(f[..., 1]) for f in rgb]
    rows = []

    reader = PanelReader()
    t0 = clock()
    found = reader.search(rgb[0])
    t_locate = clock() - t0
    if not found:
        raise RuntimeError("the benchmark's own panel was not found")
    assert reader.location is not None   # a search that found the panel keeps where
    rows.append(dict(case="locate (search, once per capture)", **_rate(1, t_locate),
                     note=f"{len(reader.location.bands)} bands"))
    reader.settle("robust")
    old = cv2.getNumThreads()
    cv2.setNumThreads(1)  # the in-memory rows are one core
    try:
        for name, imgs in (("in memory, RGB 8-bit", rgb), ("in memory, luma 8-bit (video plane)", luma)):
            step(name)
            for img in imgs[:3]:
                reader.read(img)
            best = None
            for _ in range(repeats):
                t0 = clock()
                for img in imgs:
                    reader.read(img)
                dt = clock() - t0
                best = dt if best is None else min(best, dt)
            assert best is not None   # at least one repeat timed
            wrong = sum(reader.read(img).index != (1000 + i) % (1 << bits) for i, img in enumerate(imgs))
            note = f"best of {repeats}; file reading excluded" + (f"; {wrong} WRONG" if wrong else "")
            rows.append(dict(case=name, **_rate(len(imgs), best), note=note))
    finally:
        cv2.setNumThreads(old)
    if files <= 0:
        return rows

    threads = default_threads() if threads is None else threads
    files = min(files, len(rgb))     # the files are the first rendered frames
    counts = sorted({1, threads})    # one thread (file by file) against the read-ahead
    with tempfile.TemporaryDirectory(prefix="testcard-bench-") as tmp:
        folder = Path(tmp) / "png"
        folder.mkdir()

        step("writing PNG files")
        for i, img in enumerate(rgb[:files]):
            write_frame(folder / f"cap{i:05d}.png", img, 8)
        sources = [("PNG files", folder, "", False)]
        for codec, pix_fmt, suffix in (("libx264", "yuv420p", "mp4"), ("libx264", "yuv420p10le", "mkv")):
            path = Path(tmp) / f"cap_{pix_fmt}.{suffix}"
            step(f"encoding {codec} {pix_fmt}")
            try:
                _encode(path, rgb[:files], codec, pix_fmt)
            except Exception as exc:  # an av build without this encoder
                rows.append(dict(case=f"video {codec} {pix_fmt}", frames=0, frames_per_s=None,
                                 ms_per_frame=None, note=f"cannot encode here: {exc}"))
                continue
            sources.append((f"video {codec} {pix_fmt} .{suffix}", path, "codec threads; ", True))
        sources.insert(1, ("PNG files, panel lines only", folder, "", True))
        whole = None     # PNG files read whole on one thread: (seconds, frames' readings)
        for name, path, what, lines_only in sources:
            for n in counts:
                step(f"decoding {name}, {n} thread(s)")
                t0 = clock()
                report = _decode_file(path, n, lines_only)
                dt = clock() - t0
                label = "one thread" if n == 1 else f"{n} threads"
                if whole is None:
                    whole = (dt, report["frames"])
                elif path == folder:
                    same = "same readings" if report["frames"] == whole[1] else "readings DIFFER"
                    what = f"{whole[0] / dt:.2f}x whole files on one thread, {same}; " + \
                        (f"inflated by {INFLATER}; " if lines_only else "")
                note = f"{what}{report['summary']['decoded']} decoded"
                rows.append(dict(case=f"{name} (read + decode), {label}", **_rate(files, dt), note=note))
    return rows


def _decode_file(path: Path, threads: int, lines_only: bool) -> dict:
    """Decode a capture with ``threads`` reading (image files ahead, or the codec's own),
    image files read for the panel's lines alone once located when ``lines_only``."""
    job = DecodeJob(DecodeRequest(str(path), read_threads=threads, panel_lines_only=lines_only))
    try:
        for _ in job:
            pass
        return job.report()
    finally:
        job.close()


def _encode(path: Path, frames: list[np.ndarray], codec: str, pix_fmt: str, fps: int = 60) -> None:
    import av
    from av.video.stream import VideoStream

    with av.open(str(path), "w") as out:
        stream = out.add_stream(codec, rate=fps)
        assert isinstance(stream, VideoStream)   # a video codec's name gives a video stream
        h, w = frames[0].shape[:2]
        stream.width, stream.height, stream.pix_fmt = w, h, pix_fmt
        stream.options = {"crf": "18", "preset": "ultrafast"}
        for f in frames:
            for packet in stream.encode(av.VideoFrame.from_ndarray(f, format="rgb24")):
                out.mux(packet)
        for packet in stream.encode():
            out.mux(packet)
