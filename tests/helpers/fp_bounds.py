"""How far a correct float64 evaluation of a formula may be from the exact value: the tolerance
for comparing two evaluations (numpy and torch, testcard and colour-science, a vector kernel and
the C library) derived from the arithmetic instead of guessed.

The rules, IEEE 754 binary64 with u = 2**-53 (half an ulp, relative):

* ``+ - * /`` and ``sqrt`` are correctly rounded everywhere: one operation adds at most
  ``u * |result|``.
* ``pow``, ``exp``, ``log`` and ``cos`` come from a math library, and which one depends on the
  CPU: numpy's AVX-512 loops are Intel's SVML (at most 4 ulp, numpy PR 19478), its other loops
  and the C library under 1 ulp, torch's vectorised ATen kernels Sleef's ``u10`` functions
  (1.0 ulp) under AVX2 and AVX-512 and the C library under ``ATEN_CPU_CAPABILITY=default``.
  So one call adds at most ``LIBM_ULPS`` ulp: ``LIBM_ULPS * 2u * |result|``.
* An error already in an operand carries through by the operation's derivative (first order:
  what that leaves out is the bound times itself, about 1e-12 of the bound here).

:class:`Bounded` carries a value and a bound on its absolute error through those rules; the
functions below it mirror ``core.transfer`` step for step (same operations, same order), so
``f(x).e`` bounds one evaluation of ``core.transfer.f(x)`` on any CPU.  Two evaluations differ by
at most the sum of their bounds: :func:`assert_within` checks that.
"""

from __future__ import annotations

import contextlib
import functools
import math

import numpy as np

from core.transfer import HLG_A, HLG_B, HLG_C, LUMA, PQ_C1, PQ_C2, PQ_C3, PQ_M1, PQ_M2, PQ_PEAK, hlg_gamma

U = 2.0 ** -53          # one correctly rounded operation, relative
LIBM_ULPS = 4           # the worst math library either side may use (numpy's SVML)
LIBM = LIBM_ULPS * 2.0 ** -52


@contextlib.contextmanager
def every_step_a_library_call():
    """Bound a chain as if each basic operation were a math-library call (``u`` becomes
    ``LIBM``): that over-bounds a chain of the same shape that takes some of its steps through
    ``pow`` instead (colour-science's HLG low branches: ``0.5 * (12 E) ** 0.5`` and
    ``(2 E') ** 2 / 12`` where testcard has ``(3 E) ** 0.5`` and ``E' * E' / 3``)."""
    global U
    saved, U = U, LIBM
    try:
        yield
    finally:
        U = saved


class Bounded:
    """A float64 value ``v`` (numpy) and a bound ``e`` on its absolute error."""

    __slots__ = ("v", "e")

    def __init__(self, v, e=0.0):
        self.v = np.asarray(v, dtype=np.float64)
        self.e = np.broadcast_to(np.asarray(e, dtype=np.float64), self.v.shape).copy()

    # the four operations; a plain number is a constant both evaluations hold exactly
    def __add__(self, o):
        o = _b(o)
        v = self.v + o.v
        return Bounded(v, self.e + o.e + U * np.abs(v))

    __radd__ = __add__

    def __sub__(self, o):
        o = _b(o)
        v = self.v - o.v
        return Bounded(v, self.e + o.e + U * np.abs(v))

    def __rsub__(self, o):
        return _b(o) - self

    def __mul__(self, o):
        o = _b(o)
        v = self.v * o.v
        return Bounded(v, np.abs(o.v) * self.e + np.abs(self.v) * o.e + U * np.abs(v))

    __rmul__ = __mul__

    def __truediv__(self, o):
        o = _b(o)
        v = self.v / o.v
        return Bounded(v, (self.e + np.abs(v) * o.e) / np.abs(o.v) + U * np.abs(v))

    def __rtruediv__(self, o):
        return _b(o) / self

    def __pow__(self, c: float):
        """``x ** c`` for a constant ``c > 0`` and ``x >= 0`` (a math-library call)."""
        assert c > 0 and np.all(self.v >= 0)
        v = self.v ** c
        safe = np.where(self.v > 0, self.v, 1.0)
        carried = np.where(self.v > self.e, c * v * self.e / safe,
                           (self.v + self.e) ** c)      # within its own error of 0: take it whole
        return Bounded(v, carried + LIBM * v)

    def __getitem__(self, key):
        return Bounded(self.v[key], self.e[key])

    def relu(self):
        """``x * (x > 0)``: 1-Lipschitz, so the error bound stays."""
        return Bounded(np.maximum(self.v, 0.0), self.e)

    def clip01(self):
        return Bounded(np.clip(self.v, 0.0, 1.0), self.e)

    def rel(self):
        """The bound relative to the value (0 where both are 0)."""
        return np.divide(self.e, np.abs(self.v), out=np.zeros_like(self.e), where=self.v != 0)


def _b(x) -> Bounded:
    return x if isinstance(x, Bounded) else Bounded(x)


def log(x: Bounded) -> Bounded:
    v = np.log(x.v)
    return Bounded(v, x.e / x.v + LIBM * np.abs(v))


def exp(x: Bounded) -> Bounded:
    v = np.exp(x.v)
    return Bounded(v, v * x.e + LIBM * v)


