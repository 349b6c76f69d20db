"""``testcard serve``: kiosk mode driven by calibration software.

Any combination of ``--resolve HOST[:PORT]`` (DisplayCAL's Resolve mode: testcard connects to
it), ``--argyll-web URL`` (ArgyllCMS's ``dispwin -dweb``: testcard polls it),
``--pgenerator [ADDR:]PORT`` (HCFR: it connects to testcard; ``--discovery`` answers its UDP
search) and ``--upgci [ADDR:]PORT`` (Calman-style), at least one.  Everything is checked before
the output opens -- addresses, the allow-list, the bit depth and size, the log file, then the
screen and the servers' ports (bound before the window) -- and a refusal is one ``testcard:
error:`` line and exit 2.  Servers listen on 127.0.0.1 unless an address is given; where each
listens is printed at start.

Each patch becomes a testcard frame (:class:`app.preview.RemoteLink`) and is acknowledged on
the wire only once the first frame showing it has been presented; the last patch received wins,
and a patch replaced or not presented within ``--ack-timeout`` gets the protocol's error
(PGenerator ``ERR``, UPGCI: the connection closed), never the success reply.  The servers'
slot and timeout rules (``--idle-timeout``, ``--request-timeout``) are
:mod:`core.remote.servers`'.  ``--log FILE`` records every patch (receive time, first frame and
its present time, latency, source) and every connection event as JSON lines, appended as they
come, fsynced every second, and capped by ``--log-max``.  None of the protocols says whether its
code values are video levels: ``--limited`` says so for all of them (and makes the frame limited
range).
"""

from __future__ import annotations

from app.commands.common import (
    RUN_S,
    SCREEN_HELP,
    Number,
    add_metrics_option,
    check_output,
    metrics_address,
    open_metrics,
)

DEFAULT_COUNTER_BITS = 16
DEFAULT_LOG_MAX_MB = 32
DEFAULT_REQUEST_TIMEOUT_S = 10.0


def register(sub) -> None:
    p = sub.add_parser(
        "serve", help="kiosk mode driven by calibration software (DisplayCAL, ArgyllCMS, HCFR, "
                      "Calman, ColourSpace)",
        description="Show the patches calibration software asks for, fullscreen, acknowledging each "
                    "only once it is on screen. Give at least one of --resolve, --argyll-web, "
                    "--pgenerator, --upgci. Servers listen on 127.0.0.1 unless an address is given.")
    g = p.add_argument_group("connections")
    g.add_argument("--resolve", metavar="HOST[:PORT]",
                   help="connect to a Resolve-protocol pattern-generator client (DisplayCAL's Resolve "
                        "mode, LightSpace; default port 20002), reconnecting until it answers")
    g.add_argument("--argyll-web", metavar="URL",
                   help="poll ArgyllCMS's web display, as started by `dispwin -dweb:PORT` or "
                        "`dispcal -dweb:PORT` (e.g. http://127.0.0.1:8080)")
    g.add_argument("--pgenerator", metavar="[ADDR:]PORT", nargs="?", const=True,
                   help="serve PGenerator's protocol (HCFR, DisplayCAL); default port 85, which "
                        "needs privileges to bind; 0.0.0.0:85 to be reached from the network")
    g.add_argument("--discovery", action="store_true",
                   help="answer PGenerator's UDP discovery (port 1977) on --pgenerator's address")
    g.add_argument("--upgci", metavar="[ADDR:]PORT", nargs="?", const=True,
                   help="serve the Calman-style UPGCI protocol (Calman, ColourSpace; default port 2100)")
    g.add_argument("--allow", metavar="ADDR", action="append", default=[],
                   help="accept clients from this address or network only (repeatable, e.g. "
                        "192.168.1.20 or 192.168.1.0/24; default: any that reaches the port)")
    p.add_argument("--screen", metavar="INDEX|NAME",
                   help=SCREEN_HELP + " (default: the primary)")
    p.add_argument("--bit-depth", type=int,
                   help="the frame's bit depth 1..16 (default: the output surface's, 8 or 10); a patch "
                        "at another depth is rescaled and the log says so")
    p.add_argument("--size", help="frame size WIDTHxHEIGHT (or 1080p, 2160p); default: the screen's "
                                  "native size, which is what PGenerator and UPGCI clients are told")
    p.add_argument("--limited", action="store_true",
                   help="video levels: the patches' code values are limited range (no protocol says "
                        "so on the wire) and so is the frame")
    p.add_argument("--counter", action="store_true",
                   help="composite the frame-counter panel on every patch")
    p.add_argument("--counter-bits", type=int, default=DEFAULT_COUNTER_BITS,
                   help=f"counter bits with --counter (default {DEFAULT_COUNTER_BITS})")
    p.add_argument("--log", metavar="FILE",
                   help="append every patch (receive time, first frame, present time, latency, source) "
                        "and connection event to FILE as JSON lines, as they come (fsynced every second)")
    p.add_argument("--log-max", type=Number(0.01, 1e6, "MB"), default=DEFAULT_LOG_MAX_MB, metavar="MB",
                   help="cap on the log: past this size FILE becomes FILE.1 (replacing an older one) and "
                        f"a new FILE is begun (default {DEFAULT_LOG_MAX_MB})")
    p.add_argument("--ack-timeout", type=Number(0, 3600, "s", above=True), default=5.0, metavar="S",
                   help="a patch not presented within this many seconds is never acknowledged: "
                        "PGenerator answers ERR, UPGCI closes the connection (default 5)")
    p.add_argument("--idle-timeout", type=RUN_S, metavar="S",
                   help="close a server's client that sends no request for this long (default: never "
                        "while a slot is free; with all 4 taken, the client idle longest makes room)")
    p.add_argument("--request-timeout", type=RUN_S, default=DEFAULT_REQUEST_TIMEOUT_S, metavar="S",
                   help="close a server's client whose request has begun and not ended within this "
                        f"long (default {DEFAULT_REQUEST_TIMEOUT_S:g})")
    p.add_argument("--banner", action="store_true",
                   help="name the screen for a few seconds when the output opens (off by default: a "
                        "meter would read it)")
    add_metrics_option(p)
    p.add_argument("--frames", type=int, default=0,
                   help="end after presenting this many frames (0: run until Esc, SIGTERM or SIGINT)")
    p.set_defaults(func=run)


