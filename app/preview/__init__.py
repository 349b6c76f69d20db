"""Live output: the frame loop, the presenters (GL and raster), the fullscreen output window
and where it is placed, the output session that joins them, and its metrics."""

from app.preview.frame_loop import FrameLoop
from app.preview.output import (
    BANNER_MS,
    OutputBanner,
    OutputController,
    qscreen_of,
    qscreens,
    screen_record,
    screen_records,
)
from app.preview.placement import (
    Placement,
    ScreenIdentity,
    ScreenMatch,
    ScreenRecord,
    banner_lines,
    frame_rect,
    match_screen,
    place_output,
    primary_screen,
    resolve_screen,
)
from app.preview.presenter import GLPresenter, Presenter, gl_problem
from app.preview.raster import RasterPresenter
from app.preview.remote import RemoteLink
from app.preview.session import OutputSession, presenter_kind, refresh_of


def __getattr__(name):
    # the metrics pull in prometheus_client (about 0.4 s): loaded when --metrics asks for them
    if name in ("LiveMetrics", "start_metrics"):
        from app.preview import live_metrics

        return getattr(live_metrics, name)
    raise AttributeError(f"module 'app.preview' has no attribute {name!r}")


__all__ = [
    "BANNER_MS",
    "FrameLoop",
    "GLPresenter",
    "LiveMetrics",
    "OutputBanner",
    "OutputController",
    "OutputSession",
    "Placement",
    "Presenter",
    "RasterPresenter",
    "RemoteLink",
    "ScreenIdentity",
    "ScreenMatch",
    "ScreenRecord",
    "banner_lines",
    "frame_rect",
    "gl_problem",
    "match_screen",
    "place_output",
    "presenter_kind",
    "primary_screen",
    "qscreen_of",
    "qscreens",
    "refresh_of",
    "resolve_screen",
    "screen_record",
    "screen_records",
    "start_metrics",
]
