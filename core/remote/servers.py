"""The transports where calibration software connects to testcard: PGenerator's classic protocol,
the Calman-style UPGCI protocol, and PGenerator's UDP discovery.

A server binds in ``start()`` (so a taken or bad address is one :class:`RemoteError` at once),
to 127.0.0.1 unless an address is given, and says where it listens.  An optional allow-list
refuses other client addresses (closed with a reset, and a log line).  Each client has its own
thread; at most ``max_clients`` at once.  Requests are bounded (4 KiB PGenerator, 1 KiB UPGCI);
bad input is a log line and ``ERR`` (PGenerator) or a clean close (UPGCI, which has no error
reply), never a crash.  A patch is acknowledged on the wire (PGenerator's ``OK``, UPGCI's 0x06)
only once the app has presented it, or after the acknowledgement timeout with a log line.
"""

from __future__ import annotations

import socket
import threading

from core import version as testcard_version
from core.remote import pgenerator, upgci
from core.remote.address import LOOPBACK, AllowList
from core.remote.patch import RemoteError
from core.remote.transport import JOIN_S, Transport, reset_close, show_address


class _Server(Transport):
    """Bind, accept, allow-list, one thread per client."""

    kind = socket.SOCK_STREAM
    title = "server"

    def __init__(self, address: tuple[str, int], on_patch=None, *, allow=(), max_clients: int = 4,
                 **kwargs) -> None:
        super().__init__(on_patch, **kwargs)
        self.address = (address[0] or LOOPBACK, int(address[1]))
        self.allow = allow if isinstance(allow, AllowList) else AllowList(allow)
        self.max_clients = max_clients
        self.bound: tuple[str, int] | None = None
        self._listener: socket.socket | None = None
        self._clients: dict[threading.Thread, tuple[socket.socket, str]] = {}
        self._clients_lock = threading.Lock()

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
        self.bound = tuple(sock.getsockname()[:2])  # type: ignore[assignment]
        allowed = f", clients from {self.allow} only" if self.allow else ""
        self._emit("listening", f"{self.title} listening on {show_address(self.bound)}{allowed}",
                   address=self.bound[0], port=self.bound[1])
        self._show_clients()

    def _show_clients(self) -> None:
        with self._clients_lock:
            peers = [peer for _sock, peer in self._clients.values()]
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
            threads = list(self._clients)
        for t in threads:
            t.join(JOIN_S / max(1, len(threads)))

    def _refuse(self, conn: socket.socket, peer: str, why: str) -> None:
        self._emit("refused", f"refused {peer}: {why}", peer=peer)
        reset_close(conn)

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
            with self._clients_lock:
                busy = len(self._clients) >= self.max_clients
            if busy:
                self._refuse(conn, peer, f"already {self.max_clients} clients")
                continue
            thread = threading.Thread(target=self._client, args=(conn, peer), daemon=True,
                                      name=f"{self.thread_name}-client")
            with self._clients_lock:
                self._clients[thread] = (conn, peer)
            thread.start()

    def _client(self, conn: socket.socket, peer: str) -> None:
        self._emit("connected", f"{peer} connected", peer=peer)
        self._show_clients()
        reason = "ended"
        try:
            conn.settimeout(2.0)  # sends only; reads wait in select
            reason = self._session(conn, peer)
        except Exception as e:  # one client's fault never stops the server
            reason = f"closed after an unexpected error: {type(e).__name__}: {e}"
            self._emit("error", f"{peer}: {reason}", peer=peer)
        finally:
            if self._stop.is_set():
                reset_close(conn)
            else:
                try:
                    conn.shutdown(socket.SHUT_WR)
                except OSError:
                    pass
                conn.close()
            with self._clients_lock:
                self._clients.pop(threading.current_thread(), None)
            self._emit("disconnected", f"{peer}: {reason}", peer=peer)
            if not self._stop.is_set():
                self._show_clients()

    def _session(self, conn: socket.socket, peer: str) -> str:
        raise NotImplementedError


class PGeneratorServer(_Server):
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

    def _session(self, conn: socket.socket, peer: str) -> str:
        framer = pgenerator.PGeneratorFramer()
        while True:
            data = self._recv(conn)
            if data is None:
                return "stopped"
            if not data:
                return "the client closed the connection"
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
                    ack = self._deliver(answer.patch)
                    if ack is None:
                        reply = "ERR"
                    elif not self._await(ack, answer.patch) and self._stop.is_set():
                        return "stopped"
                if reply is not None and not self._send(conn, pgenerator.frame_request(reply)):
                    return "sending failed"
                if answer.close:
                    return "the client sent QUIT"
            if framer.broken:  # answered ERR above
                return f"a request over {pgenerator.MAX_REQUEST} bytes; closed"


class UpgciServer(_Server):
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

    def _session(self, conn: socket.socket, peer: str) -> str:
        framer = upgci.UpgciFramer()
        session = upgci.UpgciSession(resolution=self.resolution, refresh_hz=self.refresh_hz,
                                     video_levels=self.video_levels, serial=self.serial,
                                     firmware=self.version)
        while True:
            data = self._recv(conn)
            if data is None:
                return "stopped"
            if not data:
                return "the client closed the connection"
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
                    ack = self._deliver(answer.patch)
                    if ack is None:
                        return "the patch could not be shown; closed (no error reply in UPGCI)"
                    if not self._await(ack, answer.patch) and self._stop.is_set():
                        return "stopped"
                if answer.reply is not None and not self._send(conn, answer.reply):
                    return "sending failed"
                if answer.close:
                    return f"the client sent {request.partition(':')[0][:20]}" if answer.reply \
                        else "closed after a malformed patch"
            if framer.broken:
                return f"a request over {upgci.MAX_REQUEST} bytes; closed"


class DiscoveryResponder(_Server):
    """Answers PGenerator's UDP discovery (``Who is a PGenerator`` -> ``I am a PGenerator NAME``).
    Binds 127.0.0.1 unless given an address; to be found on a network, bind 0.0.0.0."""

    kind = socket.SOCK_DGRAM
    source = "pgenerator"
    title = "PGenerator discovery"
    thread_name = "testcard-remote-discovery"

    def __init__(self, address: tuple[str, int] = (LOOPBACK, pgenerator.DISCOVERY_PORT), *,
                 name: str = "testcard", **kwargs) -> None:
        super().__init__(address, None, **kwargs)
        self.name = name

    def _prepare(self) -> None:
        super()._prepare()
        if self._listener is not None:
            self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)

    def _run(self) -> None:
        sock = self._listener
        while sock is not None and not self._stop.is_set():
            if self._readable(sock) is None:
                return
            try:
                data, addr = sock.recvfrom(2048)
            except OSError:
                continue
            peer = show_address(addr)
            if not self.allow.allows(addr[0]):
                self._emit("refused", f"discovery from {peer} ignored: not on the allow-list", peer=peer)
                continue
            reply = pgenerator.discovery_reply(data, self.name)
            if reply is None:
                continue
            try:
                sock.sendto(reply, addr)
                self._emit("discovery", f"answered discovery from {peer}", peer=peer)
            except OSError as e:
                self._emit("error", f"cannot answer discovery from {peer}: {e.strerror or e}")
