"""The metrics endpoint: ``GET /metrics`` (prometheus_client's exposition, text or OpenMetrics
by the scraper's Accept header) and ``GET /healthz``, served from threads of their own.

What a misbehaving scraper cannot do: make testcard answer anything but ``GET`` (405 with
``Allow: GET``), send a request larger than :attr:`MetricsServer.MAX_REQUEST_BYTES` (431, or
414 for the request line), hold a connection open (every request has
:attr:`MetricsServer.DEADLINE_S` to arrive whole; the socket is shut after that), or hold more
than :attr:`MetricsServer.MAX_CLIENTS` threads (a connection over the limit gets 503 at once).
Nothing here touches the frame loop: a scrape reads the counters under their own locks.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable
from socketserver import ThreadingMixIn
from wsgiref.simple_server import ServerHandler, WSGIRequestHandler, WSGIServer

from prometheus_client import CollectorRegistry, make_wsgi_app

Health = Callable[[], tuple[bool, str]]


class _Budget:
    """A file's ``readline`` that stops (returns b"") once ``limit`` bytes were read."""

    def __init__(self, raw, limit: int):
        self.raw, self.left, self.exceeded = raw, limit, False

    def readline(self, size: int = -1) -> bytes:
        if self.left <= 0:
            self.exceeded = True
            return b""
        want = self.left if size is None or size < 0 else min(size, self.left)
        line = self.raw.readline(want)
        self.left -= len(line)
        if self.left <= 0 and not line.endswith(b"\n"):
            self.exceeded = True
        return line

    def read(self, size: int = -1) -> bytes:
        return b""                       # a body is never read: the request is answered and closed

    def __getattr__(self, name):
        return getattr(self.raw, name)


class _Handler(WSGIRequestHandler):
    server: _Server

    def log_message(self, format, *args):   # noqa: A002 - the base class's name
        pass                                 # a scraper every 15 s is not news

    def handle(self) -> None:
        limit = self.server.owner.MAX_REQUEST_BYTES
        budget = _Budget(self.rfile, limit)
        # a stand-in file: it has the readline and read the request parsing uses, and passes
        # the rest to the socket's own file
        self.rfile = budget  # type: ignore[assignment]
        self.raw_requestline = budget.readline(limit + 1)
        if budget.exceeded:
            self._refuse(414, "request line too long")
            return
        if not self.parse_request():
            return
        if budget.exceeded:
            self._refuse(431, "request too large")
            return
        handler = ServerHandler(budget, self.wfile, self.get_stderr(),  # type: ignore[arg-type]  # the stand-in file
                                self.get_environ(), multithread=True)
        # the back-pointer wsgiref's own WSGIRequestHandler.handle sets (for its log lines);
        # typeshed leaves the attribute out
        handler.request_handler = self  # type: ignore[attr-defined]
        app = self.server.get_app()
        assert app is not None   # MetricsServer sets the app before the server starts
        handler.run(app)

    def _refuse(self, code: int, why: str) -> None:
        self.requestline, self.request_version, self.command = "", "HTTP/1.0", ""
        body = f"{why}\n".encode()
        with contextlib.suppress(OSError):
            self.wfile.write(f"HTTP/1.0 {code} {why}\r\nContent-Type: text/plain\r\n"
                             f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)
            self.wfile.flush()
            # a lingering close: read (and drop) a little of what the peer is still sending, so
            # closing with it unread does not reset the connection before the answer is read
            self.connection.shutdown(socket.SHUT_WR)
            self.connection.settimeout(0.5)
            left = 65536
            while left > 0 and (chunk := self.connection.recv(min(left, 16384))):
                left -= len(chunk)


