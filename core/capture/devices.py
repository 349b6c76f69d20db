"""V4L2 capture devices on this machine: ``/dev/video*``, their names and pixel formats.

Names come from sysfs (``/sys/class/video4linux/videoN/name``); whether a node captures video
and which formats it offers come from the device itself (``VIDIOC_QUERYCAP`` and
``VIDIOC_ENUM_FMT``, read-only ioctls: nothing is started).  A node that cannot be asked (no
permission, not a V4L2 device) is listed with the reason.  Linux only; elsewhere the list is
empty.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import re
import struct
from dataclasses import dataclass, field
from pathlib import Path

DEV_ROOT = "/dev"
SYS_ROOT = "/sys/class/video4linux"
NONE_FOUND = "no V4L2 capture devices"

_VIDEO_CAPTURE, _VIDEO_CAPTURE_MPLANE, _DEVICE_CAPS = 0x1, 0x1000, 0x80000000
_CAP_SIZE, _FMT_SIZE = 104, 64


def _iowr(nr: int, size: int, read_only: bool = False) -> int:
    direction = 2 if read_only else 3          # _IOR: read; _IOWR: read and write
    return (direction << 30) | (size << 16) | (ord("V") << 8) | nr


VIDIOC_QUERYCAP = _iowr(0, _CAP_SIZE, read_only=True)
VIDIOC_ENUM_FMT = _iowr(2, _FMT_SIZE)
MAX_FORMATS = 64


@dataclass(frozen=True)
class DeviceInfo:
    """One ``/dev/video*`` node: ``capture`` is None when it could not be asked (``error`` says
    why); ``formats`` are FourCCs with the driver's description (``"YUYV (YUYV 4:2:2)"``)."""

    path: str
    name: str
    capture: bool | None
    formats: tuple[str, ...] = field(default=())
    driver: str = ""
    error: str | None = None

    @property
    def spec(self) -> str:
        return f"v4l2:{self.path}"

    def describe(self) -> str:
        what = {True: "capture", False: self.error or "no video capture (a metadata or output node)",
                None: f"cannot be asked: {self.error}"}[self.capture]
        head = f"{self.spec}  {self.name or '(no name)'}  [{what}]"
        if self.formats:
            head += "  formats: " + ", ".join(self.formats)
        return head

    def to_dict(self) -> dict:
        return {"path": self.path, "spec": self.spec, "name": self.name, "capture": self.capture,
                "formats": list(self.formats), "driver": self.driver, "error": self.error}


def screen_grab_spec(environ=None) -> str | None:
    """``x11grab:DISPLAY`` for the current X display (None when ``DISPLAY`` is not set)."""
    display = (os.environ if environ is None else environ).get("DISPLAY", "").strip()
    return f"x11grab:{display}" if display else None


def x_screen_sizes(display: str) -> list[tuple[int, int]] | None:
    """(width, height) in pixels of every X screen of ``display``'s server, in screen order, as
    libX11 reads them from the connection (its authorisation included); None where libX11 is
    missing or the display cannot be opened.  Ask only a display that answers
    (:func:`core.capture.xdisplay.display_answers`): a server that never replies would hang it."""
    name = ctypes.util.find_library("X11")
    if name is None:
        return None
    try:
        x = ctypes.CDLL(name)
    except OSError:
        return None
    x.XOpenDisplay.restype, x.XOpenDisplay.argtypes = ctypes.c_void_p, [ctypes.c_char_p]
    for f in (x.XScreenCount, x.XDisplayWidth, x.XDisplayHeight):
        f.restype = ctypes.c_int
    x.XScreenCount.argtypes = [ctypes.c_void_p]
    x.XDisplayWidth.argtypes = x.XDisplayHeight.argtypes = [ctypes.c_void_p, ctypes.c_int]
    x.XCloseDisplay.argtypes = [ctypes.c_void_p]
    dpy = x.XOpenDisplay(display.encode())
    if not dpy:
        return None
    try:
        return [(x.XDisplayWidth(dpy, i), x.XDisplayHeight(dpy, i)) for i in range(x.XScreenCount(dpy))]
    finally:
        x.XCloseDisplay(dpy)


