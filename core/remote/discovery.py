"""PGenerator's UDP discovery: ``Who is a PGenerator`` answered ``I am a PGenerator NAME``
(port 1977), on the address of the PGenerator server it answers for."""

from __future__ import annotations

import socket

from core.remote import pgenerator
from core.remote.address import LOOPBACK
from core.remote.servers import Server
from core.remote.transport import show_address


class DiscoveryResponder(Server):
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
