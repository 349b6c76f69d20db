"""The doctor's Qt side: the screens, the output's screen and its HDR answer
(:mod:`~app.doctor.display`), the GL surface's granted format and its presents
(:mod:`~app.doctor.probe`), and the Help > Doctor dialog (:mod:`~app.doctor.dialog`).  The
headless checks are :mod:`core.doctor`'s."""

from app.doctor.dialog import DoctorDialog
from app.doctor.display import Target, check_hdr, output_target, requested_transfer, screen_checks
from app.doctor.probe import PresentProbe, format_check, wait_for

__all__ = [
    "DoctorDialog",
    "PresentProbe",
    "Target",
    "check_hdr",
    "format_check",
    "output_target",
    "requested_transfer",
    "screen_checks",
    "wait_for",
]