class _Server(ThreadingMixIn, WSGIServer):
    daemon_threads = True
    allow_reuse_address = True
    owner: MetricsServer

    def process_request(self, request, client_address):
        if not self.owner._slots.acquire(blocking=False):
            with contextlib.suppress(OSError):
                request.sendall(b"HTTP/1.0 503 Service Unavailable\r\nContent-Length: 0\r\n"
                                b"Connection: close\r\n\r\n")
            self.shutdown_request(request)
            return
        self.owner._opened(request)
        super().process_request(request, client_address)

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.owner._finished(request)
            self.owner._slots.release()

    def service_actions(self) -> None:
        self.owner._reap()

    def handle_error(self, request, client_address) -> None:
        pass                                 # a scraper that hung up is not testcard's error


class MetricsServer:
    """``/metrics`` for ``registry`` and ``/healthz`` answered by ``health()`` -> (ok, text),
    on ``host:port`` (``port`` 0: any free one; :attr:`address` says which)."""

    MAX_REQUEST_BYTES = 8192
    MAX_CLIENTS = 16
    DEADLINE_S = 5.0
    POLL_S = 0.1

    def __init__(self, registry: CollectorRegistry, host: str, port: int,
                 health: Health | None = None):
        self.registry = registry
        self.health = health or (lambda: (True, "ok"))
        self._metrics_app = make_wsgi_app(registry)
        self._slots = threading.BoundedSemaphore(self.MAX_CLIENTS)
        self._open: dict[socket.socket, float] = {}
        self._lock = threading.Lock()
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        _Server.address_family = family
        try:
            self._server = _Server((host, port), _Handler, bind_and_activate=True)
        finally:
            _Server.address_family = socket.AF_INET
        self._server.owner = self
        self._server.set_app(self._app)
        self._thread: threading.Thread | None = None

    @property
    def address(self) -> tuple[str, int]:
        host, port = self._server.server_address[:2]
        return str(host), int(port)

    @property
    def url(self) -> str:
        host, port = self.address
        return f"http://{f'[{host}]' if ':' in host else host}:{port}/metrics"

    def start(self) -> MetricsServer:
        self._thread = threading.Thread(target=self._server.serve_forever, args=(self.POLL_S,),
                                        name="testcard-metrics", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop serving (within :attr:`POLL_S` plus a request in flight, at most a second)."""
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join(1.0)
            self._thread = None
        with self._lock:
            for sock in list(self._open):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
        self._server.server_close()

    # ------------------------------------------------------------ connections
    def _opened(self, sock) -> None:
        with self._lock:
            self._open[sock] = time.monotonic()

    def _finished(self, sock) -> None:
        with self._lock:
            self._open.pop(sock, None)

    def _reap(self) -> None:
        """Shut every connection that has had its deadline: its thread then ends."""
        now = time.monotonic()
        with self._lock:
            late = [s for s, t in self._open.items() if now - t > self.DEADLINE_S]
        for sock in late:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    # ------------------------------------------------------------ the application
    def _app(self, request, start_response):
        # ``request`` is the WSGI environ dict (named so: it holds the request, not os.environ)
        method, path = request.get("REQUEST_METHOD", ""), request.get("PATH_INFO", "")
        if method != "GET":
            start_response("405 Method Not Allowed", [("Allow", "GET"), ("Content-Type", "text/plain")])
            return [b"only GET\n"]
        if path == "/metrics":
            return self._metrics_app(request, start_response)
        if path == "/healthz":
            try:
                ok, text = self.health()
            except Exception as exc:  # the health check itself failed: not healthy, say why
                ok, text = False, f"health check failed: {type(exc).__name__}"
            start_response("200 OK" if ok else "503 Service Unavailable",
                           [("Content-Type", "text/plain; charset=utf-8")])
            return [f"{text}\n".encode()]
        if path == "/":
            start_response("200 OK", [("Content-Type", "text/plain; charset=utf-8")])
            return [b"testcard: GET /metrics (Prometheus) or /healthz\n"]
        start_response("404 Not Found", [("Content-Type", "text/plain")])
        return [b"not found: GET /metrics or /healthz\n"]
