"""Metrics: what a running testcard is doing, for a fleet's Prometheus (no Qt).

:class:`OutputMetrics` (frames presented, late frames, missed vblanks, present interval and
frame work against the budget, what is on screen), :class:`ServeMetrics` (patches received,
acknowledged and refused per protocol, clients connected) and :class:`CaptureMetrics` (frames
captured, drops, latency) each register on a ``prometheus_client`` registry the caller owns;
:class:`TotalsFeed` passes the frame loop's own verdicts on after each present;
:class:`MetricsServer` serves ``/metrics`` and ``/healthz`` from threads of their own;
:func:`parse_metrics_address` reads ``--metrics [ADDR:]PORT`` (loopback unless an address is
given).
"""

from prometheus_client import CollectorRegistry

from core.metrics.families import PROTOCOLS, CaptureMetrics, OutputMetrics, ServeMetrics, period_buckets
from core.metrics.feed import TotalsFeed
from core.metrics.server import MetricsServer
from core.remote import parse_listen


def parse_metrics_address(text: str) -> tuple[str, int]:
    """``--metrics [ADDR:]PORT``: ``(host, port)``; ``ValueError`` naming the option."""
    return parse_listen(text, "--metrics")


__all__ = [
    "PROTOCOLS",
    "CaptureMetrics",
    "CollectorRegistry",
    "MetricsServer",
    "OutputMetrics",
    "ServeMetrics",
    "TotalsFeed",
    "parse_metrics_address",
    "period_buckets",
]
