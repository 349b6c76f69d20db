"""The transports where calibration software connects to testcard: PGenerator's classic protocol
and the Calman-style UPGCI protocol (PGenerator's UDP discovery: :mod:`core.remote.discovery`).

A server binds in ``start()`` (so a taken or bad address is one :class:`RemoteError` at once),
to 127.0.0.1 unless an address is given, and says where it listens.  An optional allow-list
refuses other client addresses (closed with a reset, and a log line).  Each client has its own
thread; at most ``max_clients`` at once.  Requests are bounded (4 KiB PGenerator, 1 KiB UPGCI);
bad input is a log line and ``ERR`` (PGenerator) or a clean close (UPGCI, which has no error
reply), never a crash.  A patch is acknowledged on the wire (PGenerator's ``OK``, UPGCI's 0x06)
only once the app has presented it; a patch replaced before it was presented, or not presented
within the acknowledgement timeout, is answered ``ERR`` (PGenerator) or closes the connection
(UPGCI), with the reason in the log.

A peer cannot hold the server (the rules, in this order):

* **slots**: an idle client is never closed for idleness alone while a slot is free (a
  calibration program may sit for minutes between patches while the meter is placed).  When
  every slot is taken and another client connects, the client idle longest -- no request of
  its own being shown, counted from its last complete request -- is closed to make room, with
  the reason in the log.  Only when every client has a patch waiting to be shown is the new
  one refused.
* ``idle_timeout_s`` (default None: never): a client that sends no request for this long is
  closed even with slots free.
* ``request_timeout_s`` (default 10 s): a request begun must end within this long (a sender
  that dribbles bytes, or stops half-way, is closed).
* a reply the peer does not read within 2 s closes it; every wait is sliced, so ``stop()``
  returns within a fraction of a second.
"""

from __future__ import annotations

import select
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Literal, overload

from core import version as testcard_version
from core.remote import pgenerator, upgci
from core.remote.address import LOOPBACK, AllowList
from core.remote.patch import RemoteError
from core.remote.transport import SLICE_S, Transport, reset_close, show_address

DEFAULT_REQUEST_TIMEOUT_S = 10.0
MAX_TIMEOUT_S = 86400.0


@overload
def check_timeout(value, what: str, *, none_ok: Literal[False]) -> float: ...
@overload
def check_timeout(value, what: str, *, none_ok: bool = True) -> float | None: ...
def check_timeout(value, what: str, *, none_ok: bool = True) -> float | None:
    """A timeout in seconds: finite, above 0, at most a day (None: none, where allowed)."""
    if value is None and none_ok:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= MAX_TIMEOUT_S:
        raise ValueError(f"{what}: expected a number of seconds above 0 and at most "
                         f"{MAX_TIMEOUT_S:g}, got {value!r}")
    return float(value)


@dataclass(eq=False)
class _Peer:
    """One client's slot: its socket, when it last finished a request, whether a patch of its
    own is being shown (it is then never closed to make room), and why it is being closed."""

    conn: socket.socket
    name: str
    last_s: float
    busy: bool = False
    closing: str | None = None
    thread: threading.Thread | None = field(default=None, repr=False)