def plan_serve(args):
    """``(connections, allow-list)`` checked from ``args``, no Qt and nothing opened; one
    ``ValueError`` naming the option for anything wrong."""
    from core.levels import Levels
    from core.patterns import parse_size
    from core.remote import AllowList, discovery_for, parse_connection

    conns = []
    for kind, value in (("resolve", args.resolve), ("argyll-web", args.argyll_web),
                        ("pgenerator", args.pgenerator), ("upgci", args.upgci)):
        if value is not None:                 # True: the option alone, the kind's default
            conns.append(parse_connection(kind, None if value is True else value))
    if not conns:
        raise ValueError("serve needs a connection: give --resolve, --argyll-web, --pgenerator or --upgci")
    if args.discovery:
        server = next((c for c in conns if c.kind == "pgenerator"), None)
        if server is None:
            raise ValueError("--discovery answers for the PGenerator server: give --pgenerator too")
        conns.append(discovery_for(server))
    allow = AllowList(args.allow)
    if args.bit_depth is not None:
        Levels(args.bit_depth, args.limited)   # refuses 0, 17, limited under 8 bits
    elif args.limited:
        Levels(8, True)
    if args.size:
        parse_size(args.size)
    if args.counter and not 1 <= args.counter_bits <= 31:
        raise ValueError(f"--counter-bits must be 1..31, got {args.counter_bits}")
    if args.frames < 0:
        raise ValueError(f"--frames must be >= 0, got {args.frames}")
    if not args.ack_timeout > 0 or args.ack_timeout > 3600:   # refuses nan and inf too
        raise ValueError(f"--ack-timeout must be above 0 s and at most 3600 s, got {args.ack_timeout:g}")
    for option, value in (("--idle-timeout", args.idle_timeout), ("--request-timeout", args.request_timeout)):
        if value is not None and not 0 < value <= 86400:
            raise ValueError(f"{option} must be above 0 s and at most 86400 s, got {value:g}")
    if not 0.01 <= args.log_max <= 1e6:
        raise ValueError(f"--log-max must be 0.01 MB .. 1000000 MB, got {args.log_max:g}")
    if args.screen is not None and not args.screen.strip():
        raise ValueError("--screen takes a screen's index (0, 1, ...) or its name, got ''")
    return conns, allow


def run(args) -> int:
    conns, allow = plan_serve(args)
    log_path = str(check_output(args.log, "the remote log")) if args.log else None
    args.metrics_at = metrics_address(args)
    return run_serve(args, conns, allow, log_path)


