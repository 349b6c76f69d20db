"""The engine a frame loop renders with, and its render-path decision.

:class:`LiveEngine` holds the :class:`~core.engine.Engine` of the live output and why it has
the path it has: the decision cache's choice for the spec's band, display format and device
(:func:`core.decisions.choose_path_for`, looked up in the cache it is given: the session's,
held in memory), a live race's candidate before it (named in the race override it is given:
the session's), or numpy where the chosen path cannot render the spec here (``path_source``
"fallback", the reason said).  A new spec keeps the engine (and its compiled graphs) while the
decision does not change; a new device, display format or reuse of static frames builds
another.  It only builds: the frame loop starts the new generation of frames and says the
engine changed.
"""

from __future__ import annotations

from core.decisions import DecisionCache, RaceOverride, choose_path_for
from core.engine import Engine


class LiveEngine:
    """The engine (None until the first :meth:`rebuild`) and its decision: ``path``,
    ``path_source``, ``path_reason``; ``fmt`` the display format it renders, ``rounding_note``
    what the surface's depth costs the frame (empty where it is exact).  ``decisions``: the cache
    its path is chosen from (None: the default cache file, read at each choice); ``race``: the
    live race whose candidate outranks it (None: never raced)."""

    def __init__(self, decisions: DecisionCache | None = None, race: RaceOverride | None = None) -> None:
        self.decisions, self.race = decisions, race
        self.engine: Engine | None = None
        self.path = "numpy"
        self.path_source = "default"
        self.path_reason = ""
        self.fmt = "rgb8"
        self.rounding_note = ""

    def decide(self, spec, fmt: str, device: str) -> tuple[str, str, str]:
        """(path, source, reason) for ``spec`` in ``fmt`` on ``device``."""
        d = choose_path_for(spec, fmt, device, cache=self.decisions, race=self.race)
        return d.path, d.source, d.reason

    def take(self, spec, fmt: str, *, device: str, reuse_static: bool) -> bool:
        """Render ``spec`` from now on: the same engine where the path decided is its path, else
        a new one; refuses (``ValueError``) what the engine refuses, the engine unchanged then.
        Returns whether the frame's layout (size or format) changed."""
        engine = self.engine
        if engine is None or self.decide(spec, fmt, device)[0] != engine.path:
            return self.rebuild(spec, fmt, device=device, reuse_static=reuse_static)
        layout = engine.frame_layout
        engine.set_spec(spec)
        self._note(engine)
        return engine.frame_layout != layout

    def redecide(self, spec, fmt: str, *, device: str, reuse_static: bool) -> bool | None:
        """Decide the path again (a verdict was just saved or imported): a new engine only where
        the path changes (returns whether the frame's layout did), else the decision's source
        and reason updated (returns None)."""
        path, source, reason = self.decide(spec, fmt, device)
        if self.engine is None or path != self.engine.path:
            return self.rebuild(spec, fmt, device=device, reuse_static=reuse_static)
        self.path_source, self.path_reason = source, reason
        return None

    def rebuild(self, spec, fmt: str, *, device: str, reuse_static: bool) -> bool:
        """A new engine for ``spec`` in ``fmt`` on ``device`` (numpy where the path decided cannot
        render it here); refuses (``ValueError``) what numpy refuses.  Returns whether the
        frame's layout changed (always, for the first engine)."""
        self.fmt = fmt
        path, source, reason = self.decide(spec, fmt, device)
        old = self.engine

        def build(path: str) -> Engine:
            return Engine(spec, path=path, device=device, fmt=fmt, allow_rounding=True,
                          reuse_static=reuse_static)

        try:
            engine = build(path)
        except ValueError as exc:
            if path == "numpy":
                raise
            reason = f"{path} cannot render this here ({exc}); using numpy"
            path, source = "numpy", "fallback"
            engine = build(path)
        self.engine = engine
        self.path, self.path_source, self.path_reason = path, source, reason
        if old is not None:
            old.close()
        self._note(engine)
        return old is None or old.frame_layout != engine.frame_layout

    def _note(self, engine: Engine) -> None:
        self.rounding_note = "" if engine.exact else f"{self.fmt[3:]}-bit surface: " + engine.note

    @property
    def active_path(self) -> str:
        """The path serving frames now (the decided one, or its stand-in while it compiles)."""
        return self.engine.active_path if self.engine is not None else self.path

    def close(self) -> None:
        if self.engine is not None:
            self.engine.close()
