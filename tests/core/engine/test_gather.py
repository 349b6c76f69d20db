"""The compiled path's end for many full-width rows, run eagerly: rows stored over the frame's
first lines, the other lines copied from them (finish_lines), exact whatever the index."""

import numpy as np
import pytest
import torch

from core.engine import LeadLines, compiled_gather, finish_lines, frame_rows, realize_op
from core.engine import formats as F
from core.patterns import make_spec, render

CPU = torch.device("cpu")


def expected(spec, fmt):
    return F.convert_frame(render(spec, 0), fmt, spec.bit_depth, spec.dtype)


@pytest.mark.parametrize("w, h, roi, fmt, ordered", [
    pytest.param(66, 40, None, "rgb10", True, id="even-rgb10"),
    pytest.param(65, 37, None, "native", True, id="odd-native"),
    pytest.param(64, 36, None, "rgb16", True, id="rgb16"),
    # a region of interest sends the lines above it to an extra zero row: out of order
    pytest.param(66, 41, (5, 3, 40, 30), "rgb10", False, id="roi-rgb10"),
])
def test_zone_plate_lines_finished_from_the_lead_rows(w, h, roi, fmt, ordered):
    spec = make_spec("zone_plate", {}, width=w, height=h, roi=roi)
    plan = frame_rows(torch, spec, fmt, torch.tensor(0), CPU)
    probe = compiled_gather(torch, plan, realize_op())            # the frame as a graph returns it
    out = torch.full(tuple(probe.shape), -7, dtype=probe.dtype)   # the host buffer, stale bytes
    lead = compiled_gather(torch, plan, realize_op(), out=out)
    assert isinstance(lead, LeadLines)
    assert lead.count == plan.rows.shape[0] and bool(lead.ordered) is ordered
    finish_lines(torch, out, lead.count, lead.index, lead.ordered)
    np.testing.assert_array_equal(F.host_view(out.numpy(), fmt), expected(spec, fmt))


@pytest.mark.parametrize("index", [[0, 1, 2, 2, 1, 0], [0, 1, 2, 0, 0, 1], [2, 0, 1, 1, 0, 2]])
def test_finish_lines_is_the_gather_for_any_index(index):
    rows = torch.arange(3 * 4, dtype=torch.int32).reshape(3, 4) + 100
    out = torch.zeros(6, 4, dtype=torch.int32)
    out[:3] = rows
    index = torch.tensor(index)
    ordered = (index[:3] == torch.arange(3)).all()
    finish_lines(torch, out, 3, index, ordered)
    assert torch.equal(out, rows[index])
