"""The metric families testcard exposes, each on a registry the caller owns (never the global
one: two outputs in one process, or a test, never share a counter).

Names follow Prometheus's conventions: ``snake_case`` under ``testcard_``, base units
(``_seconds``, ``_hertz``), ``_total`` for counters, an ``_info`` family of value 1 carrying
descriptive labels.  Every label value is bounded: a pattern or render-path name from testcard's
own tables, a protocol from :data:`PROTOCOLS`, a size or depth of the frame format; never a
frame index or anything a client sent.

Per frame, :meth:`OutputMetrics.frame_presented` costs a few counter increments and two
histogram observations (each a bisect and a lock, about a microsecond): the frame loop calls it
after the present, never before.
"""

from __future__ import annotations

import math
from typing import TypedDict

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, Info

from core.remote import SOURCES

PROTOCOLS = (*SOURCES, "other")   # resolve, argyll-web, pgenerator, upgci: serve's own names

# multiples of the frame period: the present interval's buckets sit around 1.0 and the late
# rule's 1.5; the frame work's below 1.0, where a frame that fits its budget lands
INTERVAL_BUCKETS = (0.25, 0.5, 0.75, 0.9, 1.1, 1.25, 1.5, 2.0, 2.5, 3.0, 4.0, 6.0)
WORK_BUCKETS = (0.02, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0, 1.25, 1.5, 2.0, 4.0)
LATENCY_BUCKETS_S = (0.004, 0.008, 0.012, 0.016, 0.020, 0.025, 0.033, 0.040, 0.050, 0.067,
                     0.083, 0.1, 0.133, 0.167, 0.25, 0.5, 1.0)


def check_period_s(period_s) -> float:
    p = float(period_s)
    if not (math.isfinite(p) and 0 < p <= 10.0):
        raise ValueError(f"a frame period must be 0..10 s, got {period_s!r}")
    return p


def period_buckets(period_s: float, multiples) -> tuple[float, ...]:
    """Bucket bounds in seconds: ``multiples`` of the frame period, rounded to a microsecond."""
    p = check_period_s(period_s)
    return tuple(round(m * p, 6) for m in multiples)


class OutputMetrics:
    """What a live output presents: frames, late frames, missed vblanks, the present interval
    and the frame's render+transfer+upload time against the budget, the refresh, and what is
    on screen.  Buckets are fixed from the period in force when it is made (a Prometheus
    histogram's bounds cannot change); the budget gauge follows the refresh."""

    def __init__(self, registry: CollectorRegistry, period_s: float = 1 / 60):
        p = check_period_s(period_s)
        self.presented = Counter("testcard_frames_presented", "Frames presented by the output",
                                 registry=registry)
        self.late = Counter("testcard_frames_late",
                            "Presents more than 1.5 frame periods after the one before",
                            registry=registry)
        self.missed = Counter("testcard_vblanks_missed",
                              "Vblanks that passed without a new frame (round(interval/period) - 1)",
                              registry=registry)
        self.interval = Histogram("testcard_present_interval_seconds",
                                  "Time from one present to the next",
                                  buckets=period_buckets(p, INTERVAL_BUCKETS), registry=registry)
        self.work = Histogram("testcard_frame_work_seconds",
                              "Render + transfer + upload time of each presented frame",
                              buckets=period_buckets(p, WORK_BUCKETS), registry=registry)
        self.refresh = Gauge("testcard_refresh_rate_hertz", "The output screen's refresh rate",
                             registry=registry)
        self.budget = Gauge("testcard_frame_budget_seconds", "One frame period: the render budget",
                            registry=registry)
        self.last_present = Gauge("testcard_last_present_timestamp_seconds",
                                  "Wall-clock time of the latest present (Unix seconds)",
                                  registry=registry)
        self.info = Info("testcard_output", "What the output shows and how it renders it",
                         registry=registry)
        self.set_period(p)

    def set_period(self, period_s: float) -> None:
        p = check_period_s(period_s)
        self.refresh.set(1.0 / p)
        self.budget.set(p)

    def set_output(self, *, pattern: str, width: int, height: int, bit_depth: int,
                   transfer: str, render_path: str, path_source: str, presenter: str) -> None:
        """The info labels: every value from testcard's own tables or the frame format."""
        self.info.info({"pattern": str(pattern), "width": str(int(width)), "height": str(int(height)),
                        "bit_depth": str(int(bit_depth)), "transfer": str(transfer),
                        "render_path": str(render_path), "path_source": str(path_source),
                        "presenter": str(presenter)})

    def frame_presented(self, interval_s: float | None, work_s: float, late: bool, missed: int,
                        wall_s: float) -> None:
        """One present: ``interval_s`` from the one before (None for the first)."""
        self.presented.inc()
        if late:
            self.late.inc()
        if missed > 0:
            self.missed.inc(missed)
        if interval_s is not None and interval_s >= 0:
            self.interval.observe(interval_s)
        if work_s >= 0:
            self.work.observe(work_s)
        self.last_present.set(wall_s)