class Server(Transport):
    """Bind, accept, allow-list, one thread per client, the slot and timeout rules."""

    kind = socket.SOCK_STREAM
    title = "server"

    def __init__(self, address: tuple[str, int], on_patch=None, *, allow=(), max_clients: int = 4,
                 idle_timeout_s: float | None = None,
                 request_timeout_s: float = DEFAULT_REQUEST_TIMEOUT_S, **kwargs) -> None:
        super().__init__(on_patch, **kwargs)
        if isinstance(max_clients, bool) or not isinstance(max_clients, int) or max_clients < 1:
            raise ValueError(f"max clients: expected a whole number above 0, got {max_clients!r}")
        self.address = (address[0] or LOOPBACK, int(address[1]))
        self.allow = allow if isinstance(allow, AllowList) else AllowList(allow)
        self.max_clients = max_clients
        self.idle_timeout_s = check_timeout(idle_timeout_s, "idle timeout")
        self.request_timeout_s = check_timeout(request_timeout_s, "request timeout", none_ok=False)
        self.bound: tuple[str, int] | None = None
        self._listener: socket.socket | None = None
        self._peers: list[_Peer] = []
        self._clients_lock = threading.Lock()
        self._monotonic = time.monotonic       # socket timeouts: not the patches' clock

    def _prepare(self) -> None:
        host, port = self.address
        where = show_address(self.address)
        try:
            family, kind, proto, _name, addr = socket.getaddrinfo(
                host, port, type=self.kind, flags=socket.AI_PASSIVE)[0]
            sock = socket.socket(family, kind, proto)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(addr)
            if self.kind == socket.SOCK_STREAM:
                sock.listen(8)
        except OSError as e:
            raise RemoteError(f"{self.source}: cannot listen on {where}: "
                              f"{(e.strerror or str(e)).lower()}") from None
        self._listener = sock
        self.bound = tuple(sock.getsockname()[:2])
        allowed = f", clients from {self.allow} only" if self.allow else ""
        self._emit("listening", f"{self.title} listening on {show_address(self.bound)}{allowed}",
                   address=self.bound[0], port=self.bound[1])
        self._show_clients()

    def _show_clients(self) -> None:
        with self._clients_lock:
            peers = [p.name for p in self._peers if p.closing is None]
        if self.bound is None:
            return
        if not peers:
            self._set_state(f"listening on {show_address(self.bound)}")
        else:
            more = f" and {len(peers) - 1} more" if len(peers) > 1 else ""
            self._set_state(f"connected to {peers[0]}{more}")

    def _interrupt(self) -> None:
        # Every wait is sliced, so the threads see the stop flag by themselves; no shutdown()
        # here, which would send a graceful FIN before the reset the client threads close with.
        listener = self._listener
        if listener is not None:
            try:
                listener.close()
            except OSError:
                pass

    def _cleanup(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None:
            listener.close()
        with self._clients_lock:
            threads = [p.thread for p in self._peers if p.thread is not None]
        deadline = self._monotonic() + 0.5
        for t in threads:
            t.join(max(0.0, deadline - self._monotonic()))

    def _refuse(self, conn: socket.socket, peer: str, why: str) -> None:
        self._emit("refused", f"refused {peer}: {why}", peer=peer)
        reset_close(conn)

    def _make_room(self, newcomer: str) -> bool:
        """All slots taken: close the client idle longest (none with a patch being shown) to
        make room for ``newcomer``; False when every client is busy."""
        now = self._monotonic()
        with self._clients_lock:
            live = [p for p in self._peers if p.closing is None]
            if len(live) < self.max_clients:
                return True
            idle = [p for p in live if not p.busy]
            if not idle:
                return False
            victim = min(idle, key=lambda p: p.last_s)
            victim.closing = (f"closed to make room for {newcomer}: idle for {now - victim.last_s:.1f} s "
                              f"with all {self.max_clients} slots taken")
        return True

    def _run(self) -> None:
        listener = self._listener
        while listener is not None and not self._stop.is_set():
            if self._readable(listener) is None:
                return
            try:
                conn, addr = listener.accept()
            except OSError:
                continue
            peer = show_address(addr)
            if not self.allow.allows(addr[0]):
                self._refuse(conn, peer, "not on the allow-list")
                continue
            if not self._make_room(peer):
                self._refuse(conn, peer, f"all {self.max_clients} clients have a patch being shown")
                continue
            record = _Peer(conn, peer, self._monotonic())
            record.thread = threading.Thread(target=self._client, args=(record,), daemon=True,
                                             name=f"{self.thread_name}-client")
            with self._clients_lock:
                self._peers.append(record)
            record.thread.start()

    def _client(self, record: _Peer) -> None:
        conn, peer = record.conn, record.name
        self._emit("connected", f"{peer} connected", peer=peer)
        self._show_clients()
        reason = "ended"
        try:
            conn.settimeout(2.0)  # sends and reads wait in select, sliced
            reason = self._session(record)
        except Exception as e:  # one client's fault never stops the server
            reason = f"closed after an unexpected error: {type(e).__name__}: {e}"
            self._emit("error", f"{peer}: {reason}", peer=peer)
        finally:
            if self._stop.is_set() or record.closing is not None:
                reset_close(conn)
            else:
                try:
                    conn.shutdown(socket.SHUT_WR)
                except OSError:
                    pass
                conn.close()
            with self._clients_lock:
                if record in self._peers:
                    self._peers.remove(record)
            self._emit("disconnected", f"{peer}: {reason}", peer=peer)
            if not self._stop.is_set():
                self._show_clients()

    def _read(self, record: _Peer, framer) -> bytes | None:
        """The client's next bytes: ``b""`` when it closed or must be closed (then
        ``record.closing`` says why), None when stopping."""
        conn = record.conn
        began = self._monotonic() if framer.pending else None
        while not self._stop.is_set():
            if record.closing is not None:
                return b""
            data = self._recv_slice(conn)
            if data is not None:
                return data
            now = self._monotonic()
            if began is not None and now - began >= self.request_timeout_s:
                record.closing = f"a request begun {self.request_timeout_s:g} s ago has not ended; closed"
            elif began is None and self.idle_timeout_s is not None \
                    and now - record.last_s >= self.idle_timeout_s:
                record.closing = f"no request for {self.idle_timeout_s:g} s (the idle timeout); closed"
        return None

    def _recv_slice(self, conn: socket.socket) -> bytes | None:
        """What one slice brings: bytes, ``b""`` (closed or reset), or None (nothing yet)."""
        try:
            r, _, _ = select.select([conn], [], [], SLICE_S)
        except (OSError, ValueError):
            return b""
        if not r:
            return None
        try:
            return conn.recv(65536)
        except BlockingIOError:
            return None
        except (ConnectionError, TimeoutError, OSError):
            return b""

    def _finished(self, record: _Peer) -> None:
        record.last_s = self._monotonic()

    def _session(self, record: _Peer) -> str:
        raise NotImplementedError


class PGeneratorServer(Server):
    """Server of PGenerator's classic protocol (see :mod:`core.remote.pgenerator`)."""

    source = "pgenerator"
    title = "PGenerator server"
    thread_name = "testcard-remote-pgenerator"

    def __init__(self, address: tuple[str, int] = (LOOPBACK, pgenerator.DEFAULT_PORT), *,
                 on_patch, resolution: tuple[int, int], video_levels: bool = False,
                 version: str | None = None, **kwargs) -> None:
        super().__init__(address, on_patch, **kwargs)
        self.resolution = resolution
        self.video_levels = video_levels
        self.version = version or f"testcard-{testcard_version()}"

    def _session(self, record: _Peer) -> str:
        conn, peer = record.conn, record.name
        framer = pgenerator.PGeneratorFramer()
        while True:
            data = self._read(record, framer)
            if data is None:
                return "stopped"
            if not data:
                return record.closing or "the client closed the connection"
            for request in framer.feed(data):
                if isinstance(request, RemoteError):
                    self._emit("refused", str(request), peer=peer)
                    if not self._send(conn, pgenerator.frame_request("ERR")):
                        return "sending failed"
                    continue
                self._emit("command", request[:200], peer=peer)
                answer = pgenerator.respond(request, resolution=self.resolution, version=self.version,
                                            video_levels=self.video_levels, received_s=self.clock())
                if answer.note:
                    self._emit("refused" if answer.reply == "ERR" else "ignored", answer.note, peer=peer)
                reply = answer.reply
                if answer.patch is not None:
                    record.busy = True
                    try:
                        ack = self._deliver(answer.patch)
                        # OK only for a patch presented; replaced, refused or timed out: ERR
                        if ack is None or self._await(ack, answer.patch) is not None:
                            reply = "ERR"
                    finally:
                        record.busy = False
                    if self._stop.is_set():
                        return "stopped"
                if reply is not None and not self._send(conn, pgenerator.frame_request(reply)):
                    return "sending failed"
                self._finished(record)
                if answer.close:
                    return "the client sent QUIT"
            if framer.broken:  # answered ERR above
                return f"a request over {pgenerator.MAX_REQUEST} bytes; closed"


class UpgciServer(Server):
    """Server of the Calman-style protocol (see :mod:`core.remote.upgci`)."""

    source = "upgci"
    title = "UPGCI (Calman-style) server"
    thread_name = "testcard-remote-upgci"

    def __init__(self, address: tuple[str, int] = (LOOPBACK, upgci.DEFAULT_PORT), *, on_patch,
                 resolution: tuple[int, int], refresh_hz: int = 60, video_levels: bool = False,
                 version: str | None = None, serial: str = "testcard", **kwargs) -> None:
        super().__init__(address, on_patch, **kwargs)
        self.resolution = resolution
        self.refresh_hz = refresh_hz
        self.video_levels = video_levels
        self.version = version or f"testcard-{testcard_version()}"
        self.serial = serial

    def _session(self, record: _Peer) -> str:
        conn, peer = record.conn, record.name
        framer = upgci.UpgciFramer()
        session = upgci.UpgciSession(resolution=self.resolution, refresh_hz=self.refresh_hz,
                                     video_levels=self.video_levels, serial=self.serial,
                                     firmware=self.version)
        while True:
            data = self._read(record, framer)
            if data is None:
                return "stopped"
            if not data:
                return record.closing or "the client closed the connection"
            for request in framer.feed(data):
                if isinstance(request, RemoteError):
                    self._emit("refused", f"{request}; closing", peer=peer)
                    return "a request that cannot be read; closed"
                self._emit("command", request[:200], peer=peer)
                answer = upgci.respond(request, session, received_s=self.clock())
                if answer.note:
                    self._emit("refused" if answer.close and answer.reply is None else "ignored",
                               answer.note, peer=peer)
                if answer.patch is not None:
                    record.busy = True
                    try:
                        ack = self._deliver(answer.patch)
                        why = "the app refused it" if ack is None else self._await(ack, answer.patch)
                    finally:
                        record.busy = False
                    if self._stop.is_set():
                        return "stopped"
                    if why is not None:    # no error reply in UPGCI: never the ACK, close instead
                        record.closing = (f"the patch was not presented ({why}); closed, since this "
                                          "protocol has no error reply")
                        self._emit("refused", f"{answer.patch.describe()}: {record.closing}", peer=peer)
                        return record.closing
                if answer.reply is not None and not self._send(conn, answer.reply):
                    return "sending failed"
                self._finished(record)
                if answer.close:
                    return f"the client sent {request.partition(':')[0][:20]}" if answer.reply \
                        else (answer.note or "closed")
            if framer.broken:
                return f"a request over {upgci.MAX_REQUEST} bytes; closed"
