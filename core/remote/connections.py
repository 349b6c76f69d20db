"""The connections an operator asks for, checked before anything opens, and their transports.

``testcard serve`` and the GUI's Remote menu ask the same way: a kind and where, as typed
(``--resolve HOST[:PORT]``, ``--argyll-web URL``, ``--pgenerator [ADDR:]PORT``,
``--upgci [ADDR:]PORT``, ``--discovery``).  :func:`parse_connection` turns that into a
:class:`Connection` or one ``ValueError`` naming the option; :func:`make_transport` builds its
transport (nothing is bound or connected until the transport's ``start()``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.remote import argyll_web, pgenerator, resolve, upgci
from core.remote.address import LOOPBACK, AllowList, parse_host_port, parse_listen
from core.remote.clients import ArgyllWebClient, ResolveClient
from core.remote.discovery import DiscoveryResponder
from core.remote.servers import DEFAULT_REQUEST_TIMEOUT_S, PGeneratorServer, UpgciServer
from core.remote.transport import DEFAULT_ACK_TIMEOUT_S, Transport, show_address

KINDS = ("resolve", "argyll-web", "pgenerator", "upgci", "discovery")
OPTIONS = {"resolve": "--resolve", "argyll-web": "--argyll-web", "pgenerator": "--pgenerator",
           "upgci": "--upgci", "discovery": "--discovery"}
TITLES = {"resolve": "Resolve client (DisplayCAL)", "argyll-web": "ArgyllCMS web display client",
          "pgenerator": "PGenerator server (HCFR)", "upgci": "UPGCI server (Calman, ColourSpace)",
          "discovery": "PGenerator discovery"}
# what each kind's address defaults to, as the menu's dialog offers it
DEFAULT_ADDRESSES = {"resolve": f"{LOOPBACK}:{resolve.DEFAULT_PORT}",
                     "argyll-web": f"http://{LOOPBACK}:{argyll_web.DEFAULT_PORT}",
                     "pgenerator": str(pgenerator.DEFAULT_PORT), "upgci": str(upgci.DEFAULT_PORT),
                     "discovery": str(pgenerator.DISCOVERY_PORT)}


@dataclass(frozen=True)
class Connection:
    """One connection, checked: its kind and the address it connects to or listens on."""

    kind: str
    host: str
    port: int
    url: str | None = None        # argyll-web: as typed

    @property
    def listens(self) -> bool:
        return self.kind in ("pgenerator", "upgci", "discovery")

    @property
    def address(self) -> str:
        return show_address((self.host, self.port))

    @property
    def key(self) -> str:
        """``"pgenerator 127.0.0.1:85"``: tells two connections apart (menus, the dock)."""
        return f"{self.kind} {self.address}"

    def describe(self) -> str:
        where = "listening on" if self.listens else "to"
        return f"{TITLES[self.kind]} {where} {self.address}"


def parse_connection(kind: str, text: str | None = None) -> Connection:
    """``kind`` (one of :data:`KINDS`) at ``text`` as typed (None: the kind's default), checked;
    one ``ValueError`` naming the option otherwise."""
    if kind not in KINDS:
        raise ValueError(f"remote connection: {kind!r:.40} is not one of {', '.join(KINDS)}")
    option = OPTIONS[kind]
    if text is not None and not str(text).strip():
        # an empty value is a mistake (a variable that expanded to nothing), not "the default"
        raise ValueError(f"{option}: expected an address, got {str(text)!r:.40} (leave the value out "
                         "for the default)" if kind in ("pgenerator", "upgci", "discovery")
                         else f"{option}: expected an address, got {str(text)!r:.40}")
    text = DEFAULT_ADDRESSES[kind] if text is None else str(text)
    if kind == "resolve":
        host, port = parse_host_port(text, resolve.DEFAULT_PORT, option)
        return Connection(kind, host, port)
    if kind == "argyll-web":
        host, port = argyll_web.parse_url(text)
        return Connection(kind, host, port, url=f"http://{show_address((host, port))}")
    host, port = parse_listen(text, option)
    return Connection(kind, host, port)


def discovery_for(server: Connection) -> Connection:
    """Discovery answered on the PGenerator server's address (port 1977, UDP): bound to
    127.0.0.1 it is only found from this machine; a server on 0.0.0.0 is found on the network."""
    return Connection("discovery", server.host, pgenerator.DISCOVERY_PORT)


def make_transport(conn: Connection, on_patch, *, resolution: tuple[int, int],
                   video_levels: bool = False, allow=(), on_event=None, on_state=None,
                   clock=None, ack_timeout_s: float | None = DEFAULT_ACK_TIMEOUT_S,
                   refresh_hz: float = 60.0, idle_timeout_s: float | None = None,
                   request_timeout_s: float = DEFAULT_REQUEST_TIMEOUT_S) -> Transport:
    """The transport of ``conn``, not started.  ``video_levels``: the code values are video
    levels (none of the protocols says so on the wire; the operator's ``--limited``);
    ``resolution``: what PGenerator's and UPGCI's clients are told the screen is; ``allow``:
    the client addresses a server accepts (empty: any); ``idle_timeout_s`` and
    ``request_timeout_s``: the servers' rules (:mod:`core.remote.servers`)."""
    common = {"on_event": on_event, "on_state": on_state, "ack_timeout_s": ack_timeout_s}
    if clock is not None:
        common["clock"] = clock
    allow = allow if isinstance(allow, AllowList) else AllowList(allow)
    timeouts: dict[str, Any] = {"idle_timeout_s": idle_timeout_s, "request_timeout_s": request_timeout_s}
    if conn.kind == "resolve":
        return ResolveClient(conn.host, conn.port, on_patch=on_patch, video_levels=video_levels, **common)
    if conn.kind == "argyll-web":
        return ArgyllWebClient(conn.url or f"http://{conn.address}", on_patch=on_patch,
                               video_levels=video_levels, **common)
    if conn.kind == "pgenerator":
        return PGeneratorServer((conn.host, conn.port), on_patch=on_patch, resolution=resolution,
                                video_levels=video_levels, allow=allow, **timeouts, **common)
    if conn.kind == "upgci":
        return UpgciServer((conn.host, conn.port), on_patch=on_patch, resolution=resolution,
                           refresh_hz=max(1, round(refresh_hz)), video_levels=video_levels,
                           allow=allow, **timeouts, **common)
    return DiscoveryResponder((conn.host, conn.port), allow=allow, **common)
