"""Captured frames in, one at a time: image sequences and video files.

``open_capture(PATH)`` accepts a folder or a glob of PNG, TIFF (8- or 16-bit),
JPEG or ``.npy`` files (taken in natural order: ``f2`` before ``f10``), a single
such file, or a video (mp4, mov, mkv, ...; 8- or 10-bit) read through PyAV
(:mod:`core.capture.video`).
``Capture.frames()`` is a generator: a long capture never sits in memory
whole.  A frame that cannot be read comes out as a ``CapturedFrame`` with
``image=None`` and ``error`` set, at its position, and reading goes on.
Image files are decoded a few ahead on a small pool of threads (the decoders
release the GIL), still in order and with a bound on the decoded frames waiting
(:mod:`core.capture.readahead`); a video decodes on its codec's own threads.
A reader that needs only some lines of each picture says so (``Capture.read_lines``):
PNG files are then read for those lines alone where that is exact
(:mod:`core.capture.png_lines`), and each frame says which lines it holds.

Video frames come out as their luma plane (``(H, W)`` uint8, or uint16 holding
10-bit codes) when the format has one, because the counter panel is black and
white and skipping the colour conversion makes reading several times faster;
other formats come out as RGB.  Images come out as ``(H, W, 3)`` RGB.
"""

from __future__ import annotations

import glob as globmod
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np

from core.capture.base import Capture, CapturedFrame
from core.capture.header import MAX_IMAGE_PIXELS, check_image
from core.capture.png_lines import read_png_lines
from core.capture.readahead import ReadAhead, default_threads
from core.capture.video import VideoCapture
from core.imageio import read_frame, sidecar_path
from core.jsonfile import load_json

IMAGE_SUFFIXES = (".png", ".tif", ".tiff", ".jpg", ".jpeg", ".npy")
VIDEO_SUFFIXES = (".mp4", ".mov", ".mkv", ".avi", ".webm", ".m4v", ".ts", ".mxf", ".y4m")
GLOB_CHARS = set("*?[")


def natural_key(text: str):
    """Sort key that orders embedded numbers by value: frame2 < frame10."""
    return [int(t) if t.isdigit() else t.lower() for t in re.split(r"(\d+)", text)]


class ImageSequence(Capture):
    """Image files in order.  ``read_threads`` decode the next files while the caller works
    on this one (:class:`~core.capture.readahead.ReadAhead`: order kept, at most
    ``read_ahead`` decoded frames waiting); 1 reads each file when it is asked for.
    After :meth:`read_lines`, a PNG file is read for those lines alone where
    :func:`~core.capture.png_lines.read_png_lines` can do so exactly, else whole."""

    kind = "images"

    def __init__(self, source: str, files: list[Path], fps: float | None = None,
                 read_threads: int | None = None, read_ahead: int | None = None):
        super().__init__(source, fps)
        self.files = files
        self.count = len(files)
        threads = default_threads() if read_threads is None else read_threads
        if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
            raise ValueError(f"read threads: expected a whole number >= 1, got {read_threads!r}")
        self.read_threads = min(threads, max(1, len(files)))
        self.read_ahead = read_ahead
        self._reading: ReadAhead | None = None
        self._lines: tuple[int, ...] | None = None   # replaced whole: read by the reading threads

        for f in files[:1]:
            if sidecar_path(f).exists():
                self.manifest_path = sidecar_path(f)
        # for image files without a significant-bits mark (see core.imageio)
        self.bit_depth = sidecar_bit_depth(self.manifest_path) if self.manifest_path else None

    def frames(self) -> Iterator[CapturedFrame]:
        reading = ReadAhead(enumerate(self.files), self._frame, self.read_threads, self.read_ahead)
        self._reading = reading
        with reading:
            yield from reading

    def read_lines(self, lines: Iterable[int] | None) -> None:
        self._lines = None if lines is None else tuple(sorted({int(y) for y in lines}))

    def _frame(self, item: tuple[int, Path], whole: bool = False) -> CapturedFrame:
        pos, path = item
        lines = None if whole else self._lines
        ts = pos / self.fps if self.fps else None
        try:
            if lines:
                image = read_image_lines(path, lines, self.bit_depth)
                if image is not None:
                    return CapturedFrame(pos, ts, image, path.name, lines=lines,
                                         reread=lambda: self._frame(item, whole=True))
            image = read_image(path, self.bit_depth)
        except ValueError as exc:   # at its position, and reading goes on
            return CapturedFrame(pos, ts, None, path.name, str(exc))
        return CapturedFrame(pos, ts, image, path.name)

    def close(self) -> None:
        if self._reading is not None:
            self._reading.close()


