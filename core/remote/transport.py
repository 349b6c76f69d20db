"""What every remote transport shares: the acknowledgement, the thread, events and state.

A transport runs on its own thread (stdlib sockets only).  For each patch it calls
``on_patch(patch)``, which returns an :class:`Acknowledgement`; the app sets it once the patch
has been *presented* (the frame index and present time of the first frame that showed it), or
fails it with the reason the patch will never be shown (replaced by a later patch before any
frame showed it, refused).  Where the protocol lets the generator acknowledge, the transport
sends its success reply only for a patch presented; a patch failed, or not presented within
``ack_timeout_s`` (the transport then fails it itself), gets the protocol's error, or where
there is none the connection is closed with the reason in the log.  Never the success reply.

``on_event(dict)`` receives JSON-able log records ``{"time", "source", "kind", "message", ...}``
(``time`` on the transport's clock, ``time.monotonic`` unless injected, the clock of a patch's
``received_s``); ``on_state(str)`` the connection state ("listening on 127.0.0.1:85",
"connected to ...", "reconnecting in 2 s").  Neither callback may block; an exception in one is
logged and does not stop the transport.  ``stop()`` returns within about a second.
"""

from __future__ import annotations

import select
import socket
import struct
import threading
import time
from collections.abc import Callable

from core.remote.patch import RemotePatch

SLICE_S = 0.05            # how long any blocking wait lasts before the stop flag is looked at
JOIN_S = 1.0
SEND_TIMEOUT_S = 2.0      # a peer that reads none of a reply for this long is given up on
DEFAULT_ACK_TIMEOUT_S = 5.0


