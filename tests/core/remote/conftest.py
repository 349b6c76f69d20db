"""What the transport tests share: an app stand-in that records patches, events and states and
holds each patch's acknowledgement until the test sets it."""

from __future__ import annotations

import socket
import threading

import pytest

from core.remote import Acknowledgement

WAIT_S = 5.0          # the most a test waits for something that should happen
QUIET_S = 0.3         # how long a test listens for something that must not happen (yet)


class App:
    """``on_patch`` / ``on_event`` / ``on_state`` for a transport."""

    def __init__(self, auto_ack: bool = False) -> None:
        self.auto_ack = auto_ack
        self.patches = []
        self.acks: list[Acknowledgement] = []
        self.events: list[dict] = []
        self.states: list[str] = []
        self._cond = threading.Condition()

    def on_patch(self, patch):
        ack = Acknowledgement()
        with self._cond:
            self.patches.append(patch)
            self.acks.append(ack)
            if self.auto_ack:
                ack.set(len(self.patches), patch.received_s + 0.016)
            self._cond.notify_all()
        return ack

    def on_event(self, event: dict) -> None:
        with self._cond:
            self.events.append(event)
            self._cond.notify_all()

    def on_state(self, state: str) -> None:
        with self._cond:
            self.states.append(state)
            self._cond.notify_all()

    def wait(self, predicate, what: str):
        with self._cond:
            if not self._cond.wait_for(lambda: predicate(self), WAIT_S):
                kinds = [(e["kind"], e["message"]) for e in self.events[-8:]]
                raise AssertionError(f"timed out waiting for {what}; last events: {kinds}")

    def wait_patches(self, n: int) -> None:
        self.wait(lambda a: len(a.patches) >= n, f"{n} patch(es)")

    def wait_event(self, kind: str, n: int = 1) -> dict:
        self.wait(lambda a: sum(e["kind"] == kind for e in a.events) >= n, f"{n} {kind!r} event(s)")
        return [e for e in self.events if e["kind"] == kind][n - 1]

    def kinds(self) -> list[str]:
        with self._cond:
            return [e["kind"] for e in self.events]


@pytest.fixture
def app():
    return App()


@pytest.fixture
def stopping():
    """Transports registered here are stopped after the test; no thread may outlive it."""
    before = set(threading.enumerate())
    started = []
    yield started.append
    for t in started:
        t.stop()
    left = [t for t in threading.enumerate() if t not in before and t.is_alive()]
    assert not left, f"threads left running: {left}"


def connect(port: int, host: str = "127.0.0.1") -> socket.socket:
    sock = socket.create_connection((host, port), timeout=WAIT_S)
    sock.settimeout(WAIT_S)
    return sock


def quiet(sock: socket.socket, seconds: float = QUIET_S) -> bool:
    """True when nothing arrives on ``sock`` for ``seconds``."""
    import select

    r, _, _ = select.select([sock], [], [], seconds)
    return not r


def read_exactly(sock: socket.socket, n: int) -> bytes:
    out = b""
    while len(out) < n:
        chunk = sock.recv(n - len(out))
        if not chunk:
            break
        out += chunk
    return out


def read_until(sock: socket.socket, end: bytes) -> bytes:
    out = b""
    while not out.endswith(end):
        chunk = sock.recv(1)
        if not chunk:
            break
        out += chunk
    return out