def read_image(path, bit_depth: int | None = None, *, max_pixels: int = MAX_IMAGE_PIXELS) -> np.ndarray:
    """One capture file as (H, W, 3) numbers; ``ValueError`` naming the file when it cannot be:
    a header declaring more than ``max_pixels`` (:func:`core.capture.header.check_image`, before
    any decoding), a format other than PNG, TIFF, JPEG or .npy, a truncated or corrupt file.

    Samples come back as code values: shifted by the file's own significant-bits mark, or
    by ``bit_depth`` (the sidecar's) when it has none (:func:`core.imageio.decode_image`).
    """
    p = Path(path)
    check_image(p, max_pixels)
    try:
        arr = read_frame(p, bit_depth)
    except ValueError:
        raise
    except Exception as exc:  # a decoder library failing on a damaged file
        raise ValueError(f"cannot read {p.name}: {exc}") from None
    return as_image(arr, p.name)


def read_image_lines(path, lines: Iterable[int], bit_depth: int | None = None, *,
                     max_pixels: int = MAX_IMAGE_PIXELS) -> np.ndarray | None:
    """Lines ``lines`` of a PNG capture file, as :func:`read_image` gives them, in an array of
    the whole picture's size whose other lines are zero
    (:func:`core.capture.png_lines.read_png_lines`); None for a file it cannot read so
    (another format, or one that module refuses), which :func:`read_image` then reads whole
    and reports on as ever.  ``ValueError`` as :func:`read_image` for a header over the limit
    or of no known format."""
    p = Path(path)
    if check_image(p, max_pixels).format != "png":
        return None
    try:
        data = p.read_bytes()
    except OSError:
        return None           # said by the whole read, as ever
    image = read_png_lines(data, lines, bit_depth, p.name)
    return None if image is None else as_image(image, p.name)


def sidecar_bit_depth(path) -> int | None:
    """The bit depth a frame's sidecar records; None when it has none or cannot be read (the
    decoder says so itself when it reads the sidecar for the panel)."""
    try:
        doc = load_json(path)
    except (OSError, ValueError):
        return None
    depth = doc.get("bit_depth") if isinstance(doc, dict) else None
    ok = isinstance(depth, int) and not isinstance(depth, bool) and 1 <= depth <= 16
    return depth if ok else None


def as_image(arr, name: str = "frame") -> np.ndarray:
    """Check an array is an image the decoder can sample: (H, W) or (H, W, 1|3|4), real numbers."""
    arr = np.asarray(arr)
    if arr.dtype.kind == "b":
        arr = arr.astype(np.uint8)
    if arr.dtype.kind not in "uif":
        raise ValueError(f"cannot read {name}: {arr.dtype} is not an image sample type")
    if arr.ndim == 3 and arr.shape[2] in (3, 4):
        arr = arr[..., :3]
    elif arr.ndim == 3 and arr.shape[2] == 1:
        arr = arr[..., 0]
    elif arr.ndim != 2:
        raise ValueError(f"cannot read {name}: expected an image, got an array of shape {arr.shape}")
    if arr.shape[0] < 1 or arr.shape[1] < 1:
        raise ValueError(f"cannot read {name}: empty image {arr.shape}")
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        arr = np.nan_to_num(arr, nan=0.0, posinf=0.0, neginf=0.0)
    return arr


def open_capture(path, capture_fps: float | None = None, *, read_threads: int | None = None) -> Capture:
    """A capture from a folder, a glob, one image, or a video file.

    ``read_threads``: threads decoding image files ahead (default: the CPUs, at most 4; 1
    reads each file when it is asked for); for a video, the codec's own decoding threads
    (default: FFmpeg's choice).

    Raises ``ValueError`` with one clear sentence for a path that does not
    exist, an empty folder, a glob that matches nothing, an unsupported file
    type or a video that cannot be opened.
    """
    if capture_fps is not None and not capture_fps > 0:
        raise ValueError(f"capture rate must be above 0 frames/s, got {capture_fps}")
    text = str(path)
    p = Path(text)
    if not p.exists() and GLOB_CHARS & set(text):
        files = [Path(f) for f in globmod.glob(text) if Path(f).is_file()
                 and Path(f).suffix.lower() in IMAGE_SUFFIXES]
        if not files:
            raise ValueError(f"no image files match {text}")
        files.sort(key=lambda f: natural_key(str(f)))
        return ImageSequence(text, files, capture_fps, read_threads)
    if not p.exists():
        raise ValueError(f"{text} does not exist")
    if p.is_dir():
        files = [f for f in p.iterdir() if f.is_file() and not f.name.startswith(".")
                 and f.suffix.lower() in IMAGE_SUFFIXES]
        if not files:
            raise ValueError(f"no image files ({', '.join(IMAGE_SUFFIXES)}) in folder {text}")
        files.sort(key=lambda f: natural_key(f.name))
        return ImageSequence(text, files, capture_fps, read_threads)
    suffix = p.suffix.lower()
    if suffix in IMAGE_SUFFIXES:
        return ImageSequence(text, [p], capture_fps, read_threads)
    if suffix in VIDEO_SUFFIXES:
        return VideoCapture(p, capture_fps, threads=read_threads)
    raise ValueError(f"{p.name}: unsupported file type (images: {', '.join(IMAGE_SUFFIXES)}; "
                     f"video: {', '.join(VIDEO_SUFFIXES)})")
