"""Decode reports as files and text: CSV of frames, a PNG plot, summary lines.

The plot is drawn with numpy and OpenCV's line and text primitives into an
8-bit RGB image and written with ``core.imageio``: no plotting library, no Qt,
so the command line stays headless.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from core.atomic import atomic_path, atomic_text, require_parent
from core.imageio import write_frame
from core.jsonfile import dump_json

CSV_COLUMNS = ("position", "timestamp", "index", "status", "confidence", "indices", "name", "note", "gap",
               "events")
GAP_STATUSES = ("undecodable", "unreadable")

COLOURS = {  # RGB
    "ok": (31, 119, 180), "torn": (214, 39, 160), "undecodable": (127, 127, 127),
    "unreadable": (0, 0, 0), "drop": (214, 39, 40), "repeat": (255, 127, 14), "axis": (60, 60, 60),
    "grid": (225, 225, 225), "text": (30, 30, 30),
}


def unwrap(frames: list[dict], modulus: int) -> list[float | None]:
    """Per frame, its (top) index unwrapped the way the analysis does it; None when not decoded."""
    out: list[float | None] = []
    last = None
    for f in frames:
        idx = f.get("index")
        if idx is None or f.get("status") not in ("ok", "torn"):
            out.append(None)
            continue
        if last is None:
            u = int(idx)
        else:
            step = (int(idx) - last) % modulus
            if step > modulus // 2:
                step -= modulus
            u = last + step
        out.append(float(u))
        last = u
        if f.get("status") == "torn" and f.get("indices"):
            for extra in f["indices"][1:]:
                step = (int(extra) - last) % modulus
                if step > modulus // 2:
                    step -= modulus
                last = last + step
    return out


def write_csv(path, frames: list[dict], events: list[dict] | None = None) -> Path:
    """One row per frame, written whole or not at all (:mod:`core.atomic`).

    ``gap`` is 1 for a frame of unknown content (undecodable or unreadable: a gap in the
    capture, never a display drop); ``events`` names the events found at the frame
    (``drop``, ``freeze``, ``jump_back``, ``gap``, ...), space-separated."""
    at: dict[int | None, list[str]] = {}   # None: a frame without a position has no events
    for e in events or []:
        at.setdefault(e["position"], []).append(e["kind"])
    p = require_parent(path)
    with atomic_path(p) as tmp:
        with open(tmp, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(CSV_COLUMNS)
            for f in frames:
                row = dict(f)
                row["indices"] = " ".join(str(i) for i in f.get("indices", [])) or ""
                row["gap"] = 1 if f.get("status") in GAP_STATUSES else 0
                row["events"] = " ".join(at.get(f.get("position"), []))
                w.writerow(["" if row.get(c) is None else row.get(c) for c in CSV_COLUMNS])
    return p


def check_plot_path(path) -> Path:
    p = Path(path)
    if p.suffix.lower() != ".png":
        raise ValueError(f"--plot writes a PNG: {p.name} must end in .png")
    return require_parent(p)


def plot_image(report: dict, width: int = 1280, height: int = 640) -> np.ndarray:
    """Decoded index against capture position, with drops, repeats, tears and failures marked."""
    import cv2

    img = np.full((height, width, 3), 255, np.uint8)
    frames = report.get("frames", [])
    summary = report.get("summary", {})
    modulus = int(summary.get("modulus") or (1 << int(summary.get("bits") or 16)))
    left, right, top, bottom = 90, 20, 56, 60
    pw, ph = width - left - right, height - top - bottom
    n = max(1, len(frames))
    ys = unwrap(frames, modulus)
    vals = [v for v in ys if v is not None]
    for f, u in zip(frames, ys, strict=True):
        if f.get("status") == "torn" and u is not None:
            vals.append(u + len(f.get("indices", [])) - 1)
    lo, hi = (min(vals), max(vals)) if vals else (0.0, 1.0)
    if hi - lo < 1:
        lo, hi = lo - 1, hi + 1
    pad = (hi - lo) * 0.04
    lo, hi = lo - pad, hi + pad

    def px(pos):
        return left + (np.asarray(pos, np.float64) + 0.5) / n * pw

    def py(v):
        return top + ph - (np.asarray(v, np.float64) - lo) / (hi - lo) * ph

    font = cv2.FONT_HERSHEY_SIMPLEX

    def text(s, x, y, scale=0.42, colour=COLOURS["text"], thick=1):
        cv2.putText(img, s, (int(x), int(y)), font, scale, colour, thick, cv2.LINE_AA)

    # grid and axes, ticks at round numbers
    for v in nice_ticks(lo, hi):
        y = int(py(v))
        cv2.line(img, (left, y), (left + pw, y), COLOURS["grid"], 1)
        text(f"{int(v) % modulus}", 8, y + 4)
    for t in nice_ticks(0, n - 1):
        x = int(px(t))
        cv2.line(img, (x, top), (x, top + ph), COLOURS["grid"], 1)
        text(f"{int(t)}", x - 4 * len(str(int(t))), top + ph + 18)
    cv2.rectangle(img, (left, top), (left + pw, top + ph), COLOURS["axis"], 1)
    text("capture position", left + pw // 2 - 60, height - 14)
    text("index", 8, top - 10)

    # events under the points: drops as red lines, repeats as orange ticks at the top
    for e in report.get("events", []):
        x = int(px(e["position"]))
        if e["kind"] == "drop":   # between the frame before the gap and the one after it
            x = int(px(e["position"] - 0.5))
            cv2.line(img, (x, top), (x, top + ph), COLOURS["drop"], 1)
        elif e["kind"] == "repeat":
            cv2.line(img, (x, top), (x, top + 10), COLOURS["repeat"], 3)
    # decoded frames as dots (drawn with numpy: fast for long captures)
    ok_pos = [f["position"] for f, u in zip(frames, ys, strict=True) if u is not None and f["status"] == "ok"]
    ok_val = [u for f, u in zip(frames, ys, strict=True) if u is not None and f["status"] == "ok"]
    radius = 1 if len(ok_pos) > 2000 else 2 if len(ok_pos) > 300 else 3
    _dots(img, px(ok_pos), py(ok_val), COLOURS["ok"], radius)
    for f, u in zip(frames, ys, strict=True):
        if f.get("status") == "torn" and u is not None:
            x = int(px(f["position"]))
            for k in range(len(f.get("indices", []))):
                cv2.drawMarker(img, (x, int(py(u + k))), COLOURS["torn"], cv2.MARKER_DIAMOND, 9, 2)
        elif f.get("status") in ("undecodable", "unreadable"):
            x = int(px(f["position"]))
            cv2.line(img, (x, top + ph - 8), (x, top + ph), COLOURS[f["status"]], 2)

    # title and legend
    unknown = summary.get("unknown") or {}
    dropped = "unknown" if "dropped_count" in unknown else summary.get("dropped_count", 0)
    title = f"{summary.get('layout') or ''} {summary.get('bits', '')}-bit counter: " \
            f"{summary.get('frames', 0)} frames, {dropped} dropped, " \
            f"{summary.get('repeated', 0)} repeated, {summary.get('torn', 0)} torn, " \
            f"{summary.get('gap_frames', 0)} gap frames" + (", FROZEN" if summary.get("frozen") else "")
    text(title, left, 22, 0.5)
    lx = left
    for name, label in (("ok", "decoded"), ("torn", "torn"), ("drop", "drop"), ("repeat", "repeat"),
                        ("undecodable", "undecodable"), ("unreadable", "unreadable")):
        cv2.rectangle(img, (lx, 34), (lx + 10, 44), COLOURS[name], -1)
        text(label, lx + 14, 44, 0.4)
        lx += 18 + 8 * len(label) + 14
    return img


def nice_ticks(lo: float, hi: float, most: int = 8) -> list[int]:
    """Whole-number ticks 1, 2 or 5 times a power of ten apart, inside [lo, hi]."""
    span = max(hi - lo, 1.0)
    step = 1.0
    while span / step > most:
        step = _next_step(step)
    first = int(np.ceil(lo / step) * step)
    return [int(first + k * step) for k in range(int((hi - first) // step) + 1)]


def _next_step(step: float) -> float:
    """1, 2, 5, 10, 20, 50, ..."""
    mant = step / 10 ** np.floor(np.log10(step))
    return step * (2.5 if round(mant) == 2 else 2.0)


def _dots(img, xs, ys, colour, r: int) -> None:
    if len(xs) == 0:
        return
    h, w = img.shape[:2]
    x = np.round(np.asarray(xs)).astype(np.intp)
    y = np.round(np.asarray(ys)).astype(np.intp)
    for dy in range(-r + 1, r):
        for dx in range(-r + 1, r):
            xx, yy = (x + dx).clip(0, w - 1), (y + dy).clip(0, h - 1)
            img[yy, xx] = colour


def write_plot(path, report: dict) -> Path:
    p = check_plot_path(path)
    return write_frame(p, plot_image(report), 8)


def write_json(path, report: dict) -> Path:
    """The whole report document as JSON, written whole or not at all."""
    return atomic_text(require_parent(path), dump_json(report, indent=2) + "\n")


def write_report(path, report: dict) -> Path:
    """JSON (whole document), CSV (one row per frame) or PNG (the plot), by extension."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix == ".csv":
        return write_csv(p, report["frames"], report.get("events"))
    if suffix == ".png":
        return write_plot(p, report)
    if suffix != ".json":
        raise ValueError(f"{p.name}: export as .json, .csv or .png")
    return write_json(p, report)