class _PerProtocol(TypedDict):
    """The keywords every one of serve's families is made with."""

    labelnames: tuple[str, ...]
    registry: CollectorRegistry


class ServeMetrics:
    """What calibration software asked of ``serve``: patches received, acknowledged (shown)
    and refused per protocol, and the clients connected."""

    def __init__(self, registry: CollectorRegistry):
        kw = _PerProtocol(labelnames=("protocol",), registry=registry)
        self.received = Counter("testcard_patches_received", "Patches received", **kw)
        self.acknowledged = Counter("testcard_patches_acknowledged",
                                    "Patches acknowledged after they were presented", **kw)
        self.refused = Counter("testcard_patches_refused",
                               "Patches answered with an error or a closed connection "
                               "(malformed, replaced or never shown)", **kw)
        self.clients = Gauge("testcard_clients_connected", "Connected calibration clients", **kw)
        for p in PROTOCOLS:          # every series exists from the start: rate() needs a zero
            for family in (self.received, self.acknowledged, self.refused, self.clients):
                family.labels(protocol=p)

    @staticmethod
    def protocol(name: str) -> str:
        name = str(name).lower()
        return name if name in PROTOCOLS else "other"

    def patch_received(self, protocol: str) -> None:
        self.received.labels(protocol=self.protocol(protocol)).inc()

    def patch_acknowledged(self, protocol: str) -> None:
        self.acknowledged.labels(protocol=self.protocol(protocol)).inc()

    def patch_refused(self, protocol: str) -> None:
        self.refused.labels(protocol=self.protocol(protocol)).inc()

    def set_clients(self, protocol: str, count: int) -> None:
        self.clients.labels(protocol=self.protocol(protocol)).set(max(0, int(count)))

    def record(self, record: dict) -> None:
        """One of serve's log records (``kind`` and ``source``): a patch received, shown (and
        acknowledged unless its client had already been told no), not shown or refused, a
        client connected or gone."""
        kind, proto = record.get("kind"), self.protocol(record.get("source", ""))
        if kind == "patch":
            self.received.labels(protocol=proto).inc()
        elif kind == "shown":
            if record.get("acknowledged", True):
                self.acknowledged.labels(protocol=proto).inc()
        elif kind in ("not-shown", "refused"):
            self.refused.labels(protocol=proto).inc()
        elif kind == "connected":
            self.clients.labels(protocol=proto).inc()
        elif kind == "disconnected":
            g = self.clients.labels(protocol=proto)
            if g._value.get() > 0:
                g.dec()


class CaptureMetrics:
    """A live capture or latency run: frames captured, capture drops (captures the source
    itself missed), display drops the decode proved, and the measured latency."""

    def __init__(self, registry: CollectorRegistry):
        self.captured = Counter("testcard_capture_frames", "Frames captured", registry=registry)
        self.capture_drops = Counter("testcard_capture_drops",
                                     "Frames the capture source reported missing", registry=registry)
        self.display_drops = Counter("testcard_display_drops",
                                     "Display drops proved by the decoded counter", registry=registry)
        self.latency = Histogram("testcard_latency_seconds", "Present-to-capture latency",
                                 buckets=LATENCY_BUCKETS_S, registry=registry)

    _last = (0, 0, 0)

    def totals(self, captured: int, capture_drops: int, display_drops: int) -> None:
        """A run's running totals: each counter moves by what its total grew since the last call
        (a total that went down is a new run's: taken as the new baseline)."""
        now = (int(captured), int(capture_drops), int(display_drops))
        grew = [n - o if n >= o else n for n, o in zip(now, self._last, strict=True)]
        self._last = now
        self.frames(*grew)

    def frames(self, captured: int = 0, capture_drops: int = 0, display_drops: int = 0) -> None:
        for counter, n in ((self.captured, captured), (self.capture_drops, capture_drops),
                           (self.display_drops, display_drops)):
            if n > 0:
                counter.inc(n)

    def observe_latency(self, seconds: float) -> None:
        if math.isfinite(seconds) and seconds >= 0:
            self.latency.observe(seconds)
