"""Addresses on a command line: ``HOST[:PORT]`` to connect to, ``[ADDR:]PORT`` to listen on, and
the allow-list of client addresses.  Each refusal is one ``ValueError`` naming the option."""

from __future__ import annotations

import ipaddress
import re

LOOPBACK = "127.0.0.1"
_HOST = re.compile(r"[A-Za-z0-9._-]{1,253}")
_PORT = re.compile(r"[0-9]{1,5}")


def _port(text: str, what: str) -> int:
    text = text.strip()
    if not _PORT.fullmatch(text) or int(text) > 65535:
        raise ValueError(f"{what}: the port must be a number 0..65535, got {text[:20]!r}")
    return int(text)


def _host(text: str, what: str) -> str:
    text = text.strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
        try:
            return str(ipaddress.IPv6Address(text))
        except ValueError:
            raise ValueError(f"{what}: {text[:60]!r} is not an IPv6 address") from None
    if not _HOST.fullmatch(text):
        raise ValueError(f"{what}: {text[:60]!r} is not a host name or address")
    return text


def _split(text: str) -> tuple[str, str | None]:
    """``host:port``, ``[v6]:port``, ``host`` or ``[v6]``."""
    if text.startswith("["):
        end = text.find("]")
        if end < 0:
            return text, None
        rest = text[end + 1:]
        return text[:end + 1], rest[1:] if rest.startswith(":") else (rest or None)
    if text.count(":") == 1:
        host, port = text.split(":")
        return host, port
    return text, None


def parse_host_port(text: str, default_port: int, what: str) -> tuple[str, int]:
    """``HOST[:PORT]`` (``[v6]:PORT`` for IPv6) to connect to."""
    if not isinstance(text, str) or not text.strip() or len(text) > 300:
        raise ValueError(f"{what}: expected HOST[:PORT], got {text!r:.60}")
    host, port = _split(text.strip())
    if port is not None and not port:
        raise ValueError(f"{what}: {text[:60]!r} ends in ':' without a port")
    return _host(host, what), _port(port, what) if port is not None else default_port


def parse_listen(text: str, what: str) -> tuple[str, int]:
    """``[ADDR:]PORT`` to listen on; without an address, loopback only (127.0.0.1)."""
    if not isinstance(text, str) or not text.strip() or len(text) > 300:
        raise ValueError(f"{what}: expected [ADDR:]PORT, got {text!r:.60}")
    text = text.strip()
    if _PORT.fullmatch(text):
        return LOOPBACK, _port(text, what)
    host, port = _split(text)
    if not port:
        raise ValueError(f"{what}: expected [ADDR:]PORT, got {text[:60]!r}")
    return _host(host, what), _port(port, what)


class AllowList:
    """Client addresses (``192.168.1.20``) or networks (``192.168.1.0/24``) a server accepts;
    empty accepts everyone (a server binds loopback unless told otherwise)."""

    def __init__(self, entries=(), what: str = "--allow") -> None:
        nets = []
        for e in entries or ():
            try:
                nets.append(ipaddress.ip_network(str(e).strip(), strict=False))
            except ValueError:
                raise ValueError(f"{what}: {str(e)[:60]!r} is not an address or network "
                                 "such as 192.168.1.20 or 192.168.1.0/24") from None
        self.networks = tuple(nets)

    def __bool__(self) -> bool:
        return bool(self.networks)

    def allows(self, address: str) -> bool:
        if not self.networks:
            return True
        try:
            ip = ipaddress.ip_address(address.split("%", 1)[0])
        except ValueError:
            return False
        if ip.version == 6 and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        return any(ip.version == n.version and ip in n for n in self.networks)

    def __str__(self) -> str:
        return ", ".join(map(str, self.networks)) or "everyone"