def summary_lines(report: dict, max_events: int = 40) -> list[str]:
    """The report as a few lines of text for a terminal (``max_events=0``: no event list)."""
    s = report["summary"]
    dec = report.get("decoder", {})
    lines = [f"source: {report.get('source')}"]
    layout = s.get("layout") or "none recognised"
    panel = dec.get("panel")
    where = ""
    if panel:
        where = f", panel found by {panel['found_by']} ({len(panel['bands'])} bands)"
    gray = " Gray-coded" if dec.get("gray") else ""
    source = dec.get("bits_from")
    source = "" if source is None else (" (bit count not settled: no frame read)" if source == "not settled"
                                        else f" (bit count from the {source})" if source != "--bits" else "")
    lines.append(f"layout: {layout}, {s.get('bits')} bits{gray}{source}{where}")
    if report.get("manifest"):
        used = (dec.get("hint") or {}).get("used", True)
        lines.append(f"manifest: {report['manifest']}" + ("" if used else " (not used: see notes)"))
    for note in report.get("notes", []):
        lines.append(f"note: {note}")
    lines.append(f"frames: {s['frames']}  read: {s['read']}  decoded: {s['decoded']} (ok {s['ok']}, "
                 f"torn {s['torn']})  undecodable: {s['undecodable']}  unreadable: {s['unreadable']}")
    unknown = s.get("unknown") or {}
    dropped = s["dropped"]
    shown = ", ".join(str(i) for i in dropped[:20]) + (" ..." if len(dropped) > 20 else "")
    unlisted = s["dropped_count"] - len(dropped)
    if dropped and unlisted > 0:
        shown += f"; {unlisted} more not listed"
    if "dropped_count" in unknown:
        lines.append(f"dropped: unknown ({unknown['dropped_count']})")
    else:
        lines.append(f"dropped: {s['dropped_count']}" + (f" ({shown})" if dropped else ""))
    lines.extend(unseen_lines(s))
    gap_frames = s.get("gap_frames", s["undecodable"] + s["unreadable"])
    if gap_frames:
        runs = s.get("gap_runs", 0)
        gap = (f"gaps: {gap_frames} frame{'s' if gap_frames != 1 else ''} of unknown content in {runs} "
               f"run{'s' if runs != 1 else ''}, not counted as drops")
        if s.get("gap_indices"):
            gap += f"; {s['gap_indices']} indices unseen across them (shown there or dropped: unknown)"
        lines.append(gap)
    else:
        lines.append("gaps: none (every frame read)")
    frozen = s.get("frozen")
    if frozen is True:
        lines.append(f"FROZEN: the display showed index {s['first_index']} for the whole capture")
    elif frozen is None and s.get("distinct_indices") == 1:
        lines.append(f"frozen: unknown -- every frame shows index {s['first_index']}; give "
                     "--capture-fps and --display-fps to tell a freeze from a capture of one frame")
    elif frozen is None:
        lines.append(f"frozen: unknown ({unknown.get('frozen', 'fewer than two frames decoded')})")
    counts = (("repeated", "repeated"), ("out of order", "out_of_order"), ("jumps back", "jumps_back"),
              ("wraps", "wraps"))
    text = "  ".join(f"{label}: {'unknown' if key in unknown else s.get(key, 0)}" for label, key in counts)
    # why, unless the frozen line above said it
    whys = [w for w in dict.fromkeys(unknown[key] for _, key in counts if key in unknown)
            if not (frozen is None and w == unknown.get("frozen"))]
    lines.append(text + (f" ({'; '.join(whys)})" if whys else ""))
    if s.get("first_index") is not None:
        lines.append(f"indices: {s['first_index']} .. {s['last_index']} ({s['distinct_indices']} distinct)")
    else:
        lines.append("indices: none decoded")
    lines.append(rate_line(s))
    lines.extend(verdict_lines(report))
    if report.get("cancelled"):
        lines.append("cancelled: the report covers the frames decoded before stopping")
    events = report.get("events", [])
    if events and max_events > 0:
        lines.append("events:")
        for e in events[:max_events]:
            lines.append("  " + format_event(e))
        if len(events) > max_events:
            lines.append(f"  ... {len(events) - max_events} more (--json or --csv for all)")
    return lines


