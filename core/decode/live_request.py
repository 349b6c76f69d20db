"""What a live decode is asked (:class:`LiveRequest`), reads from (:class:`FrameSource`) and
yields (:class:`LiveBatch`): :mod:`core.decode.live`'s vocabulary."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from core.capture import SourceInfo
from core.counter import MAX_BITS, MIN_BITS
from core.decode.job import FrameReading
from core.decode.latency import CaptureSample

KEEP = 1 << 16            # readings and capture samples kept for the report (18 min at 60 Hz)
BATCH_S = 0.25


class FrameSource(Protocol):
    """What a live decode reads from (:class:`core.capture.LiveSource`)."""

    info: SourceInfo
    frames_behind: int
    source_lost: int

    def read(self, timeout: float | None = None): ...

    @property
    def finished(self) -> bool: ...

    @property
    def mapping(self) -> dict | None: ...

    def describe(self) -> dict: ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class LiveRequest:
    """What to decode live; ``seconds`` / ``frames`` end the run (None: until the source ends or
    the caller cancels)."""

    manifest: str | None = None
    bits: int | None = None
    display_fps: float | None = None
    seconds: float | None = None
    frames: int | None = None
    present_log: str | None = None   # testcard show's --timeline CSV, read when the run ends
    batch_s: float = BATCH_S
    keep: int = KEEP

    def check(self) -> None:
        if self.bits is not None and (type(self.bits) is not int or not MIN_BITS <= self.bits <= MAX_BITS):
            raise ValueError(f"--bits must be {MIN_BITS}..{MAX_BITS}, got {self.bits}")
        for name, v in (("--display-fps", self.display_fps), ("--seconds", self.seconds),
                        ("batch_s", self.batch_s)):
            if v is not None and (isinstance(v, bool) or not isinstance(v, int | float)
                                  or not np.isfinite(v) or v <= 0):
                raise ValueError(f"{name} must be a number above 0, got {v}")
        for name, v in (("--frames", self.frames), ("keep", self.keep)):
            if v is not None and (type(v) is not int or v < 1):
                raise ValueError(f"{name} must be a whole number of 1 or more, got {v}")


@dataclass(frozen=True)
class LiveBatch:
    readings: tuple[FrameReading, ...]
    samples: tuple[CaptureSample, ...]
    summary: dict