def source_problem(spec: str, timeout: float = 2.0) -> str | None:
    """Why live source ``spec`` cannot be opened, found without opening it (None: it may be):
    a file or device node that does not exist, an X display whose server does not answer
    (:func:`core.capture.xdisplay.display_answers`).  A malformed spec is ``ValueError``, as
    :func:`core.capture.parse_spec` says it.  What only opening tells (a format the device
    refuses, a file that is no video) is left to ``open_source``."""
    from core.capture.live import parse_spec
    from core.capture.xdisplay import display_answers

    kind, target = parse_spec(spec)
    if kind == "x11grab":
        display = target.split("+", 1)[0]
        why = display_answers(display, timeout=timeout)
        if why is None:
            return None
        if why.startswith("no server answers") or why == "no X server socket":
            why = "no X server answers"
        return f"{spec}: cannot open display {display!r}: {why}"
    if not os.path.exists(target):
        what = "device" if kind == "v4l2" else "file"
        hint = " (testcard capture --list lists the devices)" if kind == "v4l2" else ""
        return f"{spec}: no such {what}{hint}"
    return None


def _node_number(name: str) -> int:
    m = re.fullmatch(r"video(\d+)", name)
    return int(m.group(1)) if m else -1


def list_devices(dev_root: str = DEV_ROOT, sys_root: str = SYS_ROOT) -> list[DeviceInfo]:
    """Every ``videoN`` node under ``dev_root`` (or named in ``sys_root``), in number order."""
    names: set[str] = set()
    for root in (dev_root, sys_root):
        try:
            names.update(n for n in os.listdir(root) if _node_number(n) >= 0)
        except OSError:
            continue
    return [_device(Path(dev_root) / n, Path(sys_root) / n / "name")
            for n in sorted(names, key=_node_number)]


def capture_devices(devices: list[DeviceInfo]) -> list[DeviceInfo]:
    """The nodes that capture video, or may (those that could not be asked)."""
    return [d for d in devices if d.capture is not False]


def describe_devices(devices: list[DeviceInfo]) -> list[str]:
    """One line per node; the plain sentence :data:`NONE_FOUND` when none captures video."""
    lines = [d.describe() for d in devices]
    if not capture_devices(devices):
        lines.append(NONE_FOUND)
    return lines


def _device(path: Path, name_file: Path) -> DeviceInfo:
    try:
        name = name_file.read_text(encoding="utf-8", errors="replace").strip()[:128]
    except OSError:
        name = ""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        return DeviceInfo(str(path), name, None, error=exc.strerror or str(exc))
    try:
        driver, card, caps = _querycap(fd)
        if not (caps & (_VIDEO_CAPTURE | _VIDEO_CAPTURE_MPLANE)):
            return DeviceInfo(str(path), name or card, False, driver=driver)
        mplane = not caps & _VIDEO_CAPTURE and bool(caps & _VIDEO_CAPTURE_MPLANE)
        return DeviceInfo(str(path), name or card, True, _formats(fd, 9 if mplane else 1), driver)
    except OSError as exc:
        if exc.errno in (errno.ENOTTY, errno.EINVAL):
            return DeviceInfo(str(path), name, False, error="not a V4L2 device")
        return DeviceInfo(str(path), name, None, error=exc.strerror or str(exc))
    finally:
        os.close(fd)


def _querycap(fd: int) -> tuple[str, str, int]:
    import fcntl

    buf = bytearray(_CAP_SIZE)
    fcntl.ioctl(fd, VIDIOC_QUERYCAP, buf, True)
    driver, card, _bus, _version, caps, device_caps = struct.unpack_from("16s32s32sIII", buf)
    if caps & _DEVICE_CAPS:
        caps = device_caps
    return _text(driver), _text(card), caps


def _formats(fd: int, buf_type: int) -> tuple[str, ...]:
    import fcntl

    out = []
    for index in range(MAX_FORMATS):
        buf = bytearray(struct.pack("III32sI", index, buf_type, 0, b"", 0).ljust(_FMT_SIZE, b"\0"))
        try:
            fcntl.ioctl(fd, VIDIOC_ENUM_FMT, buf, True)
        except OSError as exc:
            if exc.errno == errno.EINVAL:   # past the last format
                break
            raise
        _i, _t, _flags, desc, fourcc = struct.unpack_from("III32sI", buf)
        code = fourcc.to_bytes(4, "little").decode("ascii", "replace").strip()
        out.append(f"{code} ({_text(desc)})")
    return tuple(out)


def _text(raw: bytes) -> str:
    return raw.split(b"\0", 1)[0].decode("utf-8", "replace").strip()
