"""``testcard capture --list``: the capture sources on this machine, with their formats.

V4L2 nodes come from :func:`core.capture.list_devices` (read-only ioctls: nothing is started);
an X11 screen grab of the current display is listed too when ``DISPLAY`` is set.  With no V4L2
capture device the list says so plainly.
"""

from __future__ import annotations

from app.commands.common import CliError, print_json


def register(sub) -> None:
    p = sub.add_parser(
        "capture", help="list capture sources (V4L2 devices, the X11 screen grab)",
        description="List the capture sources testcard can read live (`testcard decode --live`, "
                    "`testcard latency --source`): V4L2 devices with their pixel formats, and an "
                    "X11 screen grab of the current display.")
    p.add_argument("--list", action="store_true", help="list the sources and their formats")
    p.add_argument("--json", action="store_true", help="print the list as one JSON document")
    p.set_defaults(func=run)


def run(args) -> int:
    from core.capture import NONE_FOUND, capture_devices, describe_devices, list_devices, screen_grab_spec

    if not args.list:
        raise CliError("testcard capture needs --list (the sources are then used by "
                       "`testcard decode --live SOURCE` and `testcard latency --source SOURCE`)")
    devices = list_devices()
    grab = screen_grab_spec()
    if args.json:
        print_json({"devices": [d.to_dict() for d in devices],
                    "capture_devices": len(capture_devices(devices)),
                    "screen_grab": grab, "none_found": None if capture_devices(devices) else NONE_FOUND})
        return 0
    for line in describe_devices(devices):
        print(line)
    if grab:
        print(f"{grab}  the X11 screen (screen grab; add +X,Y to start at an offset)")
    else:
        print("no X11 display (DISPLAY is not set): no screen grab")
    return 0
