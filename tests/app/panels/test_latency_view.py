"""The Latency panel's plots before any frame: fixed, plausible axes (0..50 ms, 0..10 frames),
not pyqtgraph's autorange of nothing (-0.5..0.5, labelled "x0.001"); data autoranges again."""

import numpy as np
import pytest

from app.panels.latency_view import EMPTY_FRAMES, EMPTY_MS, EMPTY_S, LatencyView

pytestmark = pytest.mark.qt


def _ranges(plot):
    return [tuple(round(v, 6) for v in r) for r in plot.getViewBox().viewRange()]


def test_empty_plots_show_sensible_axes(qtbot):
    view = LatencyView()
    qtbot.addWidget(view)
    view.resize(900, 200)
    view.show()
    qtbot.waitExposed(view)
    assert _ranges(view.hist_plot) == [EMPTY_MS, EMPTY_FRAMES]
    assert _ranges(view.time_plot) == [EMPTY_S, EMPTY_MS]
    for plot in (view.hist_plot, view.time_plot):
        for side in ("left", "bottom"):
            assert "x0.001" not in plot.getAxis(side).labelString()
    assert "latency (ms)" in view.hist_plot.getAxis("bottom").labelString()


def test_frames_autorange_and_clearing_goes_back_to_the_empty_axes(qtbot):
    view = LatencyView()
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    view.add(np.array([10.0, 10.1, 10.2]), np.array([80.0, 85.0, 90.0]), ["ok", "ok", "ok"])

    def spans_the_data():
        (x0, x1), _ = view.hist_plot.getViewBox().viewRange()
        return x0 <= 80 and 90 <= x1 < 200        # the data's span, not the empty 0..50

    qtbot.waitUntil(spans_the_data)
    view.clear()
    assert _ranges(view.hist_plot) == [EMPTY_MS, EMPTY_FRAMES]
