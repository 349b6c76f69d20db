"""Latency files: the present log read from the timeline's CSV, and the report written as a
per-frame CSV, a histogram PNG and a latency-over-time PNG.

The present log is the CSV testcard exports (``core.timing.CSV_COLUMNS``: the kiosk's
``--timeline``, the GUI's export); only ``index`` and ``present_s`` are needed, and a row whose
``error`` is set (its render failed: nothing new was presented) is left out.  The clock pairs
(``clock_realtime_s``, ``clock_monotonic_s``, ``clock_uncertainty_s``, filled on a few rows) are
read where present, whatever the row's ``error``; a log written before them reads as it did,
without pairs.  It is read as
untrusted input: bounded in size and rows, every value checked, one ``ValueError`` naming the
file, line and column.  Plots are drawn as :mod:`core.decode.report` draws its plot (numpy and
OpenCV primitives, no plotting library, no Qt); every file goes through :mod:`core.atomic`.
"""

from __future__ import annotations

import csv
import io
import math
import re
from array import array
from pathlib import Path

import numpy as np

from core.atomic import atomic_path, require_parent
from core.decode.latency import PresentLog
from core.decode.report import COLOURS, nice_ticks
from core.imageio import write_frame
from core.timing import CLOCK_COLUMNS, ClockPair

MAX_BYTES = 1 << 31          # a present log larger than this is refused (a day at 60 Hz: ~0.4 GB)
MAX_ROWS = 20_000_000
MAX_FIELD = 4096
_INT = re.compile(r"[+-]?\d{1,19}")
CSV_BASE = ("index", "counter", "present_s", "capture_s", "latency_ms", "status")


def parse_present_log(text: str, name: str = "present log") -> PresentLog:
    """A present log from CSV text (see the module's text); ``ValueError`` naming ``name``."""
    reader = csv.reader(io.StringIO(text.lstrip("\ufeff"), newline=""))
    try:
        header = next(reader, None)
        if header is None:
            raise ValueError(f"{name} is empty: expected a CSV with index and present_s columns")
        cols = [c.strip() for c in header]
        missing = [c for c in ("index", "present_s") if c not in cols]
        if missing:
            raise ValueError(f"{name} has no {' or '.join(missing)} column: not a testcard timeline "
                             "CSV (export one from the timing dock or the kiosk's --timeline)")
        ci, ct = cols.index("index"), cols.index("present_s")
        ce = cols.index("error") if "error" in cols else None
        cp = [cols.index(c) for c in CLOCK_COLUMNS] if all(c in cols for c in CLOCK_COLUMNS) else None
        idx, ts = array("q"), array("d")
        pairs: list[ClockPair] = []
        for line, row in enumerate(reader, start=2):
            if not row or (len(row) == 1 and not row[0].strip()):
                continue
            if len(idx) >= MAX_ROWS:
                raise ValueError(f"{name} has more than {MAX_ROWS:,} rows")
            if len(row) <= max(ci, ct) or any(len(f) > MAX_FIELD for f in row):
                raise ValueError(f"{name} line {line}: expected {len(cols)} columns, got a row of {len(row)}")
            if cp is not None and max(cp) < len(row) and row[cp[0]].strip():
                pairs.append(_clock_pair(row, cp, name, line))
            if ce is not None and ce < len(row) and row[ce].strip():
                continue
            v, t = row[ci].strip(), row[ct].strip()
            if not _INT.fullmatch(v) or not -(1 << 63) <= int(v) < (1 << 63):
                raise ValueError(f"{name} line {line}: index must be a whole number (64-bit), "
                                 f"got {v[:40]!r}")
            try:
                tf = float(t)
            except ValueError:
                tf = math.nan
            if not math.isfinite(tf) or len(t) > 40:
                raise ValueError(f"{name} line {line}: present_s must be a finite number of seconds, "
                                 f"got {t[:40]!r}")
            idx.append(int(v))
            ts.append(tf)
    except csv.Error as exc:
        raise ValueError(f"{name}: not a readable CSV ({exc})") from None
    if not idx:
        raise ValueError(f"{name} has no presented frames")
    return PresentLog(np.frombuffer(idx, np.int64).copy(), np.frombuffer(ts, np.float64).copy(),
                      tuple(pairs))