def run_serve(args, conns, allow, log_path, argv=None) -> int:
    """Open the connections, then the output; run until Esc, SIGTERM, SIGINT or ``--frames``."""
    from app.qapp import ensure_qapplication

    app = ensure_qapplication(argv)
    from app.preview import RemoteLink
    from app.window import Kiosk, output_target, run_until_quit, say
    from core.patterns import FrameFormat, parse_size
    from core.remote import TITLES, RemoteLog

    identity, record = output_target(args.screen)
    w, h = parse_size(args.size) if args.size else record.native_size
    # every patch is built in this format, at the surface's depth where none was typed
    fmt = FrameFormat(w, h, args.bit_depth or 8, bool(args.limited),
                      args.counter_bits if args.counter else None)
    spec = fmt.spec("solid", {"color": "0%"})   # black until the first patch
    kiosk = Kiosk(spec, wanted=identity, banner=args.banner, frame_limit=args.frames, frame_format=fmt)
    kiosk.note.connect(say)
    for note in kiosk.decision_notes:
        say(note)

    def surface() -> FrameFormat:
        return fmt.with_depth(args.bit_depth or (10 if kiosk.loop.fmt == "rgb10" else 8))

    log = RemoteLog(log_path, max_bytes=max(RemoteLog.MIN_BYTES, int(args.log_max * 1e6))) \
        if log_path else None
    link = RemoteLink(kiosk.loop, kiosk.show_spec, surface, log=log, allow=allow,
                      video_levels=args.limited, ack_timeout_s=args.ack_timeout,
                      idle_timeout_s=args.idle_timeout, request_timeout_s=args.request_timeout,
                      parent=kiosk)
    console = Console()                       # held here: a slot's object must outlive the run
    link.event_logged.connect(console.print_record)
    served: list = []                         # the serve families, held for the run

    def serve_families(registry) -> None:
        from core.metrics import ServeMetrics

        served.append(ServeMetrics(registry))
        link.event_logged.connect(served[0].record)

    _live, metrics = open_metrics(getattr(args, "metrics_at", None), kiosk.loop,
                                  presenter=kiosk.presenter_kind, extra=serve_families, parent=kiosk)
    try:
        for conn in conns:
            key = link.open(conn, resolution=(w, h), refresh_hz=record.refresh_hz)
            only = f", clients from {allow} only" if allow and conn.listens else ""
            print(f"testcard serve: {TITLES[conn.kind]} {link.where(key)}{only}", flush=True)
    except ValueError:
        link.shutdown()
        if metrics is not None:
            metrics.close()
        kiosk.close()
        raise
    levels = "video levels" if args.limited else "full range"
    depth = f"{args.bit_depth}-bit" if args.bit_depth else "the surface's depth"
    print(f"testcard serve: output {w}x{h} at {depth}, {levels}, on screen {record.title}; "
          "Esc, SIGTERM or SIGINT ends it", flush=True)
    try:
        why = run_until_quit(app, kiosk)
    finally:
        result = link.shutdown()
        if metrics is not None:
            metrics.close()
    if result is not None:
        dropped = f" ({result.dropped} dropped: they came faster than the disk took them)" \
            if result.dropped else ""
        say(result.error or f"logged {result.lines} records to {result.path}{dropped}")
    print(f"testcard serve: ended ({why}); {link.shown_count} patches shown", flush=True)
    return 0 if result is None or result.error is None else 2


# every request, what the shown line says again, and where it listens (printed at start)
QUIET = ("command", "patch", "presented", "listening")


class Console:
    """What serve prints of the records: every ``shown`` line (at most one a frame), and of the
    rest at most :attr:`PER_S` lines a second, the others counted and said in one line (the log
    has every record): a flood of requests must not become a flood of output, which a slow
    terminal or a full pipe would turn into a stalled serve."""

    PER_S = 20

    def __init__(self, clock=None):
        import time

        self._clock = clock or time.monotonic
        self._window = -1.0
        self._printed = 0
        self._held = 0

    def print_record(self, record: dict) -> None:
        kind = record.get("kind")
        if kind in QUIET:
            return
        now = self._clock()
        if now - self._window >= 1.0:
            if self._held:
                self._say(f"{self._held} more events not printed in the last second (--log has them)")
            self._window, self._printed, self._held = now, 0, 0
        if kind != "shown":
            if self._printed >= self.PER_S:
                self._held += 1
                return
            self._printed += 1
        if kind == "shown":
            latency = record.get("latency_ms")
            lat = f", {latency:.1f} ms after it arrived" if latency is not None else ""
            note = f" ({record['note']})" if record.get("note") else ""
            text = f"shown at frame {record['frame']}{lat}: {record['message']}{note}"
        else:
            text = f"{record.get('source', 'remote')}: {record.get('message', kind)}"
        self._say(text)

    @staticmethod
    def _say(text: str) -> None:
        from app.commands.common import one_line

        print(f"testcard serve: {one_line(text)}", flush=True)


__all__ = ["plan_serve", "register", "run", "run_serve"]
