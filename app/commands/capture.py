"""``testcard capture --list``: the capture sources on this machine, with their formats.

V4L2 nodes come from :func:`core.capture.list_devices` (read-only ioctls: nothing is started);
an X11 screen grab of the current display is listed too when ``DISPLAY`` is set and its server
answers (:mod:`core.capture.xdisplay`), and of the other answering displays in the X11 socket
folder; a display that does not answer is never listed.  A display of several X screens
(``Xvfb :N -screen 0 ... -screen 1 ...``) is listed once per X screen, ``x11grab::N.S``:
x11grab grabs one X screen, ``:N`` alone the first.  With no V4L2 capture device the list says
so plainly.
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
    from core.capture import NONE_FOUND, capture_devices, describe_devices, list_devices, screen_grabs

    if not args.list:
        raise CliError("testcard capture needs --list (the sources are then used by "
                       "`testcard decode --live SOURCE` and `testcard latency --source SOURCE`)")
    devices = list_devices()
    grabs = screen_grabs()
    current = x_screens(grabs["current"])
    others = [x_screens(spec) for spec in grabs["others"]]
    if args.json:
        print_json({"devices": [d.to_dict() for d in devices],
                    "capture_devices": len(capture_devices(devices)),
                    "screen_grab": grabs["current"], "screen_grab_dead": grabs["current_dead"],
                    "other_screen_grabs": grabs["others"], "dead_displays": grabs["dead"],
                    "x_screens": [g for found in (current, *others) for g in found],
                    "none_found": None if capture_devices(devices) else NONE_FOUND})
        return 0
    for line in describe_devices(devices):
        print(line)
    if len(current) > 1:
        for g in current:
            print(f"{g['spec']}  X screen {g['x_screen']} of {g['display']}, {g['size']}"
                  f"{' (DISPLAY)' if g['default'] else ''} (screen grab; add +X,Y to start at an offset)")
    elif grabs["current"]:
        print(f"{grabs['current']}  the X11 screen (screen grab; add +X,Y to start at an offset)")
    elif grabs["current_dead"]:
        print(f"no screen grab of DISPLAY={grabs['display']}: {grabs['current_dead']}")
    else:
        print("no X11 display (DISPLAY is not set): no screen grab")
    for spec, found in zip(grabs["others"], others, strict=True):
        if len(found) > 1:
            for g in found:
                print(f"{g['spec']}  X screen {g['x_screen']} of {g['display']}, {g['size']}, "
                      "another X11 display on this machine (screen grab)")
        else:
            print(f"{spec}  another X11 screen on this machine (screen grab)")
    if grabs["dead"]:
        print(f"({grabs['dead']} X11 display socket{'s' if grabs['dead'] != 1 else ''} without a "
              "server left out)")
    return 0


def x_screens(spec: str | None) -> list[dict]:
    """One x11grab source per X screen of the display ``spec`` grabs (``x11grab::N`` or
    ``x11grab::N.S``, its server known to answer): ``spec``, ``display``, ``x_screen``, ``size``
    and ``default`` (the screen ``spec`` itself names); empty when the screens cannot be read."""
    import re

    from core.capture import x_screen_sizes

    m = re.fullmatch(r"x11grab:(?P<host>[^:]*):(?P<n>\d+)(?:\.(?P<s>\d+))?(?P<at>\+.*)?", spec or "")
    if m is None:
        return []
    sizes = x_screen_sizes(f"{m['host']}:{m['n']}") or []
    mine = int(m["s"] or 0)
    return [{"spec": f"x11grab:{m['host']}:{m['n']}.{i}", "display": f"{m['host']}:{m['n']}", "x_screen": i,
             "size": f"{w}x{h}", "default": i == mine} for i, (w, h) in enumerate(sizes)]
