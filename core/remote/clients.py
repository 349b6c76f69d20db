"""The two transports where testcard connects out: Resolve and ArgyllCMS's web display.

* :class:`ResolveClient` connects to the calibration program (``HOST:20002``), reads framed XML
  and hands each patch to the app; the protocol has no reply, so nothing is acknowledged on the
  wire.  A message identical to the one before is dropped (logged as a repeat), as PGenerator+
  does.  A closed peer is seen at once (the read returns nothing) and the client reconnects
  with capped exponential backoff; a broken stream (a length of 0, negative or over 64 KiB) is
  closed and reconnected.  ``stop()`` closes with a reset (SO_LINGER 0), so DisplayCAL, which
  only ever sends, notices on its next send.
* :class:`ArgyllWebClient` polls ``dispwin -dweb``: one request per connection, read until the
  server closes, and the next poll only once the patch has been presented (that poll is
  Argyll's acknowledgement).  A patch not presented (replaced by another connection's patch,
  or not shown within the acknowledgement timeout) is never acknowledged: it is shown again
  after a second, logged, and the next poll still waits for it.  The first poll may wait for
  its answer as long as Argyll takes to start measuring; once an answer has begun it must end
  within ``reply_timeout_s`` (a server that never closes is given up on and polled again).  A
  refused connection (dispwin not started yet, or finished) is retried with backoff.
"""

from __future__ import annotations

import errno
import os
import select
import socket
import time

from core.remote import argyll_web, resolve
from core.remote.patch import RemoteError
from core.remote.transport import SLICE_S, Transport, backoff, reset_close, show_address

CONNECT_TIMEOUT_S = 5.0
REPLY_TIMEOUT_S = 5.0        # an Argyll answer begun must end within this long
RESHOW_S = 1.0               # a patch not presented is shown again after this pause


class _Client(Transport):
    """Connecting out: an interruptible connect and the socket in use."""

    def __init__(self, host: str, port: int, on_patch, *, first_backoff_s: float = 0.5,
                 max_backoff_s: float = 10.0, connect_timeout_s: float = CONNECT_TIMEOUT_S,
                 **kwargs) -> None:
        super().__init__(on_patch, **kwargs)
        if not 0 < first_backoff_s <= max_backoff_s:
            raise ValueError("backoff: expected 0 < first <= max seconds")
        self.host, self.port = host, int(port)
        self.first_backoff_s, self.max_backoff_s = first_backoff_s, max_backoff_s
        self.connect_timeout_s = connect_timeout_s
        self._sock: socket.socket | None = None

    @property
    def peer(self) -> str:
        return show_address((self.host, self.port))

    def _cleanup(self) -> None:
        sock, self._sock = self._sock, None
        reset_close(sock)

    def _connect(self) -> tuple[socket.socket | None, str]:
        """A connected socket, or None and why not (also None when stopping)."""
        try:
            infos = socket.getaddrinfo(self.host, self.port, type=socket.SOCK_STREAM)
        except OSError as e:
            return None, f"cannot resolve {self.host}: {e.strerror or e}"
        why = "no address"
        for family, kind, proto, _name, addr in infos:
            sock = socket.socket(family, kind, proto)
            sock.setblocking(False)
            code = sock.connect_ex(addr)
            waited = 0.0
            while code in (errno.EINPROGRESS, errno.EWOULDBLOCK, errno.EALREADY) \
                    and waited < self.connect_timeout_s and not self._stop.is_set():
                _, w, _ = select.select([], [sock], [], SLICE_S)
                waited += SLICE_S
                if w:
                    code = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                    break
            if code == 0:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)  # a peer that vanished
                sock.setblocking(True)
                sock.settimeout(2.0)  # sends only; reads wait in select
                return sock, ""
            reset_close(sock)
            if self._stop.is_set():
                return None, "stopped"
            why = "timed out" if code in (errno.EINPROGRESS, errno.EWOULDBLOCK, errno.EALREADY) \
                else os.strerror(code).lower()
        return None, why

    def _wait_retry(self, attempt: int, why: str, said: bool = False) -> bool:
        """Say why (unless ``said``: a record just said it) and wait the backoff; True when
        stopped meanwhile."""
        delay = backoff(attempt, self.first_backoff_s, self.max_backoff_s)
        text = f"retrying in {delay:g} s" if said else f"{why}; retrying in {delay:g} s"
        self._emit("reconnecting", f"{self.peer}: {text}", delay_s=delay)
        self._set_state(f"reconnecting to {self.peer} in {delay:g} s ({why})")
        return self._sleep(delay)


