"""How fast counter panels decode: in memory once located (one core), and from files.

Rows of figures for ``testcard bench decode``; nothing here passes or fails.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from core.decode.job import decode_path
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
                 clock: Callable[[], float] = time.perf_counter) -> list[dict]:
    """Decode rates: in memory (RGB and luma, panel located beforehand), then PNG and video files."""
    import cv2


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
            wrong = sum(reader.read(img).index != (1000 + i) % (1 << bits) for i, img in enumerate(imgs))
            note = f"best of {repeats}; file reading excluded" + (f"; {wrong} WRONG" if wrong else "")
            rows.append(dict(case=name, **_rate(len(imgs), best), note=note))
    finally:
        cv2.setNumThreads(old)
    if files <= 0:
        return rows

    with tempfile.TemporaryDirectory(prefix="testcard-bench-") as tmp:
        folder = Path(tmp) / "png"
        folder.mkdir()

        step("writing PNG files")
        for i, img in enumerate(rgb[:files]):
            write_frame(folder / f"cap{i:05d}.png", img, 8)
        step("decoding PNG files")
        t0 = clock()
        rep = decode_path(folder)
        rows.append(dict(case="PNG files (read + decode)", **_rate(files, clock() - t0),
                         note=f"{rep['summary']['decoded']} decoded"))
        for codec, pix_fmt, suffix in (("libx264", "yuv420p", "mp4"), ("libx264", "yuv420p10le", "mkv")):
            path = Path(tmp) / f"cap_{pix_fmt}.{suffix}"
            step(f"encoding {codec} {pix_fmt}")
            try:
                _encode(path, rgb[:files], codec, pix_fmt)
            except Exception as exc:  # an av build without this encoder
                rows.append(dict(case=f"video {codec} {pix_fmt}", frames=0, frames_per_s=None,
                                 ms_per_frame=None, note=f"cannot encode here: {exc}"))
                continue
            step(f"decoding {suffix}")
            t0 = clock()
            rep = decode_path(path)
            rows.append(dict(case=f"video {codec} {pix_fmt} .{suffix} (read + decode)",
                             **_rate(files, clock() - t0),
                             note=f"{rep['summary']['decoded']} decoded; FFmpeg uses its own threads"))
    return rows


def _encode(path: Path, frames: list[np.ndarray], codec: str, pix_fmt: str, fps: int = 60) -> None:
    import av

    with av.open(str(path), "w") as out:
        stream = out.add_stream(codec, rate=fps)
        h, w = frames[0].shape[:2]
        stream.width, stream.height, stream.pix_fmt = w, h, pix_fmt
        stream.options = {"crf": "18", "preset": "ultrafast"}
        for f in frames:
            for packet in stream.encode(av.VideoFrame.from_ndarray(f, format="rgb24")):
                out.mux(packet)
        for packet in stream.encode():
            out.mux(packet)