def _seconds(text: str, column: str, name: str, line: int) -> float:
    t = text.strip()
    try:
        v = float(t) if len(t) <= 40 else math.nan
    except ValueError:
        v = math.nan
    if not math.isfinite(v):
        raise ValueError(f"{name} line {line}: {column} must be a finite number of seconds, got {t[:40]!r}")
    return v


def _clock_pair(row: list[str], cols: list[int], name: str, line: int) -> ClockPair:
    r, m, u = (_seconds(row[c], col, name, line) for c, col in zip(cols, CLOCK_COLUMNS, strict=True))
    if u < 0:
        raise ValueError(f"{name} line {line}: clock_uncertainty_s must be 0 or more, got {u:g}")
    return ClockPair(r, m, u)


def read_present_log(path) -> PresentLog:
    """The present log in the timeline CSV at ``path`` (see :func:`parse_present_log`)."""
    p = Path(path)
    try:
        size = p.stat().st_size
        if size > MAX_BYTES:
            raise ValueError(f"{p.name} is {size:,} bytes: over the limit of {MAX_BYTES:,} for a present log")
        text = p.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{p.name} is not UTF-8 text: not a testcard timeline CSV") from None
    except OSError as exc:
        raise ValueError(f"cannot read {p}: {exc.strerror or exc}") from None
    return parse_present_log(text, p.name)


