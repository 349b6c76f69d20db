"""The decision cache's health, and which render path each band of the output resolves to.

Health: the file (:func:`core.decisions.cache_path`), its entries (this box's among them) and
whether a verdict could be saved there; a corrupt, unreadable or newer cache, or unusable
entries, is a ``warning`` carrying the cache's own sentence (a corrupt one is moved aside by
reading it, as any lookup does).  Bands: for the frames the output would show (its size and
display format), :func:`core.decisions.choose_path_for` says which path serves each and why
(pin, cache, default); a pin or a cached verdict that fell through is a ``warning``.
"""

from __future__ import annotations

from collections.abc import Callable

from core.atomic import require_writable
from core.decisions import DecisionCache, Indexes, band_chain, choose_path_for, fingerprint, split_key
from core.doctor.check import OK, WARNING, Check, Step
from core.patterns import make_spec

CACHE_WHY = "the cache holds the measured verdicts; a bad one means every band renders on the default"
BAND_WHY = "the path a band resolves to is the one the live output renders with"
# the frames whose bands are resolved: the counter, an animated pattern, a static one
BAND_SPECS: tuple[tuple[str, dict[str, int], int | None], ...]   # pattern, params, counter bits
BAND_SPECS = (("counter", {}, None), ("checkerboard", {"invert_every": 1}, 16), ("bars", {}, None))


def check_cache(device: str = "cpu", *, indexes: Indexes | None = None) -> Check:
    cache = DecisionCache(indexes=indexes)
    path = cache.path
    entries = cache.load()
    notes = cache.notes
    fp = fingerprint(device)
    mine = sum(1 for key in entries if split_key(key)[0] == fp)
    try:
        require_writable(path, make_parent=True)
        writable = None
    except ValueError as exc:
        writable = str(exc)
    data = {"path": str(path), "exists": path.is_file(), "entries": len(entries), "this_box": mine,
            "fingerprint": fp, "notes": notes, "writable": writable is None}
    where = "no file yet" if not path.is_file() else f"{len(entries)} entries, {mine} for this box"
    figure = f"{path.name}: {where}"
    problems = list(notes) + ([f"verdicts cannot be saved: {writable}"] if writable else [])
    if problems:
        return Check("decisions", "cache", WARNING, f"{figure}; {problems[0]}", CACHE_WHY,
                     "; ".join(problems), data)
    return Check("decisions", "cache", OK, figure, CACHE_WHY, str(path), data)


def check_band(pattern: str, params: dict, counter_bits, size: tuple[int, int], fmt: str,
               device: str = "cpu", *, indexes: Indexes | None = None) -> Check:
    spec = make_spec(pattern, params, width=size[0], height=size[1], counter_bits=counter_bits,
                     bit_depth=10)
    band = band_chain(spec, fmt)[0].name if band_chain(spec, fmt) else f"{pattern} ({fmt})"
    d = choose_path_for(spec, fmt, device, cache=DecisionCache(indexes=indexes))
    data = {"band": band, "decided_by": d.band, **d.to_dict()}
    data.pop("entry", None)
    figure = f"{d.path} ({d.source})"
    verdict = WARNING if d.fallthrough else OK
    return Check("decisions", band, verdict, figure, BAND_WHY, d.reason, data)


def decision_steps(size: tuple[int, int], fmt: str | Callable[[], str], device: str = "cpu") -> list[Step]:
    """The cache, then one band per frame of :data:`BAND_SPECS` at ``size`` in ``fmt`` (or in
    what ``fmt()`` says when the step runs: the surface's granted format is known only then).
    The steps share one index registry, so the file is read once for all of them and what is
    wrong with it is said once."""
    indexes = Indexes()
    steps = [Step("decisions", "cache", lambda: check_cache(device, indexes=indexes), why=CACHE_WHY)]
    for pattern, params, bits in BAND_SPECS:
        # mypy cannot infer a lambda with default arguments (they bind the loop's values)
        steps.append(Step("decisions", f"{pattern} band at {size[0]}x{size[1]}",
                          lambda p=pattern, q=params, b=bits: check_band(  # type: ignore[misc]
                              p, q, b, size, fmt() if callable(fmt) else fmt, device, indexes=indexes),
                          why=BAND_WHY))
    return steps
