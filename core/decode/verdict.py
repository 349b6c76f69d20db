"""Whether a decode report answers its checks: passed, failed, or could not be verified.

The one rule behind ``testcard decode --fail-on-*`` (file and live), the report's ``verified``
and ``verdict`` keys and the Decode dock's verdict.  Each check reads the report's summary:

* ``drop`` (``--fail-on-drop``): failed when an index was skipped between two decoded frames
  (a drop) or the display froze for the whole capture; passed when neither happened and the
  decoded frames show it; could not be verified when fewer than two frames were decoded, when
  every decoded frame shows one index at unknown rates (a freeze cannot be told from a capture
  of one presentation), when indices went unseen across gaps of unknown content (shown there or
  dropped: unknown), when indices went unseen that the capture could not have seen
  (unobservable: a capture slower than the display; capture misses: the present log shows them
  on screen for less than a capture period: :mod:`core.decode.unseen`), or when the decode was
  cancelled before its end.  Only proven drops fail it: at a capture slower than the display,
  a jump beyond what the rate ratio allows (or an index the present log shows never presented,
  or presented long enough to be captured);
* ``gap`` (``--fail-on-gap``): failed when a captured frame could not be read or decoded;
  passed when every frame was; could not be verified when no frame was read or the decode was
  cancelled.

A verified failure wins: any check failed is exit status 1, else any check not verified is 3,
else (every check verified and passed) 0.  No check asked for is 0.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

PASSED, FAILED, UNVERIFIED = "passed", "failed", "unverified"
EXIT_STATUS = {PASSED: 0, FAILED: 1, UNVERIFIED: 3}
CHECKS = ("drop", "gap")
DEFAULT_CHECKS = ("drop",)     # what a report answers when no check is asked for: did every frame show


@dataclass(frozen=True)
class CheckResult:
    """One check: its ``result`` and, in a sentence, what was found or why it cannot be told."""

    name: str
    result: str
    reason: str

    def to_dict(self) -> dict:
        return {"result": self.result, "reason": self.reason}


@dataclass(frozen=True)
class Verdict:
    checks: tuple[CheckResult, ...]

    @property
    def result(self) -> str:
        found = {c.result for c in self.checks}
        return FAILED if FAILED in found else UNVERIFIED if UNVERIFIED in found else PASSED

    @property
    def exit_status(self) -> int:
        return EXIT_STATUS[self.result]

    @property
    def verified(self) -> bool:
        """Every check was decided (passed or failed)."""
        return all(c.result != UNVERIFIED for c in self.checks)

    @property
    def unverified(self) -> tuple[CheckResult, ...]:
        return tuple(c for c in self.checks if c.result == UNVERIFIED)

    def why_unverified(self) -> str:
        """The reasons, on one line (named by check when more than one could not be verified)."""
        left = self.unverified
        if len(left) == 1:
            return left[0].reason
        return "; ".join(f"{c.name}: {c.reason}" for c in left)

    def to_dict(self) -> dict:
        return {"result": self.result, "exit_status": self.exit_status,
                "checks": {c.name: c.to_dict() for c in self.checks},
                "reasons": [f"{c.name}: {c.reason}" for c in self.unverified]}


def verdict(report: dict, checks: Iterable[str] = DEFAULT_CHECKS) -> Verdict:
    """The checks named (``CHECKS``) over a decode report (file or live)."""
    out = []
    for name in dict.fromkeys(checks):
        if name not in _RULES:
            raise ValueError(f"unknown check {name!r}: one of {', '.join(CHECKS)}")
        out.append(CheckResult(name, *_RULES[name](report)))
    return Verdict(tuple(out))


def with_verdict(report: dict, checks: Iterable[str] = DEFAULT_CHECKS) -> Verdict:
    """Set the report's ``verified`` and ``verdict`` keys for ``checks``; returns the verdict."""
    v = verdict(report, checks)
    report["verified"] = v.verified
    report["verdict"] = v.to_dict()
    return v


def headline(report: dict) -> tuple[str, str]:
    """The report's verdict (its ``verdict`` key) as ``(result, one line)``: "verified: ...",
    "failed: ..." or "could not verify: ..." (a report without one: unverified, saying so)."""
    v = report.get("verdict")
    if not v or not v.get("checks"):
        return UNVERIFIED, "could not verify: the report carries no verdict"
    checks = v["checks"].values()
    result = v["result"]
    picked = [c["reason"] for c in checks if c["result"] == result]
    word = {PASSED: "verified", FAILED: "failed", UNVERIFIED: "could not verify"}[result]
    return result, f"{word}: {'; '.join(picked)}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _drop(report: dict) -> tuple[str, str]:
    s = report["summary"]
    if s.get("frozen") is True:
        return FAILED, f"the display froze on index {s.get('first_index')} for the whole capture"
    if s.get("dropped_count", 0) > 0:
        return FAILED, f"{_plural(s['dropped_count'], 'frame')} dropped" + (
            " (proven: more indices skipped between captures than the rate ratio allows)"
            if s.get("unobservable") else "")
    why = []
    decoded = s.get("decoded", 0)
    if decoded < 2:
        why.append(_too_few(report))
    elif s.get("frozen") is None:
        why.append(f"every decoded frame shows index {s.get('first_index')}: a display frozen on it "
                   "cannot be told from a capture of one presentation without --capture-fps and "
                   "--display-fps")
    if s.get("gap_indices"):
        n = s["gap_indices"]
        why.append(f"{n} {'index' if n == 1 else 'indices'} unseen across gaps of unknown content "
                   "(shown there or dropped: unknown)")
    if s.get("unobservable"):
        n = s["unobservable"]
        why.append(f"{n} {'index' if n == 1 else 'indices'} unobservable: the capture "
                   f"({s.get('capture_fps'):g} fps) is slower than the display ({s.get('display_fps'):g} "
                   "fps), so an index between two captures may have been shown unseen; none proven dropped")
    if s.get("capture_misses"):
        n = s["capture_misses"]
        why.append(f"{n} {'index' if n == 1 else 'indices'} the present log shows on screen for less "
                   "than a capture period went uncaptured (capture misses, not display drops)")
    if report.get("cancelled"):
        why.append("the decode was cancelled: the frames after it were not seen")
    if why:
        return UNVERIFIED, "; ".join(why)
    return PASSED, f"no frame dropped and no freeze across {_plural(decoded, 'decoded frame')}"


def _too_few(report: dict) -> str:
    s = report["summary"]
    decoded, frames = s.get("decoded", 0), s.get("frames", 0)
    text = ("no frame decoded" if decoded == 0 else "only one frame decoded (a drop shows between two)")
    parts = [f"{n} {what}" for n, what in ((s.get("undecodable", 0), "undecodable"),
                                           (s.get("unreadable", 0), "unreadable")) if n]
    if parts:
        text += f" ({' and '.join(parts)} of {frames})"
    if (report.get("decoder") or {}).get("bits_from") == "not settled":
        text += "; the compat panel's bit count never settled: give --bits or --manifest"
    return text


def _gap(report: dict) -> tuple[str, str]:
    s = report["summary"]
    gaps = s.get("gap_frames", 0)
    if gaps:
        return FAILED, f"{_plural(gaps, 'captured frame')} could not be read or decoded"
    if not s.get("frames"):
        return UNVERIFIED, "no frame was read"
    if report.get("cancelled"):
        return UNVERIFIED, "the decode was cancelled: the frames after it were not read"
    return PASSED, f"all {_plural(s['frames'], 'captured frame')} read and decoded"


_RULES = {"drop": _drop, "gap": _gap}