class Acknowledgement:
    """Settled once, by whoever comes first: :meth:`set` (the app: the patch was presented) or
    :meth:`fail` (the app: it never will be; the transport: its timeout passed).  Waited on by
    the transport, which replies on the wire from how it was settled."""

    def __init__(self) -> None:
        self._done = threading.Event()
        self._lock = threading.Lock()
        self.frame_index: int | None = None
        self.present_s: float | None = None
        self.failed: str | None = None        # why the patch was not presented

    def set(self, frame_index: int, present_s: float) -> bool:
        """The first frame that showed the patch: its index and its present time.  False (and
        nothing changed) when the acknowledgement was failed first: the client was told no."""
        with self._lock:
            if self._done.is_set():
                return False
            self.frame_index, self.present_s = int(frame_index), float(present_s)
            self._done.set()
            return True

    def fail(self, why: str) -> bool:
        """The patch will not be presented (one sentence why); False when already settled."""
        with self._lock:
            if self._done.is_set():
                return False
            self.failed = str(why)
            self._done.set()
            return True

    def is_set(self) -> bool:
        """Presented (not merely settled: a failed acknowledgement is not set)."""
        return self._done.is_set() and self.failed is None

    def settled(self) -> bool:
        return self._done.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until settled; True when presented."""
        return self._done.wait(timeout) and self.failed is None


OnPatch = Callable[[RemotePatch], Acknowledgement]
OnEvent = Callable[[dict], None]
OnState = Callable[[str], None]


def reset_close(sock: socket.socket | None) -> None:
    """Close with a reset (SO_LINGER 0): a peer that only ever sends sees it on its next send."""
    if sock is None:
        return
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    except OSError:
        pass
    try:
        sock.close()
    except OSError:
        pass


def show_address(address) -> str:
    host, port = address[0], address[1]
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


class Transport:
    """The thread, the stop flag, events and state; subclasses write :meth:`_run`."""

    source = "remote"
    thread_name = "testcard-remote"

    def __init__(self, on_patch: OnPatch, *, on_event: OnEvent | None = None,
                 on_state: OnState | None = None, ack_timeout_s: float | None = DEFAULT_ACK_TIMEOUT_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if ack_timeout_s is not None and not ack_timeout_s > 0:
            raise ValueError(f"ack timeout: expected a positive number of seconds, got {ack_timeout_s!r}")
        self._on_patch = on_patch
        self._on_event = on_event
        self._on_state = on_state
        self.ack_timeout_s = ack_timeout_s
        self.clock = clock
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._state = "stopped"
        self._lock = threading.Lock()

    # -- lifecycle
    def start(self) -> None:
        """Start the thread (a server binds first, so a bad address raises here)."""
        if self._thread is not None:
            raise RuntimeError(f"{self.source}: already started")
        self._stop.clear()
        self._prepare()
        self._thread = threading.Thread(target=self._main, name=self.thread_name, daemon=True)
        self._thread.start()

    def request_stop(self) -> None:
        """Ask the thread to stop without waiting (stop several transports at once, then join)."""
        self._stop.set()
        self._interrupt()

    def stop(self) -> None:
        """Stop and join (within a fraction of a second); safe to call twice or before start."""
        self.request_stop()
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(JOIN_S)
        self._set_state("stopped")

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    @property
    def state(self) -> str:
        return self._state

    def _prepare(self) -> None:
        """Bind or resolve before the thread starts (servers override)."""

    def _interrupt(self) -> None:
        """Wake blocking calls on stop (close sockets; override)."""

    def _main(self) -> None:
        try:
            self._run()
        except Exception as e:  # a transport never takes the app down: say why it ended
            self._emit("error", f"{self.source} stopped on an unexpected error: {type(e).__name__}: {e}")
        finally:
            self._cleanup()

    def _run(self) -> None:
        raise NotImplementedError

    def _cleanup(self) -> None:
        """Close what the thread opened (override)."""

    # -- events and state
    def _emit(self, kind: str, message: str, **extra) -> None:
        if self._on_event is None:
            return
        record = {"time": self.clock(), "source": self.source, "kind": kind, "message": message}
        record.update(extra)
        try:
            self._on_event(record)
        except Exception:  # a log sink's fault must not stop the transport
            pass

    def _set_state(self, state: str) -> None:
        with self._lock:
            if state == self._state:
                return
            self._state = state
        if self._on_state is not None:
            try:
                self._on_state(state)
            except Exception:  # as for events
                pass

    # -- patches and acknowledgements
    def _deliver(self, patch: RemotePatch) -> Acknowledgement | None:
        """Hand a patch to the app; ``None`` (and a log line) when the app refused it."""
        self._emit("patch", patch.describe(), patch=patch.as_dict())
        try:
            ack = self._on_patch(patch)
        except Exception as e:
            self._emit("error", f"the patch could not be shown: {type(e).__name__}: {e}")
            return None
        if not isinstance(ack, Acknowledgement):
            self._emit("error", f"on_patch returned {type(ack).__name__}, not an Acknowledgement")
            return None
        return ack

    def _await(self, ack: Acknowledgement, patch: RemotePatch) -> str | None:
        """Wait until ``ack`` is settled: None when the patch was presented, else why not (it
        was failed, the timeout passed -- the transport fails it then -- or the transport is
        stopping).  A patch not presented is logged as such; the caller never acknowledges it."""
        deadline = None if self.ack_timeout_s is None else self.clock() + self.ack_timeout_s
        while True:
            if ack.settled() or ack.wait(SLICE_S):
                if ack.is_set():
                    latency = None if ack.present_s is None else (ack.present_s - patch.received_s) * 1000
                    self._emit("presented", f"presented at frame {ack.frame_index}", frame=ack.frame_index,
                               present_s=ack.present_s, received_s=patch.received_s, latency_ms=latency)
                    return None
                why = ack.failed or "not presented"
                break
            if self._stop.is_set():
                why = "testcard stopped before it was presented"
                if ack.fail(why):
                    break
                continue                      # settled meanwhile: report how
            if deadline is not None and self.clock() >= deadline:
                why = f"not presented within {self.ack_timeout_s:g} s"
                if ack.fail(why):
                    self._emit("ack-timeout", f"{why}; not acknowledged", received_s=patch.received_s)
                    return why
                continue
        self._emit("not-acknowledged", f"{patch.describe()}: {why}; not acknowledged",
                   received_s=patch.received_s, why=why)
        return why

    # -- sockets
    def _readable(self, sock: socket.socket) -> bool | None:
        """Wait until ``sock`` can be read: True, or None when stopping."""
        while not self._stop.is_set():
            try:
                r, _, _ = select.select([sock], [], [], SLICE_S)
            except (OSError, ValueError):
                return True  # closed under us: the read says so
            if r:
                return True
        return None

    def _recv(self, sock: socket.socket, size: int = 65536) -> bytes | None:
        """Bytes from ``sock`` (``b""``: the peer closed or reset), or None when stopping."""
        if self._readable(sock) is None:
            return None
        try:
            return sock.recv(size)
        except (ConnectionError, TimeoutError, OSError):
            return b""

    def _send(self, sock: socket.socket, data: bytes, timeout_s: float = SEND_TIMEOUT_S) -> bool:
        """Send all of ``data`` within ``timeout_s`` (a peer that does not read is given up on),
        in slices that look at the stop flag; False (and a log line) when it could not."""
        view = memoryview(data)
        deadline = time.monotonic() + timeout_s
        try:
            while view:
                if self._stop.is_set():
                    return False
                try:
                    _, w, _ = select.select([], [sock], [], SLICE_S)
                    if w:
                        view = view[sock.send(view, socket.MSG_DONTWAIT):]
                        continue
                except BlockingIOError:
                    pass
                except ValueError:
                    raise OSError("the socket is closed") from None
                if time.monotonic() >= deadline:
                    raise TimeoutError(f"the peer read nothing for {timeout_s:g} s")
            return True
        except OSError as e:
            self._emit("disconnected", f"sending failed: {e.strerror or e}")
            return False

    def _sleep(self, seconds: float) -> bool:
        """Sleep unless stopped; True when stopped."""
        return self._stop.wait(seconds)


def backoff(attempt: int, first_s: float, max_s: float) -> float:
    """Capped exponential backoff: ``first_s * 2**attempt``, at most ``max_s``."""
    return min(max_s, first_s * (2 ** min(attempt, 30)))
