"""What the control window stores on close: the fields it shows, against what it started with.

:class:`SettingsStore` reads the stored fields from what shows them (the frame settings, the
pattern on screen, the render device, the 1:1 toggle, the window's geometry and dock state).
A baseline taken when the window starts (and again while nothing has been touched, when the
window system places it or the surface's depth is followed) decides what closing writes back:
only a field that differs from it, so a value that fell back to a default (or a colour the
window converted to the surface's depth) leaves the settings file as it was.
"""

from __future__ import annotations

from collections.abc import Callable

from app import settings as settings_mod
from core.patterns import Spec


def jsonable(v):
    """A parameter value as the settings file keeps it (tuples as lists, all the way down)."""
    if isinstance(v, tuple):
        return [jsonable(x) for x in v]
    return v


def remember_spec(settings, spec) -> None:
    """Make ``spec`` (its pattern, parameters and frame settings) what ``settings`` holds."""
    s = settings
    s.pattern, s.params[spec.pattern] = spec.pattern, {k: jsonable(v) for k, v in spec.params}
    s.bit_depth, s.limited, s.size = spec.bit_depth, spec.limited, [spec.width, spec.height]
    s.bit_depth_chosen = True
    s.counter, s.counter_bits = spec.counter_bits is not None, spec.counter_bits or s.counter_bits


class SettingsStore:
    """The stored fields of ``window`` (a ``QMainWindow``: its geometry and dock state), read
    from ``frame_settings`` (a :class:`~app.window.param_editor.FrameSettings`) and the callables
    ``spec`` (the spec on screen), ``device`` (the render device) and ``one_to_one`` (the
    preview's 1:1 toggle), written into ``settings``."""

    def __init__(self, settings, *, window, frame_settings, spec: Callable[[], Spec],
                 device: Callable[[], str], one_to_one: Callable[[], bool]):
        self.settings = settings
        self.window = window
        self.frame_settings = frame_settings
        self._spec = spec
        self._device = device
        self._one_to_one = one_to_one
        self.baseline: dict | None = None     # the fields as the window started (None: not yet)

    def values(self) -> dict:
        """What closing would store, field by field (the current pattern's parameters included)."""
        fs, spec = self.frame_settings, self._spec()
        return {
            "pattern": spec.pattern,
            "params": {k: jsonable(v) for k, v in spec.params},
            "bit_depth": fs.bit_depth.value(),
            "bit_depth_chosen": fs.bit_depth_chosen,
            "limited": fs.range.currentText() == "limited",
            "size": fs.size_setting(),
            "counter": fs.counter.isChecked(),
            "counter_bits": fs.counter_bits.value(),
            "device": self._device(),
            "one_to_one": self._one_to_one(),
            "window_geometry": bytes(self.window.saveGeometry().toBase64()).decode(),
            "window_state": bytes(self.window.saveState().toBase64()).decode(),
        }

    def untouched(self) -> bool:
        """True while every stored field (the window's own geometry aside) is as it started."""
        base = self.baseline
        if base is None:
            return False
        now = self.values()
        return all(now[k] == base.get(k) for k in now if not k.startswith("window_"))

    def baseline_now(self) -> None:
        """Take what the window shows now as what it started with: a field the user never
        changes is not stored back on close."""
        self.baseline = self.values()

    def store(self) -> None:
        """Write the fields that differ from the baseline into the settings and save them;
        raises ``OSError`` (``SettingsNotSaved``: one line naming the file and the reason)."""
        s, base = self.settings, self.baseline or {}
        for name, value in self.values().items():
            if base.get(name, object()) == value:
                continue
            if name == "params":
                s.params[self._spec().pattern] = value
            else:
                setattr(s, name, value)
        settings_mod.save(s)