class ResolveClient(_Client):
    """Client of the Resolve protocol; see the module docstring."""

    source = "resolve"
    thread_name = "testcard-remote-resolve"

    def __init__(self, host: str, port: int = resolve.DEFAULT_PORT, *, on_patch,
                 video_levels: bool = False, **kwargs) -> None:
        super().__init__(host, port, on_patch, **kwargs)
        self.video_levels = video_levels

    def _run(self) -> None:
        attempt = 0
        while not self._stop.is_set():
            self._set_state(f"connecting to {self.peer}")
            sock, why = self._connect()
            if sock is None:
                if self._stop.is_set() or self._wait_retry(attempt, why):
                    return
                attempt += 1
                continue
            attempt = 0
            self._sock = sock
            self._emit("connected", f"connected to {self.peer}")
            self._set_state(f"connected to {self.peer}")
            reason = self._read(sock)
            self._sock = None
            reset_close(sock)
            if self._stop.is_set():
                self._emit("disconnected", f"disconnected from {self.peer} (asked to)")
                return
            self._emit("disconnected", f"{self.peer}: {reason}")
            if self._wait_retry(0, reason, said=True):   # the reason once, not again in the retry
                return

    def _read(self, sock: socket.socket) -> str:
        framer = resolve.ResolveFramer()
        last = None
        while True:
            data = self._recv(sock)
            if data is None:
                return "stopped"
            if not data:
                return "the calibration program closed the connection"
            for message in framer.feed(data):
                if isinstance(message, RemoteError):
                    self._emit("refused", str(message))
                    continue
                if message == last:
                    self._emit("repeat", "the same patch again; it is already shown")
                    continue
                last = message
                try:
                    patch = resolve.parse_resolve(message, video_levels=self.video_levels,
                                                  received_s=self.clock())
                except RemoteError as e:
                    self._emit("refused", str(e), raw=message[:200])
                    continue
                self._deliver(patch)
            if framer.broken:
                return "the stream cannot be read on (bad message length)"


class ArgyllWebClient(_Client):
    """Client of ArgyllCMS's web display; see the module docstring."""

    source = "argyll-web"
    thread_name = "testcard-remote-argyll-web"

    def __init__(self, url: str, *, on_patch, video_levels: bool = False,
                 first_backoff_s: float = 0.25, max_backoff_s: float = 5.0,
                 reply_timeout_s: float = REPLY_TIMEOUT_S, **kwargs) -> None:
        host, port = argyll_web.parse_url(url)
        super().__init__(host, port, on_patch, first_backoff_s=first_backoff_s,
                         max_backoff_s=max_backoff_s, **kwargs)
        if not 0 < reply_timeout_s < float("inf"):
            raise ValueError(f"reply timeout: expected a positive number of seconds, got {reply_timeout_s!r}")
        self.video_levels = video_levels
        self.reply_timeout_s = float(reply_timeout_s)
        self.polls = 0

    def _run(self) -> None:
        attempt = 0
        while not self._stop.is_set():
            self._set_state(f"waiting for dispwin at {self.peer}" if self.polls == 0
                            else f"polling {self.peer} (poll {self.polls + 1})")
            sock, why = self._connect()
            if sock is None:
                if self._stop.is_set() or self._wait_retry(attempt, why):
                    return
                attempt += 1
                continue
            attempt = 0
            self._sock = sock
            data = self._exchange(sock)
            self._sock = None
            reset_close(sock)
            if data is None:
                return
            if isinstance(data, str):            # an answer that never ended
                self._emit("refused", data)
                if self._wait_retry(1, "the answer did not end"):
                    return
                continue
            self.polls += 1
            try:
                patch = argyll_web.parse_response(data, video_levels=self.video_levels,
                                                  received_s=self.clock())
            except RemoteError as e:
                self._emit("refused", str(e), raw=data[:200].decode("latin-1"))
                if self._wait_retry(1, "no colour in the answer"):
                    return
                continue
            self._set_state(f"connected to {self.peer}: patch {self.polls}")
            if not self._show(patch):
                return
            # the next poll is the acknowledgement: Argyll measures once it arrives

    def _show(self, patch) -> bool:
        """Until the patch has been presented (then True; False when stopping): the next poll
        acknowledges it, so a patch not presented is shown again, never acknowledged."""
        while not self._stop.is_set():
            ack = self._deliver(patch)
            why = "the app refused it" if ack is None else self._await(ack, patch)
            if why is None:
                return True
            if self._stop.is_set():
                break
            self._emit("reshow", f"{patch.describe()} was not presented ({why}); showing it again "
                                 f"in {RESHOW_S:g} s, and not polling before it is on screen")
            if self._sleep(RESHOW_S):
                break
        return False

    def _exchange(self, sock: socket.socket) -> bytes | str | None:
        """Send one poll and read until the server closes: the answer, None when stopping, or
        one sentence when an answer begun did not end within ``reply_timeout_s``."""
        if not self._send(sock, argyll_web.poll_request(self.polls, self.host, self.port)):
            return b""
        chunks: list[bytes] = []
        size, ends = 0, None
        while True:
            if ends is not None and time.monotonic() >= ends:
                return (f"argyll-web: the answer from {self.peer} did not end within "
                        f"{self.reply_timeout_s:g} s ({size} bytes so far); polling again")
            data = self._recv_within(sock, ends)
            if data is None:
                return None
            if data is _NOTHING:
                continue
            if not data:
                return b"".join(chunks)
            if ends is None:                    # Argyll holds a poll until it has a patch;
                ends = time.monotonic() + self.reply_timeout_s   # once it answers, it closes
            chunks.append(data)
            size += len(data)
            if size > argyll_web.MAX_RESPONSE:
                return b"".join(chunks)  # refused by the parser, with its size

    def _recv_within(self, sock: socket.socket, ends: float | None):
        """One slice of reading: bytes, ``b""`` (closed), :data:`_NOTHING` (nothing yet; the
        caller looks at its deadline), or None when stopping."""
        if self._stop.is_set():
            return None
        try:
            r, _, _ = select.select([sock], [], [], SLICE_S)
        except (OSError, ValueError):
            return b""
        if not r:
            return _NOTHING
        try:
            return sock.recv(4096)
        except BlockingIOError:
            return _NOTHING
        except OSError:
            return b""


_NOTHING = object()   # a read slice that brought nothing
