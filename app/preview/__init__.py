"""Live output: the frame loop, the presenters (GL and raster), the fullscreen output window
and where it is placed."""

from app.preview.frame_loop import FrameLoop
from app.preview.output import OutputController, qscreen_named, screen_record, screen_records
from app.preview.placement import ScreenRecord, frame_rect, place_output, primary_screen
from app.preview.presenter import GLPresenter, Presenter, RasterPresenter, gl_problem

__all__ = [
    "FrameLoop",
    "GLPresenter",
    "OutputController",
    "Presenter",
    "RasterPresenter",
    "ScreenRecord",
    "frame_rect",
    "gl_problem",
    "place_output",
    "primary_screen",
    "qscreen_named",
    "screen_record",
    "screen_records",
]