def where(cond, a: Bounded, b: Bounded, knee=None, x: Bounded | None = None) -> Bounded:
    """``where`` on values.  With ``knee`` and ``x`` (the branch is ``x > knee``), an ``x`` within
    its error of the knee may take the other branch in another evaluation: there the bound is the
    larger branch bound plus the two branches' distance (both evaluated at ``x``)."""
    e = np.where(cond, a.e, b.e)
    if knee is not None:
        near = (np.abs(x.v - knee) <= x.e) & (x.e > 0)
        e = np.where(near, np.maximum(a.e, b.e) + np.abs(a.v - b.v), e)
    return Bounded(np.where(cond, a.v, b.v), e)


# ---------------------------------------------------------------- core.transfer, step for step
def pq_eotf(signal) -> Bounded:
    p = _b(signal).clip01() ** (1 / PQ_M2)
    num = (p - PQ_C1).relu()
    return PQ_PEAK * (num / (PQ_C2 - PQ_C3 * p)) ** (1 / PQ_M1)


def pq_inverse_eotf(nits) -> Bounded:
    ym = (_b(nits) / PQ_PEAK).clip01() ** PQ_M1
    return ((PQ_C1 + PQ_C2 * ym) / (1 + PQ_C3 * ym)) ** PQ_M2


def hlg_oetf(scene) -> Bounded:
    e = _b(scene).clip01()
    low = (3 * e) ** 0.5
    # the log branch wherever it is defined (12 E > b), so both branches are known by the knee
    defined = e.v > 0.03
    high = HLG_A * log(where(defined, 12 * e, Bounded(np.ones_like(e.v))) - HLG_B) + HLG_C
    return where(e.v > 1 / 12, high, low, knee=1 / 12, x=e)


def hlg_inverse_oetf(signal) -> Bounded:
    e = _b(signal).clip01()
    low = e * e / 3
    high = (exp((e - HLG_C) / HLG_A) + HLG_B) / 12     # both branches known by the knee
    return where(e.v > 0.5, high, low, knee=0.5, x=e)


def _luminance(rgb: Bounded) -> Bounded:
    return rgb[..., 0] * LUMA[0] + rgb[..., 1] * LUMA[1] + rgb[..., 2] * LUMA[2]


def hlg_ootf(scene_rgb, peak: float = 1000.0) -> Bounded:
    e = _b(scene_rgb).clip01()
    ys = _luminance(e)[..., None]
    return peak * ys ** (hlg_gamma(peak) - 1) * e


def hlg_inverse_ootf(display_rgb, peak: float = 1000.0) -> Bounded:
    f = _b(display_rgb).relu()
    gamma = hlg_gamma(peak)
    ys = (_luminance(f)[..., None] / peak) ** (1 / gamma)
    black = (ys.v == 0) & (ys.e == 0)     # exactly black: testcard's where gives exactly 0
    assert np.all(black | (ys.v > ys.e)), "a colour within its error of black"
    safe = where(black, Bounded(np.ones_like(ys.v)), ys)
    out = f / (peak * safe ** (gamma - 1))
    return where(black, Bounded(np.zeros_like(out.v)), out)


def hlg_eotf(signal_rgb, peak: float = 1000.0) -> Bounded:
    return hlg_ootf(hlg_inverse_oetf(signal_rgb), peak)


def hlg_inverse_eotf(display_rgb, peak: float = 1000.0) -> Bounded:
    return hlg_oetf(hlg_inverse_ootf(display_rgb, peak))


# ---------------------------------------------------------------- checks
def assert_within(got, want, tol, what: str = "values") -> None:
    """``|got - want| <= tol`` elementwise, naming the worst value when it fails."""
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    diff = np.abs(got - want)
    tol = np.broadcast_to(np.asarray(tol, dtype=np.float64), diff.shape)
    bad = ~(diff <= tol)
    if bad.any():
        i = np.unravel_index(np.argmax(np.where(bad, diff - tol, -np.inf)), diff.shape)
        raise AssertionError(f"{what}: {int(bad.sum())} of {diff.size} differ by more than their "
                             f"error bound; worst at {tuple(int(j) for j in i)}: got {got[i]!r}, "
                             f"want {want[i]!r}, difference {diff[i]:.3g} > bound {tol[i]:.3g}")


@functools.lru_cache(maxsize=65536)   # a plate asks for the same few phases over and over
def cosine_code(mid: int, amp: float, theta: float, lo: int, hi: int) -> int:
    """``clip(floor(mid + amp * cos(theta) + 0.5), lo, hi)`` as every math library within
    ``LIBM_ULPS`` of the exact cosine gives it (the C library's, numpy's, torch's), or an
    ``AssertionError`` when the value sits so close to a rounding tie that they may disagree
    by one code (a cosine of exactly +-1 only moves towards 0, so those ties are safe).

    The argument ``theta`` and the affine step are the same IEEE operations in every
    evaluation; only the cosine differs, by at most twice its bound."""
    c = math.cos(theta)
    slack = 2 * LIBM * abs(c)
    codes = {min(max(math.floor(mid + amp * x + 0.5), lo), hi)
             for x in (max(-1.0, c - slack), c, min(1.0, c + slack))}
    assert len(codes) == 1, (f"mid {mid} + {amp} * cos({theta!r}) = {mid + amp * c!r} is within "
                             f"the cosine's error of a rounding tie: codes {sorted(codes)} depend "
                             "on the math library")
    return codes.pop()