def write_latency_csv(path, report: dict) -> Path:
    """One row per presented index: its present and first-capture times, latency (corrected)
    and status, and each band's latency; written whole or not at all."""
    names = list(report.get("bands", {}))
    p = require_parent(path)
    with atomic_path(p) as tmp, open(tmp, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow([*CSV_BASE, *(f"{n.replace(' ', '_')}_ms" for n in names)])
        for f in report.get("frames", []):
            base = ["" if f.get(c) is None else f[c] for c in CSV_BASE]
            w.writerow(base + ["" if v is None else v for v in f.get("bands_ms", [])])
    return p


def check_png(path, option: str = "--plot") -> Path:
    p = Path(path)
    if p.suffix.lower() != ".png":
        raise ValueError(f"{option} writes a PNG: {p.name} must end in .png")
    return require_parent(p)


class _Canvas:
    """A white RGB image with a plot area, ticks and labels (what both plots share)."""

    def __init__(self, width: int, height: int, xr: tuple[float, float], yr: tuple[float, float]):
        import cv2

        self.cv2 = cv2
        self.img = np.full((height, width, 3), 255, np.uint8)
        self.left, self.top, self.pw, self.ph = 80, 56, width - 100, height - 116
        self.xr, self.yr = _spread(*xr), _spread(*yr)

    def x(self, v):
        lo, hi = self.xr
        return self.left + (np.asarray(v, np.float64) - lo) / (hi - lo) * self.pw

    def y(self, v):
        lo, hi = self.yr
        return self.top + self.ph - (np.asarray(v, np.float64) - lo) / (hi - lo) * self.ph

    def text(self, s, x, y, scale=0.42):
        self.cv2.putText(self.img, s, (int(x), int(y)), self.cv2.FONT_HERSHEY_SIMPLEX, scale,
                         COLOURS["text"], 1, self.cv2.LINE_AA)

    def axes(self, xlabel: str, ylabel: str, title: str) -> None:
        cv2, img = self.cv2, self.img
        for v in nice_ticks(*self.yr):
            yy = int(self.y(v))
            cv2.line(img, (self.left, yy), (self.left + self.pw, yy), COLOURS["grid"], 1)
            self.text(f"{v:g}", 8, yy + 4)
        for v in nice_ticks(*self.xr):
            xx = int(self.x(v))
            cv2.line(img, (xx, self.top), (xx, self.top + self.ph), COLOURS["grid"], 1)
            self.text(f"{v:g}", xx - 4 * len(f"{v:g}"), self.top + self.ph + 18)
        cv2.rectangle(img, (self.left, self.top), (self.left + self.pw, self.top + self.ph),
                      COLOURS["axis"], 1)
        self.text(xlabel, self.left + self.pw // 2 - 40, self.img.shape[0] - 14)
        self.text(ylabel, 8, self.top - 10)
        self.text(title, self.left, 22, 0.5)


def _spread(lo: float, hi: float) -> tuple[float, float]:
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi - lo < 1:
        mid = (lo + hi) / 2 if math.isfinite(lo) and math.isfinite(hi) else 0.0
        lo, hi = mid - 1, mid + 1
    pad = (hi - lo) * 0.04
    return lo - pad, hi + pad


def _title(report: dict) -> str:
    s = report.get("latency_ms", {})
    if not s.get("n"):
        return f"latency: no frame matched ({report.get('presented', 0)} presented)"
    return (f"latency {s['median']:.1f} ms median, {s['p5']:.1f}..{s['p95']:.1f} (p5..p95), n={s['n']} "
            f"of {report.get('presented', 0)}; {report.get('display_drops', 0)} dropped, "
            f"{report.get('repeats') or 0} repeated, {report.get('capture_drops', 0)} capture drops")


def histogram_image(report: dict, width: int = 1280, height: int = 640) -> np.ndarray:
    """Latencies (corrected) in bins one capture period wide (the samples' quantum), else 1 ms."""
    lat = np.array([f["latency_ms"] for f in report.get("frames", []) if f.get("latency_ms") is not None])
    rate = report.get("capture_rate_hz")
    width_ms = 1000.0 / rate if rate else 1.0
    lo = float(lat.min()) if lat.size else 0.0
    hi = float(lat.max()) if lat.size else 1.0
    nbins = max(1, min(400, math.ceil((hi - lo) / width_ms) + 1))
    counts, edges = np.histogram(lat, bins=nbins, range=(lo, lo + nbins * width_ms)) if lat.size else \
        (np.zeros(1, int), np.array([0.0, 1.0]))
    c = _Canvas(width, height, (float(edges[0]), float(edges[-1])), (0.0, float(max(1, counts.max()))))
    c.axes("latency (ms)", "frames", _title(report))
    for n, a, b in zip(counts, edges[:-1], edges[1:], strict=True):
        if n:
            c.cv2.rectangle(c.img, (int(c.x(a)) + 1, int(c.y(n))), (max(int(c.x(b)) - 1, int(c.x(a)) + 1),
                            int(c.y(0))), COLOURS["ok"], -1)
    return c.img


def timeline_image(report: dict, width: int = 1280, height: int = 640) -> np.ndarray:
    """Latency (corrected) against present time, with drops and repeats marked at the top."""
    frames = [f for f in report.get("frames", []) if f.get("latency_ms") is not None]
    t0 = report["frames"][0]["present_s"] if report.get("frames") else 0.0
    xs = np.array([f["present_s"] - t0 for f in frames])
    ys = np.array([f["latency_ms"] for f in frames])
    c = _Canvas(width, height, (0.0, float(xs.max()) if xs.size else 1.0),
                (min(0.0, float(ys.min())) if ys.size else 0.0, float(ys.max()) if ys.size else 1.0))
    c.axes("present time (s)", "latency (ms)", _title(report))
    lx = c.left
    for key, label in (("ok", "first capture of a frame"), ("drop", "display drop"), ("repeat", "repeat")):
        c.cv2.rectangle(c.img, (lx, 34), (lx + 10, 44), COLOURS[key], -1)
        c.text(label, lx + 14, 44, 0.4)
        lx += 28 + 8 * len(label)
    for e in report.get("events", []):
        if e["kind"] in ("drop", "repeat"):
            xx = int(c.x(e["t_s"] - t0))
            colour = COLOURS["drop"] if e["kind"] == "drop" else COLOURS["repeat"]
            c.cv2.line(c.img, (xx, c.top), (xx, c.top + 10), colour, 2)
    if xs.size:
        px = np.round(c.x(xs)).astype(np.intp).clip(0, width - 1)
        py = np.round(c.y(ys)).astype(np.intp).clip(0, height - 1)
        r = 1 if xs.size > 2000 else 2
        for dy in range(-r + 1, r):
            for dx in range(-r + 1, r):
                c.img[(py + dy).clip(0, height - 1), (px + dx).clip(0, width - 1)] = COLOURS["ok"]
    return c.img


def write_histogram(path, report: dict, option: str = "--histogram") -> Path:
    return write_frame(check_png(path, option), histogram_image(report), 8)


def write_latency_plot(path, report: dict, option: str = "--plot") -> Path:
    return write_frame(check_png(path, option), timeline_image(report), 8)
