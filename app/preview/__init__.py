"""Live output: the frame loop, the presenters (GL and raster), the fullscreen output window
and where it is placed."""

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
from app.preview.remote import RemoteLink, Surface

__all__ = [
    "BANNER_MS",
    "FrameLoop",
    "GLPresenter",
    "OutputBanner",
    "OutputController",
    "Placement",
    "Presenter",
    "RasterPresenter",
    "RemoteLink",
    "ScreenIdentity",
    "ScreenMatch",
    "ScreenRecord",
    "Surface",
    "banner_lines",
    "frame_rect",
    "gl_problem",
    "match_screen",
    "place_output",
    "primary_screen",
    "qscreen_of",
    "qscreens",
    "resolve_screen",
    "screen_record",
    "screen_records",
]
