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
"""

from core.remote import argyll_web, pgenerator, resolve, upgci
from core.remote.address import LOOPBACK, AllowList, parse_host_port, parse_listen
from core.remote.clients import ArgyllWebClient, ResolveClient
from core.remote.patch import (
    FULL_SCREEN,
    SOURCES,
    RemoteError,
    RemotePatch,
    clip_rect,
    convert_codes,
    patch_rect_px,
    to_spec_params,
    window_rect,
)
from core.remote.servers import DiscoveryResponder, PGeneratorServer, UpgciServer
from core.remote.transport import Acknowledgement, Transport

__all__ = [
    "Acknowledgement",
    "AllowList",
    "ArgyllWebClient",
    "DiscoveryResponder",
    "FULL_SCREEN",
    "LOOPBACK",
    "PGeneratorServer",
    "RemoteError",
    "RemotePatch",
    "ResolveClient",
    "SOURCES",
    "Transport",
    "UpgciServer",
    "argyll_web",
    "clip_rect",
    "convert_codes",
    "parse_host_port",
    "parse_listen",
    "patch_rect_px",
    "pgenerator",
    "resolve",
    "to_spec_params",
    "upgci",
    "window_rect",
]
