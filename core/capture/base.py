"""What every capture source hands over: :class:`CapturedFrame`, one frame at its position, and
:class:`Capture`, the source's interface (image sequences in :mod:`core.capture.files`, video
files in :mod:`core.capture.video`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np


@dataclass
class CapturedFrame:
    """One captured frame.  ``image`` is valid until the next frame is read (copy to keep).

    ``lines``: when only some lines of the picture were read (``Capture.read_lines``), those
    lines, sorted; ``image`` is then the whole picture's size with every other line zero.
    None: ``image`` is the whole picture.
    """

    position: int
    timestamp: float | None
    image: np.ndarray | None
    name: str | None = None
    error: str | None = None
    lines: tuple[int, ...] | None = None
    reread: Callable[[], CapturedFrame] | None = field(default=None, repr=False, compare=False)

    def whole(self) -> CapturedFrame:
        """This frame with its whole picture: itself when it has it, else its file read again
        in full (one that cannot be read then comes back with ``image`` None and ``error``)."""
        if self.lines is None or self.reread is None:
            return self
        return self.reread()



class Capture:
    """A source of captured frames.  Use ``frames()`` once; ``close()`` releases files."""

    kind = "capture"

    def __init__(self, source: str, fps: float | None = None):
        self.source = source
        self.fps = fps
        self.count: int | None = None
        self.manifest_path: Path | None = None

    def frames(self) -> Iterator[CapturedFrame]:  # pragma: no cover - abstract
        raise NotImplementedError

    def read_lines(self, lines: Iterable[int] | None) -> None:
        """Ask that frames read from now on hold only picture lines ``lines`` (None: whole
        pictures again).  A request, not a promise: a source that cannot read part of a picture
        exactly ignores it, and frames already read ahead keep what they were read with; each
        frame says what it holds (``CapturedFrame.lines``).  This kind reads whole pictures."""

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def describe(self) -> dict:
        return {"source": self.source, "kind": self.kind, "count": self.count, "fps": self.fps}
