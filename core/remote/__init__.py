"""Remote: calibration software drives testcard as a network pattern generator (no Qt).

The shared vocabulary is :class:`RemotePatch` (a patch as received: code values at its own bit
depth, a rectangle in screen fractions), :class:`RemoteError` (one sentence on a bad message)
and :func:`to_spec_params` (a patch as a registry pattern for a surface).  Each protocol has a
pure parser: :mod:`~core.remote.resolve` (Resolve XML over length framing),
:mod:`~core.remote.pgenerator` (PGenerator's text protocol and discovery),
:mod:`~core.remote.upgci` (Calman-style) and :mod:`~core.remote.argyll_web` (ArgyllCMS's web
display).  The transports run each on a thread: :class:`ResolveClient`,
:class:`ArgyllWebClient`, :class:`PGeneratorServer`, :class:`UpgciServer`,
:class:`DiscoveryResponder`; each hands patches to ``on_patch(patch) -> Acknowledgement`` and
acknowledges on the wire only once the app has set that acknowledgement (the patch presented).
:func:`parse_connection` checks a connection as an operator types it and
:func:`make_transport` builds its transport (:mod:`~core.remote.connections`);
:class:`RemoteLog` streams what was shown, and when, as JSON lines (:mod:`~core.remote.log`).
The TCP protocols' framers are one :class:`Framer` (:mod:`~core.remote.framing`), each
subclass saying only how its messages end or are sized.
"""

from core.remote import argyll_web, pgenerator, resolve, upgci
from core.remote.address import LOOPBACK, AllowList, parse_host_port, parse_listen
from core.remote.clients import ArgyllWebClient, ResolveClient
from core.remote.connections import (
    DEFAULT_ADDRESSES,
    KINDS,
    TITLES,
    Connection,
    discovery_for,
    make_transport,
    parse_connection,
)
from core.remote.discovery import DiscoveryResponder
from core.remote.framing import Framer
from core.remote.log import LogResult, RemoteLog, log_line, not_shown_record, shown_record
from core.remote.patch import (
    FULL_SCREEN,
    SOURCES,
    RemoteError,
    RemotePatch,
    clip_rect,
    convert_codes,
    patch_rect_px,
    surface_codes,
    to_spec_params,
    window_rect,
)
from core.remote.servers import DEFAULT_REQUEST_TIMEOUT_S, PGeneratorServer, UpgciServer
from core.remote.transport import DEFAULT_ACK_TIMEOUT_S, Acknowledgement, Transport

__all__ = [
    "Acknowledgement",
    "AllowList",
    "ArgyllWebClient",
    "Connection",
    "DEFAULT_ADDRESSES",
    "DiscoveryResponder",
    "FULL_SCREEN",
    "Framer",
    "KINDS",
    "LOOPBACK",
    "LogResult",
    "PGeneratorServer",
    "RemoteError",
    "RemoteLog",
    "RemotePatch",
    "ResolveClient",
    "SOURCES",
    "TITLES",
    "Transport",
    "UpgciServer",
    "argyll_web",
    "clip_rect",
    "convert_codes",
    "discovery_for",
    "log_line",
    "make_transport",
    "not_shown_record",
    "parse_connection",
    "parse_host_port",
    "parse_listen",
    "patch_rect_px",
    "pgenerator",
    "resolve",
    "shown_record",
    "surface_codes",
    "to_spec_params",
    "upgci",
    "window_rect",
    "DEFAULT_REQUEST_TIMEOUT_S",
    "DEFAULT_ACK_TIMEOUT_S",
]