def _listed(values: list, total: int) -> str:
    shown = ", ".join(str(i) for i in values[:20])
    more = total - min(len(values), 20)
    return shown + (f" ... ({more} more)" if more > 0 and values else "")


def unseen_text(s: dict) -> str:
    """The indices the capture could not have seen, in a few words ('' when none): the docks'."""
    parts = []
    if s.get("unobservable"):
        n = s["unobservable"]
        parts.append(f"unobservable: {n} {'index' if n == 1 else 'indices'} (capture slower than display)")
    if s.get("capture_misses"):
        n = s["capture_misses"]
        parts.append(f"capture misses: {n} {'index' if n == 1 else 'indices'} (on screen less than a "
                     "capture period)")
    return "; ".join(parts)


def unseen_lines(s: dict) -> list[str]:
    """Indices the capture could not have seen (:mod:`core.decode.unseen`): never drops."""
    lines = []
    if s.get("unobservable"):
        n, idx = s["unobservable"], s.get("unobservable_indices") or []
        lines.append(f"unobservable: {n} {'index' if n == 1 else 'indices'} (capture slower than display: "
                     f"{s.get('capture_fps') or 0:g} fps against {s.get('display_fps') or 0:g} fps), "
                     "not counted as drops" + (f": {_listed(idx, n)}" if idx else ""))
    if s.get("capture_misses"):
        n, idx = s["capture_misses"], s.get("capture_missed") or []
        lines.append(f"capture misses: {n} {'index' if n == 1 else 'indices'} the present log shows on "
                     "screen for less than a capture period, not counted as drops"
                     + (f": {_listed(idx, n)}" if idx else ""))
    log = s.get("present_log")
    if log and not log.get("applied"):
        lines.append(f"present log: not used ({log.get('why')})")
    return lines


