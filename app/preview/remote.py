"""Calibration software drives the frame loop: patches in from transport threads, shown on the
GUI thread, acknowledged from the loop's presents.

:class:`RemoteLink` owns the remote connections (``core.remote`` transports, each on its own
thread).  A transport calls :meth:`RemoteLink.on_patch` from its thread; that returns an
:class:`~core.remote.Acknowledgement` at once and puts the patch in the link's inbox, where the
GUI thread takes it and it becomes a testcard frame (:func:`core.remote.to_spec_params` for the
:class:`~core.patterns.FrameFormat` the loop renders in, then that format's spec, the counter
overlay included when asked), handed to ``show_spec``.  The frame loop never presents a frame rendered
before a spec change (a new generation starts), so the first ``frame_presented`` after it is
the patch's first frame; the presenters emit it only once the frame is on screen as far as the
platform can tell (:mod:`app.preview.raster`: after the X server has it).  Only then is the
acknowledgement set, with that frame's index and present time, and the transport acknowledges
on the wire.

**The last patch wins.**  Patches from every connection go through one slot: a patch that
arrives while an earlier one waits for the GUI thread, or while an earlier one has been applied
but no frame has shown it yet, replaces it, and the earlier one's acknowledgement is failed at
once ("replaced by a later patch before it was presented"): its client gets the protocol's
error (PGenerator ``ERR``; UPGCI: the connection closed), never the success reply.  A flood
(Resolve has no acknowledgement to pace it) therefore costs one patch's memory, and the newest
patch is the one shown.

Every transport event and every patch's ``shown`` / ``not-shown`` record is kept (the last
:attr:`MAX_EVENTS`), signalled for the Remote dock, and written to the optional
:class:`~core.remote.RemoteLog`.  Events cross from the transport threads through a bounded
inbox (:attr:`MAX_INBOX`; the excess is dropped and counted in a ``dropped`` record) woken by
one queued signal at a time, so no peer can grow the GUI thread's event queue.  Times are on the
loop's clock: the transports are given it, so receive-to-present latency is one clock's
difference.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QObject, Qt, Signal

from core.engine import FORMAT_BITS
from core.patterns import FrameFormat
from core.remote import (
    DEFAULT_ACK_TIMEOUT_S,
    DEFAULT_REQUEST_TIMEOUT_S,
    Acknowledgement,
    Connection,
    RemoteLog,
    RemotePatch,
    make_transport,
    not_shown_record,
    shown_record,
    to_spec_params,
)

REPLACED = "replaced by a later patch before it was presented"


@dataclass
class _Pending:
    patch: RemotePatch
    ack: Acknowledgement
    spec: object
    note: str | None


class RemoteLink(QObject):
    """The remote connections of one frame loop (see the module).

    ``show_spec(spec) -> bool`` puts a spec on the loop (False or ``ValueError``: refused);
    ``surface() -> FrameFormat`` says what to render in (the frame's depth, range, size, counter
    overlay and transfer), asked on the GUI thread for each patch.
    """

    state_changed = Signal(str, str)       # connection key, its state ("listening on ...")
    event_logged = Signal(object)          # every record: transport events, shown, not-shown
    patch_shown = Signal(object)           # the shown record of the patch now on screen
    connections_changed = Signal()         # opened or closed
    _wake = Signal()                       # the inbox has something; from a transport thread

    MAX_EVENTS = 200
    MAX_INBOX = 2000                       # transport events waiting for the GUI thread, at most
    LATENCIES = 100                        # receive-to-present latencies kept for the dock

    def __init__(self, loop, show_spec: Callable[[object], bool], surface: Callable[[], FrameFormat], *,
                 log: RemoteLog | None = None, allow=(), video_levels: bool = False,
                 ack_timeout_s: float | None = DEFAULT_ACK_TIMEOUT_S, idle_timeout_s: float | None = None,
                 request_timeout_s: float = DEFAULT_REQUEST_TIMEOUT_S, parent=None):
        super().__init__(parent)
        self.loop = loop
        self._show_spec = show_spec
        self._surface = surface
        self.log = log
        self.allow = allow
        self.video_levels = bool(video_levels)
        self.ack_timeout_s = ack_timeout_s
        self.idle_timeout_s = idle_timeout_s
        self.request_timeout_s = request_timeout_s
        self.transports: dict[str, object] = {}
        self.connections: dict[str, Connection] = {}
        self.states: dict[str, str] = {}
        self.events: deque[dict] = deque(maxlen=self.MAX_EVENTS)
        self.latencies_ms: deque[float] = deque(maxlen=self.LATENCIES)
        self.on_screen: dict | None = None   # the shown record of the patch on screen
        self.shown_count = 0
        self._pending: _Pending | None = None  # applied, no frame has shown it yet
        self._closed = False
        # the inbox: filled from the transports' threads, emptied on this one
        self._inbox_lock = threading.Lock()
        self._inbox_events: list[dict] = []
        self._inbox_states: dict[str, str] = {}
        self._inbox_patch: tuple[RemotePatch, Acknowledgement] | None = None
        self._inbox_dropped = 0
        self._woken = False
        self._wake.connect(self._drain, Qt.ConnectionType.QueuedConnection)
        loop.frame_presented.connect(self._on_presented)

    # ------------------------------------------------------------ connections
    def open(self, conn: Connection, *, resolution: tuple[int, int], refresh_hz: float = 60.0) -> str:
        """Start ``conn``'s transport (a server binds here: ``ValueError``, one sentence, when
        it cannot); returns its key.  Refuses a connection that is open already."""
        if self._closed:
            raise ValueError("the remote connections are closed")
        if conn.key in self.transports:
            raise ValueError(f"{conn.describe()} is open already")
        key = conn.key
        transport = make_transport(
            conn, self.on_patch, resolution=resolution, video_levels=self.video_levels,
            allow=self.allow, on_event=self._post_event,
            on_state=lambda text, k=key: self._post_state(k, text), clock=self.loop.clock,
            ack_timeout_s=self.ack_timeout_s, refresh_hz=refresh_hz,
            idle_timeout_s=self.idle_timeout_s, request_timeout_s=self.request_timeout_s)
        transport.start()
        self.transports[key] = transport
        self.connections[key] = conn
        self.states.setdefault(key, transport.state)
        self.connections_changed.emit()
        return key

    def where(self, key: str) -> str:
        """Where a connection is: ``"listening on 127.0.0.1:85"`` (the port bound, when 0 was
        asked) or ``"to 127.0.0.1:20002"``."""
        conn, transport = self.connections[key], self.transports[key]
        bound = getattr(transport, "bound", None)
        if bound is not None:
            host, port = bound[0], bound[1]
            return f"listening on {f'[{host}]' if ':' in host else host}:{port}"
        return f"to {conn.url or conn.address}"

    def close(self, key: str) -> None:
        """Stop one connection (within about a second); unknown keys are ignored."""
        transport = self.transports.pop(key, None)
        self.connections.pop(key, None)
        if transport is None:
            return
        transport.stop()
        self.states[key] = "stopped"
        self.state_changed.emit(key, "stopped")
        self.connections_changed.emit()

    def close_all(self) -> None:
        for transport in self.transports.values():
            transport.request_stop()          # all at once: each then joins in a slice
        for key in list(self.transports):
            self.close(key)

    def shutdown(self):
        """Close every connection and the log; returns the log's result (None without one)."""
        self.close_all()
        self._drain()                         # what the transports said last
        self._closed = True
        why = "testcard stopped before it was presented"
        if self._pending is not None:
            self._fail(self._pending.patch, self._pending.ack, why)
        self._pending = None
        log, self.log = self.log, None
        return log.close() if log is not None else None

    # ------------------------------------------------------------ the inbox (any thread)
    def on_patch(self, patch: RemotePatch) -> Acknowledgement:
        """For a transport's thread: ``patch`` for the screen; the acknowledgement is set once
        the first frame showing it has been presented, or failed when a later patch replaces
        it first (the last patch wins)."""
        ack = Acknowledgement()
        with self._inbox_lock:
            old, self._inbox_patch = self._inbox_patch, (patch, ack)
        if old is not None and old[1].fail(REPLACED):
            self._post_event(not_shown_record(old[0], REPLACED))
        self._poke()
        return ack

    def _post_event(self, record: dict) -> None:
        with self._inbox_lock:
            if len(self._inbox_events) < self.MAX_INBOX:
                self._inbox_events.append(record)
            else:
                self._inbox_dropped += 1
        self._poke()

    def _post_state(self, key: str, text: str) -> None:
        with self._inbox_lock:
            self._inbox_states[key] = text    # only the latest state of each counts
        self._poke()

    def _poke(self) -> None:
        with self._inbox_lock:
            if self._woken:
                return
            self._woken = True
        self._wake.emit()

    # ------------------------------------------------------------ on the GUI thread
    def _drain(self) -> None:
        with self._inbox_lock:
            events, self._inbox_events = self._inbox_events, []
            states, self._inbox_states = self._inbox_states, {}
            item, self._inbox_patch = self._inbox_patch, None
            dropped, self._inbox_dropped = self._inbox_dropped, 0
            self._woken = False
        for record in events:
            self._write(dict(record))
        if dropped:
            self._write({"kind": "dropped", "source": "remote", "count": dropped,
                         "message": f"{dropped} connection events dropped: they came faster "
                                    "than testcard could record them"})
        for key, text in states.items():
            self._record_state(key, text)
        if item is not None:
            self._apply(item)

    def _fail(self, patch: RemotePatch, ack: Acknowledgement, why: str) -> None:
        if ack.fail(why):
            self._write(not_shown_record(patch, why))

    def _apply(self, item) -> None:
        patch, ack = item
        if self._closed:
            return
        if ack.settled():     # the transport gave up on it (its timeout, or stopping): not shown
            self._write(not_shown_record(patch, ack.failed or "no longer wanted"))
            return
        try:
            s = self._surface()
            name, params, note = to_spec_params(patch, s.bit_depth, s.limited, size=(s.width, s.height))
            spec = s.spec(name, params)
            shown = self._show_spec(spec)
        except ValueError as exc:
            shown, note = False, str(exc)
        except Exception as exc:  # a bug must not take the app down: the patch is not shown
            shown, note = False, f"{type(exc).__name__}: {exc}"
        if shown is False:
            self._fail(patch, ack, f"refused: {note or 'the frame could not be shown'}")
            return
        if self._pending is not None:
            self._fail(self._pending.patch, self._pending.ack, REPLACED)
        self._pending = _Pending(patch, ack, spec, note)

    def _on_presented(self, index: int) -> None:
        if self._pending is None or self.loop.last_error is not None:
            return   # a frame that failed to render shows the last good one: not the patch
        present = self.loop.timeline.column("present_s", last=1)
        if not len(present):
            return
        present_s = float(present[-1])
        p, self._pending = self._pending, None
        late = not p.ack.set(index, present_s)
        note = p.note
        if late:   # its client was told it was not presented (the timeout): say so here too
            note = "; ".join(x for x in (note, f"shown after its client was told no ({p.ack.failed})") if x)
        # the codes on screen: the frame's, carried to the surface's depth by the engine's rule
        surface = (p.spec.bit_depth, p.spec.limited, FORMAT_BITS.get(self.loop.fmt, p.spec.bit_depth))
        record = shown_record(p.patch, index, present_s, note, p.spec.pattern, surface=surface)
        record["acknowledged"] = not late      # its client got the success reply
        self.on_screen = record
        self.shown_count += 1
        if record["latency_ms"] is not None:
            self.latencies_ms.append(record["latency_ms"])
        self._write(record)
        self.patch_shown.emit(record)

    def _record_state(self, key: str, text: str) -> None:
        if key not in self.transports:
            return   # a state from a transport closed meanwhile
        self.states[key] = text
        self.state_changed.emit(key, text)

    def _write(self, record: dict) -> None:
        self.events.append(record)
        if self.log is not None:
            self.log.write(record)
        self.event_logged.emit(record)

    # ------------------------------------------------------------ for the dock and the status bar
    @property
    def waiting(self) -> bool:
        """A patch has been applied and no frame has shown it yet."""
        return self._pending is not None

    def latency_summary(self) -> str:
        """``"last 18.2 ms, median 17.9 ms over 42"``, or ``""`` before the first patch."""
        if not self.latencies_ms:
            return ""
        values = sorted(self.latencies_ms)
        n = len(values)
        median = values[n // 2] if n % 2 else (values[n // 2 - 1] + values[n // 2]) / 2
        return f"last {self.latencies_ms[-1]:.1f} ms, median {median:.1f} ms over {n}"


__all__ = ["RemoteLink"]
