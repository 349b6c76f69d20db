"""The timing dock over a bounded history: the plot's window (5 s, 1 min, 10 min), a decimated
plot on persistent items, what each group of figures covers, and the record button."""

import numpy as np
import pytest

from app.window import TimingDock
from core.timing import Timeline, coverage_texts, timeline_columns, timing_view
from core.timing.bench import feed
from core.timing.view import PLOT_COLUMNS

pytestmark = pytest.mark.qt

PERIOD = 1000.0 / 60.0


@pytest.fixture
def dock(qtbot):
    d = TimingDock()
    qtbot.addWidget(d)
    d.resize(1280, 260)
    return d


def _long_run(minutes=15):
    tl = Timeline(period_ms=PERIOD)
    feed(tl, int(minutes * 60 * 60))
    return tl


def test_the_plot_window_is_selectable_and_the_view_follows_it(dock):
    tl = _long_run()
    assert dock.window_s == dock.WINDOW_S == 5.0
    labels = [dock.window_box.itemText(i) for i in range(dock.window_box.count())]
    assert labels == ["5 s", "1 min", "10 min"]
    seen = []
    dock.window_changed.connect(seen.append)
    for seconds in (5.0, 60.0, 600.0):
        dock.set_window(seconds)
        assert dock.WINDOW_S == seconds           # what the main window's refresh passes on
        dock.update_from(tl, PERIOD)
        x, _ = dock.interval_item.getData()
        assert x.dtype == np.float64 and x[-1] == 0.0 and x[0] >= -seconds - 1e-9
        assert x[0] == pytest.approx(-seconds, abs=0.05)
        lo, hi = dock.plot.getViewBox().viewRange()[0]
        assert lo == pytest.approx(-seconds, rel=0.05) and hi >= 0.0
    assert seen == [60.0, 600.0]
    with pytest.raises(ValueError, match="plot window must be one of 5 s, .*10 min"):
        dock.set_window(7.0)
    assert dock.window_s == 600.0


def test_a_ten_minute_window_draws_a_bounded_number_of_points(dock):
    tl = _long_run()
    dock.set_window(600.0)
    items = (dock.interval_item, dock.render_item, dock.hist_item)
    dock.update_from(tl, PERIOD)
    x, y = dock.interval_item.getData()
    assert len(x) <= 2 * PLOT_COLUMNS < 36_000
    view = timing_view(*timeline_columns(tl), PERIOD, 600.0)
    assert np.nanmax(y) == pytest.approx(np.nanmax(view["intervals"]))
    assert np.nanmax(y) > 1.9 * PERIOD                  # the missed vsyncs are still drawn
    # the same plot items, fed again; pyqtgraph's own peak downsampling and clipping are on
    dock.update_from(tl, PERIOD)
    assert (dock.interval_item, dock.render_item, dock.hist_item) == items
    for item in (dock.interval_item, dock.render_item):
        assert item.opts["autoDownsample"] and item.opts["downsampleMethod"] == "peak"
        assert item.opts["clipToView"]


def test_headings_say_what_each_figure_covers(dock):
    tl = _long_run(minutes=15)
    dock.update_from(tl, PERIOD)
    view = timing_view(*timeline_columns(tl), PERIOD, dock.window_s)
    want = coverage_texts(view)
    assert dock.headings["since_start"].text() == want["since_start"] == "since start (15 min)"
    assert dock.headings["recent"].text() == want["recent"] == "last 12.5 min"
    texts = dock.texts()
    assert texts["frames"] == str(15 * 60 * 60)         # since start, beyond the rows held
    assert int(texts["late"]) == 15 * 60 * 60 // 1000
    assert dock.last_stats["frames"] == len(tl) < tl.total
    tl.clear()
    dock.update_from(tl, PERIOD)
    assert dock.headings["since_start"].text() == "since start"
    assert set(dock.texts().values()) == {"\u2013"}


def test_the_record_button_asks_to_start_then_to_stop(dock, qtbot):
    asked = []
    dock.record_requested.connect(asked.append)
    dock.record_button.click()
    dock.show_recording("/some/where.csv")
    assert dock.record_button.text() == "Stop recording"
    assert "where.csv" in dock.record_button.toolTip()
    dock.record_button.click()
    dock.show_recording(None)
    assert asked == [True, False] and dock.record_button.text() == "Record\u2026"


def test_the_dock_fits_beside_the_window_at_1280x720(dock, qtbot):
    dock.resize(1280, 220)
    dock.show()
    qtbot.waitExposed(dock)
    dock.update_from(_long_run(minutes=1), PERIOD)
    assert dock.window_box.isVisible() and dock.record_button.isVisible()
    assert dock.reset_button.isVisible() and dock.export_button.isVisible()
    assert dock.plot.width() > 300 and dock.hist.width() > 150


def points(item) -> int:
    x = item.getData()[0]
    return 0 if x is None else len(x)


def test_a_queued_view_shows_a_piece_per_step_counters_plot_then_histogram(dock):
    tl = _long_run(minutes=1)
    view = timing_view(*timeline_columns(tl), PERIOD, 5.0)
    dock.queue_view(view, "timer-paced")
    assert dock.labels["frames"].text() == "\u2013"          # nothing shown yet
    assert dock.apply_next()
    assert dock.labels["frames"].text() != "\u2013" and dock.pacing.text() == "timer-paced"
    assert points(dock.interval_item) == 0
    assert dock.apply_next()
    assert points(dock.interval_item) == len(view["x"]) > 0
    assert points(dock.hist_item) == 0
    assert dock.apply_next()
    assert points(dock.hist_item) == len(view["edges"]) > 0
    assert not dock.apply_next()                               # all shown
    # a newer view replaces one still queued; flush shows it all at once
    dock.queue_view(timing_view(*timeline_columns(_long_run(minutes=2)), PERIOD, 5.0))
    dock.flush()
    assert not dock.apply_next() and dock.last_stats["frames"] == 2 * 60 * 60


def test_the_axes_are_redrawn_only_when_their_range_changes(dock):
    tl = _long_run(minutes=1)
    changes = []
    dock.plot.getViewBox().sigRangeChanged.connect(lambda *a: changes.append("plot"))
    dock.hist.getViewBox().sigRangeChanged.connect(lambda *a: changes.append("hist"))
    dock.update_from(tl, PERIOD)
    first = list(changes)
    assert "plot" in first and "hist" in first
    feed(tl, 30)                                 # more frames of the same kind: the same ranges
    dock.update_from(tl, PERIOD)
    assert changes == first


@pytest.mark.parametrize("value, top", [(0, 1), (1, 1), (1.5, 2), (3, 5), (7, 10), (10, 10),
                                         (11, 20), (2999, 5000), (60_001, 100_000)])
def test_the_histogram_top_is_a_round_number_at_or_above_the_highest_count(value, top):
    from app.window.timing_dock import nice_ceiling

    assert nice_ceiling(value) == top
