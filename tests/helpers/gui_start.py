"""`testcard gui`'s checked start from a command line, as the window tests build it."""

from app import cli
from app.commands import gui
from app.settings import Settings
from core.patterns import builtin_presets


def start_of(*argv, stored=None):
    """``plan_start`` for ``testcard gui ARGV`` over ``stored`` settings (default: a 64x36 8-bit
    frame) and the built-in presets."""
    args = cli.build_parser().parse_args(["gui", *argv])
    return gui.plan_start(args, stored or Settings(size=[64, 36], bit_depth=8), builtin_presets())
