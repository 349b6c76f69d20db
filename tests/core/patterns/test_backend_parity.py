"""numpy and torch render bit-identical code values for every pattern.

torch is installed wherever the tests run (CI included), so this never skips.
"""

import numpy as np
import torch
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

from core.patterns import catalog, make_spec, render
from core.xp import to_numpy

NAMES = [p.name for p in catalog()]


@st.composite
def specs(draw):
    name = draw(st.sampled_from(NAMES))
    from core.patterns import get_pattern

    pat = get_pattern(name)
    bits = draw(st.integers(8, 16))
    limited = draw(st.booleans()) if name != "pluge" else False
    top = (1 << bits) - 1
    params = {}
    for p in pat.params:
        if not draw(st.booleans()):
            continue
        if p.kind == "int":
            hi = min(int(p.max), 200)
            if p.name == "bits":
                hi = 12
            params[p.name] = draw(st.integers(int(p.min), max(int(p.min), hi)))
        elif p.kind == "float":
            params[p.name] = draw(st.floats(p.min, p.max, allow_nan=False))
        elif p.kind == "choice":
            params[p.name] = draw(st.sampled_from(p.choices))
        elif p.kind == "bool":
            params[p.name] = draw(st.booleans())
        elif p.kind == "colour":
            params[p.name] = tuple(draw(st.integers(0, top)) for _ in range(3))
        elif p.kind == "palette":
            n = draw(st.integers(1, 4))
            params[p.name] = [tuple(draw(st.integers(0, top)) for _ in range(3)) for _ in range(n)]
    w = draw(st.integers(16, 96))
    h = draw(st.integers(16, 64))
    roi = None
    if draw(st.booleans()):
        roi = (draw(st.integers(-8, w - 1)), draw(st.integers(-8, h - 1)), draw(st.integers(1, w)),
               draw(st.integers(1, h)))
    counter = draw(st.sampled_from([None, 4, 8])) if name != "counter" else None
    dtype = draw(st.sampled_from(["uint16", "int32", "float32"]))
    try:
        spec = make_spec(name, params, width=w, height=h, bit_depth=bits, limited=limited,
                         dtype=dtype, roi=roi, counter_bits=counter)
    except ValueError as exc:  # a panel, steps or tiles that cannot fit; a region off the frame;
        # HDR bars in a range or transfer their standard does not give
        assert any(m in str(exc) for m in ("does not fit", "wholly outside", "not in the standard"))
        reject()
    frame = draw(st.integers(0, 2**31 - 1))
    return spec, frame


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(specs())
def test_numpy_and_torch_cpu_identical(case):
    spec, frame = case
    a = render(spec, frame, np)
    b = to_numpy(render(spec, torch.tensor(frame), torch, torch.device("cpu")))
    assert a.dtype == b.dtype
    assert a.shape == b.shape == (spec.height, spec.width, 3)
    assert np.array_equal(a, b)
    # a Python int frame and a 0-d tensor frame are the same frame
    c = to_numpy(render(spec, frame, torch, torch.device("cpu")))
    assert np.array_equal(a, c)
