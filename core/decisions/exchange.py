"""Decision files: export this cache's verdicts for boxes with the same hardware, import
another box's all-or-nothing with a receipt, and list what the cache holds."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from core.atomic import atomic_write
from core.decisions.bands import format_band
from core.decisions.cache import DecisionCache
from core.decisions.fingerprint import box_fingerprints, fingerprint, is_fingerprint
from core.decisions.schema import DecisionFileError, encode, parse_document, split_key, torch_version


def _here_fingerprints() -> set[str]:
    return set(box_fingerprints().values())


def resolve_devices(devices: Iterable[str] | None) -> set[str]:
    """Fingerprints for device names (``cpu``, ``cuda:0``) or literal fingerprints; default:
    every device of this box."""
    if not devices:
        return _here_fingerprints()
    out = set()
    for d in devices:
        out.add(d if is_fingerprint(d) else fingerprint(d))
    return out


def export_decisions(dest: str | os.PathLike, bands: Iterable[str] | None = None,
                     devices: Iterable[str] | None = None, cache: DecisionCache | None = None) -> int:
    """Write a decision file with this box's entries (or those of ``devices``), optionally
    only ``bands``.  Returns the entry count; ``DecisionFileError`` when there is nothing
    to export."""
    cache = cache or DecisionCache()
    wanted_bands = {format_band(b) for b in bands} if bands else None
    fps = resolve_devices(devices)
    entries = cache.load()
    chosen = {k: v for k, v in entries.items()
              if split_key(k)[0] in fps and (wanted_bands is None or split_key(k)[1] in wanted_bands)}
    if not chosen:
        what = ", ".join(sorted(wanted_bands)) if wanted_bands else "any band"
        raise DecisionFileError(f"nothing to export: no decisions for {what} on "
                                f"{', '.join(sorted(fps))} (run testcard measure first)")
    atomic_write(Path(dest), encode(chosen))
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


def read_decision_file(src: str | os.PathLike) -> dict[str, dict]:
    """Every entry of a decision file, validated whole (``DecisionFileError`` otherwise)."""
    try:
        data = Path(src).read_bytes()
    except OSError as exc:
        raise DecisionFileError(f"cannot read {src}: {exc.strerror or exc}") from None
    try:
        return parse_document(data)
    except DecisionFileError as exc:
        raise DecisionFileError(f"{Path(src).name} refused, nothing imported: {exc}") from None


def import_decisions(src: str | os.PathLike, cache: DecisionCache | None = None,
                     here: Iterable[str] | None = None) -> Receipt:
    """Merge a decision file into the cache: local entries win, entries for devices not
    on this box are carried (inert).  The whole file is validated first; any fault
    refuses it and nothing changes.  ``here``: this box's fingerprints (default: probed)."""
    incoming = read_decision_file(src)
    cache = cache or DecisionCache()
    here = set(here) if here is not None else _here_fingerprints()
    local_torch = _major(torch_version())

    def merge(entries):
        r = Receipt()
        for key in sorted(incoming):
            fp, band = split_key(key)
            e = incoming[key]
            row = {"key": key, "device": fp, "band": band, "winner": e["winner"]}
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
    """Rows for ``decisions show``: device, band, winner, medians, when, and whether the
    device is on this box."""
    cache = cache or DecisionCache()
    here = set(here) if here is not None else _here_fingerprints()
    rows = []
    for key, e in sorted(cache.load().items()):
        fp, band = split_key(key)
        rows.append({"device": fp, "band": band, "winner": e["winner"], "here": fp in here,
                     "median_ms": {k: c["median_ms"] for k, c in e["candidates"].items()},
                     "measured_at": e["measured_at"], "torch": e["torch"], "testcard": e["testcard"]})
    return rows
