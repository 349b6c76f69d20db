"""Decision files: export this cache's verdicts for boxes with the same hardware, import
another box's all-or-nothing with a receipt, and list what the cache holds."""

from __future__ import annotations

import datetime as _dt
import os
import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from core.atomic import atomic_write, refuse_same_file
from core.decisions.bands import format_band
from core.decisions.cache import DecisionCache
from core.decisions.fingerprint import box_fingerprints, fingerprint, is_fingerprint
from core.decisions.index import read_file
from core.decisions.schema import (
    DecisionFileError,
    encode,
    key_form,
    parse_document,
    split_key,
    torch_version,
)

_DEVICE_NAME = re.compile(r"(cpu|mps|cuda)(:[0-9]{1,3})?")


def _here_fingerprints() -> set[str]:
    return set(box_fingerprints().values())


def resolve_devices(devices: Iterable[str] | None) -> set[str]:
    """Fingerprints for device names (``cpu``, ``cuda:0``) or literal fingerprints; default:
    every device of this box.  ``ValueError`` naming the device for anything else (a
    fingerprint over the length cap or with a control character in it, say)."""
    if not devices:
        return _here_fingerprints()
    out = set()
    for d in devices:
        if isinstance(d, str) and _DEVICE_NAME.fullmatch(d.strip().lower()):
            out.add(fingerprint(d.strip().lower()))
        elif is_fingerprint(d):
            out.add(d)
        else:
            raise ValueError(f"device {d!r:.80} is neither a device (cpu, cuda, cuda:N, mps) nor a "
                             "fingerprint (kind:description, printable, at most 200 characters)")
    return out


def export_decisions(dest: str | os.PathLike, bands: Iterable[str] | None = None,
                     devices: Iterable[str] | None = None, cache: DecisionCache | None = None) -> int:
    """Write a decision file with this box's entries (or those of ``devices``), optionally
    only ``bands``.  Returns the entry count.  ``DecisionFileError`` when there is nothing
    to export, when ``dest`` is the cache itself (by any link: exporting over it would drop
    every entry not exported) or cannot be written."""
    cache = cache or DecisionCache()
    try:
        refuse_same_file(dest, cache.path, cache.lock_path)
    except ValueError:
        raise DecisionFileError(f"cannot export to {dest}: it is the decision cache itself "
                                "(that would drop the entries carried for other devices)") from None
    wanted_bands = {format_band(b) for b in bands} if bands else None
    fps = resolve_devices(devices)
    entries = cache.load()
    chosen = {k: v for k, v in entries.items()
              if split_key(k)[0] in fps and (wanted_bands is None or split_key(k)[1] in wanted_bands)}
    if not chosen:
        what = ", ".join(sorted(wanted_bands)) if wanted_bands else "any band"
        why = f" ({cache.problem})" if cache.problem else ""
        raise DecisionFileError(f"nothing to export: no decisions for {what} on "
                                f"{', '.join(sorted(fps))} (run testcard measure first){why}")
    try:
        atomic_write(Path(dest), encode(chosen))
    except OSError as exc:
        raise DecisionFileError(f"cannot write {dest}: {exc.strerror or exc}") from None
    return len(chosen)


@dataclass
class Receipt:
    imported: int = 0
    kept_local: int = 0
    carried: int = 0
    entries: list[dict] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)

    def summary(self) -> str:
        return (f"imported {self.imported}, kept local {self.kept_local}, "
                f"carried for other devices {self.carried}")


def _major(version: str | None) -> str | None:
    if not version:
        return None
    return version.split(".", 1)[0].strip()


def read_decision_file(src: str | os.PathLike, now: _dt.datetime | None = None) -> dict[str, dict]:
    """Every entry of a decision file, validated whole (``DecisionFileError`` otherwise):
    a regular file of at most :data:`~core.decisions.schema.MAX_FILE_BYTES`, refused from
    its size before it is read; ``now`` is what a ``measured_at`` may not lie beyond."""
    name = Path(src).name
    try:
        data, _sig = read_file(Path(src))
    except OSError as exc:
        raise DecisionFileError(f"cannot read {src}: {exc.strerror or exc}") from None
    except DecisionFileError as exc:
        raise DecisionFileError(f"{name} refused, nothing imported: {exc}") from None
    try:
        return parse_document(data, now, source=name)
    except DecisionFileError as exc:
        raise type(exc)(f"{name} refused, nothing imported: {exc}") from None


def import_decisions(src: str | os.PathLike, cache: DecisionCache | None = None,
                     here: Iterable[str] | None = None) -> Receipt:
    """Merge a decision file into the cache: local entries win, entries for devices not
    on this box are carried (inert).  The whole file is validated first; any fault
    refuses it and nothing changes: a file from a newer testcard (upgrade to import it),
    the cache itself, a merge that would take the cache over its entry cap.
    ``here``: this box's fingerprints (default: probed)."""
    cache = cache or DecisionCache()
    try:
        refuse_same_file(cache.path, src)
    except ValueError:
        raise DecisionFileError(f"{src} is the decision cache itself: nothing to import") from None
    incoming = read_decision_file(src, cache.now())
    here = set(here) if here is not None else _here_fingerprints()
    local_torch = _major(torch_version())

    def merge(entries):
        r = Receipt()
        for key in sorted(incoming):
            fp, band = split_key(key)
            e = incoming[key]
            row = {"key": key, "device": fp, "band": band, "form": e["form"], "winner": e["winner"]}
            if key in entries:
                row["action"] = "kept_local"
                r.kept_local += 1
            elif fp in here:
                row["action"] = "imported"
                r.imported += 1
                entries[key] = e
                if local_torch and _major(e["torch"]) != local_torch:
                    w = (f"{band}: measured with torch {e['torch']}, this box has torch "
                         f"{torch_version()}; measure again when you can")
                    row["warning"] = w
                    r.warnings.append(w)
            else:
                row["action"] = "carried"
                r.carried += 1
                entries[key] = e
            r.entries.append(row)
        return r

    return cache.update(merge)


def list_entries(cache: DecisionCache | None = None, here: Iterable[str] | None = None) -> list[dict]:
    """Rows for ``decisions show``: device, band, form, winner, medians, when, and whether the
    device is on this box; a live verdict also its screen period and each candidate's late
    frames (``late``: None in a render verdict)."""
    cache = cache or DecisionCache()
    here = set(here) if here is not None else _here_fingerprints()
    rows = []
    for key, e in sorted(cache.load().items()):
        fp, band = split_key(key)
        live = key_form(key) == "live"
        rows.append({"device": fp, "band": band, "form": e["form"], "winner": e["winner"],
                     "here": fp in here,
                     "median_ms": {k: c["median_ms"] for k, c in e["candidates"].items()},
                     "late": {k: c["late"] for k, c in e["candidates"].items()} if live else None,
                     "period_ms": e.get("period_ms"),
                     "measured_at": e["measured_at"], "torch": e["torch"], "testcard": e["testcard"]})
    return rows