def rate_line(s: dict) -> str:
    """Captures per displayed frame and the rates, each "unknown" where nothing supports it."""
    unknown = s.get("unknown") or {}
    k = s.get("captures_per_frame")
    if k is None:
        rate = f"captures per displayed frame: unknown ({unknown.get('captures_per_frame', 'not known')})"
    else:
        rate = f"captures per displayed frame: {k} (from {s['captures_per_frame_from']})"
    rate += f", capture {s['capture_fps']:g} fps" if s.get("capture_fps") else ", capture fps unknown"
    rate += f", display ~{s['display_fps']:g} fps" if s.get("display_fps") else ", display fps unknown"
    return rate


def verdict_lines(report: dict) -> list[str]:
    """One line per check of the report's verdict (:mod:`core.decode.verdict`)."""
    checks = (report.get("verdict") or {}).get("checks") or {}
    word = {"passed": "passed", "failed": "FAILED", "unverified": "could not verify"}
    return [f"{name} check: {word.get(c['result'], c['result'])}: {c['reason']}"
            for name, c in checks.items()]


def format_event(e: dict) -> str:
    ts = "" if e.get("timestamp") is None else f" t={e['timestamp']:.3f}s"
    kind = e["kind"]
    if kind == "drop":
        idx = e.get("indices")
        what = f"{e['count']} dropped" + (f": {', '.join(map(str, idx))}" if idx else "") + \
               ("" if not idx or len(idx) >= e["count"] else " ...")
        if not idx and "after" in e:
            what += f" between {e['after']} and {e['before']}"
        if e.get("unobservable"):
            what += f" (and {e['unobservable']} unobservable)"
        if e.get("by") == "present log":
            what += f" (present log: {e.get('never_presented', 0)} never presented)"
    elif kind == "repeat":
        what = f"index {e['index']} held {e['captures']} captures ({e['extra']} extra)"
    elif kind == "torn":
        what = "torn: " + " / ".join(map(str, e["indices"]))
    elif kind == "out_of_order":
        what = f"index {e['index']} after {e['expected_after']}"
    elif kind == "wrap":
        what = "counter wrapped"
    elif kind == "freeze":
        what = f"index {e['index']} held for all {e['captures']} captures ({e['extra']} presentations missed)"
    elif kind == "jump_back":
        what = f"back {e['back']} to index {e['index']} after {e['after']}; a new run from here"
    elif kind in ("unobservable", "capture_miss"):
        idx = e.get("indices") or []
        why = "capture slower than display" if kind == "unobservable" else \
            "on screen less than a capture period"
        what = (f"{e['count']} {'index' if e['count'] == 1 else 'indices'} between {e['after']} and "
                f"{e['before']} not seen ({why})" + (f": {', '.join(map(str, idx))}" if idx else ""))
    elif kind == "gap":
        what = (f"{e['indices_unknown']} indices after {e['after']} unseen across {e['frames']} "
                "frame(s) of unknown content")
    else:
        what = f"{e.get('count', 1)} frame(s)" + (f": {e['note']}" if e.get("note") else "")
    return f"@{e['position']}{ts} {kind}: {what}"
