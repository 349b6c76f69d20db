"""A plan whose rows already lie over its frame's first lines (``Rows.frame``): the gather
fills only the other lines, and the frame is the one a plain gather of the same rows writes,
whatever the later lines' index, with or without a patch, mirrored or not."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from core.engine import gather_into
from core.plan import Patch, Rows, materialize


@st.composite
def lead_plans(draw):
    k = draw(st.integers(1, 6))
    h = draw(st.integers(k, 14))
    w = draw(st.integers(1, 5))
    mirrored = draw(st.booleans()) and 2 * k >= h
    if mirrored:
        later = [h - 1 - line for line in range(k, h)]
    else:
        later = draw(st.lists(st.integers(0, k - 1), min_size=h - k, max_size=h - k))
    index = np.array(list(range(k)) + later, np.int64)
    rows = np.array(draw(st.lists(st.integers(0, 1023), min_size=k * w * 3, max_size=k * w * 3)),
                    np.uint16).reshape(k, w, 3)
    patch = None
    if draw(st.booleans()):
        y0 = draw(st.integers(0, h - 1))
        b = draw(st.integers(1, h - y0))
        values = np.full((b, 1, 3), 5, np.uint16)
        paint = np.full((1, w, 3), 9, np.uint16)
        mask = np.array(draw(st.lists(st.booleans(), min_size=w, max_size=w)))
        patch = Patch(y0, values, paint, mask)
    return rows, index, w, h, patch


def _lead_plan(rows, index, w, h, patch):
    frame = np.full((h, w, 3), 7777, np.uint16)          # stale bytes below the rows
    frame[:rows.shape[0]] = rows
    return Rows(frame[:rows.shape[0]], index, w, h, patch, frame=frame), frame


@settings(max_examples=150, deadline=None)
@given(lead_plans())
def test_the_frame_is_what_a_plain_gather_of_the_rows_writes(case):
    rows, index, w, h, patch = case
    want = materialize(np, Rows(rows.copy(), index, w, h, patch))
    plan, frame = _lead_plan(rows, index, w, h, patch)
    got = materialize(np, plan)
    assert got is frame
    np.testing.assert_array_equal(got, want)

    plan, frame = _lead_plan(rows, index, w, h, patch)
    gather_into(np, plan, frame)                          # the engine's form: into its buffer
    np.testing.assert_array_equal(frame, want)


def test_into_another_buffer_the_rows_are_gathered_whole():
    rows = np.arange(2 * 3 * 3, dtype=np.uint16).reshape(2, 3, 3)
    index = np.array([0, 1, 1, 0])
    plan, _ = _lead_plan(rows, index, 3, 4, None)
    out = np.zeros((4, 3, 3), np.uint16)
    gather_into(np, plan, out)
    np.testing.assert_array_equal(out, rows[index])
