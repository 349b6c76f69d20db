"""Splitting a protocol's byte stream into messages: the one framer, which each protocol
subclasses to say only how its message ends or is sized.

:class:`Framer` holds what has arrived; :meth:`Framer.feed` appends bytes and returns every
message now complete, in order, each as text or as a :class:`RemoteError` (a message too long,
or not in the protocol's encoding: the stream reads on).  The size cap is the framer's:
:attr:`Framer.max_bytes` for a message's body, and a message still incomplete past the cap
(plus :attr:`Framer.overhead`, a header's bytes) is a stream that cannot be read on: that
error is returned once, :attr:`Framer.broken` is set and the connection must be closed, so a
sender can make a framer hold at most ``max_bytes + overhead`` bytes.  A subclass's
:meth:`Framer.cut` finds the next message in what is held (or says that the stream is broken,
by raising :class:`RemoteError`); :meth:`Framer.reset` forgets everything.
"""

from __future__ import annotations

from typing import ClassVar

from core.remote.patch import RemoteError


class Framer:
    """A byte stream split into messages (see the module's text).

    A subclass sets :attr:`name` (the protocol, which begins every error) and
    :attr:`max_bytes`, and writes :meth:`cut`; :meth:`text` decodes a body as ASCII with
    :attr:`strip` stripped, unless the subclass decodes otherwise.
    """

    name: ClassVar[str] = "stream"
    max_bytes: ClassVar[int] = 4096      # a message's body, at most
    overhead: ClassVar[int] = 0          # bytes held besides an incomplete body (a header)
    strip: ClassVar[str | None] = None   # characters stripped from a decoded message (None: whitespace)

    def __init__(self) -> None:
        self._buf = bytearray()
        self.broken = False

    @property
    def pending(self) -> bool:
        """Part of a message has arrived and its end has not (a slow sender is timed on it)."""
        return bool(self._buf)

    def reset(self) -> None:
        """Forget what is held and a broken stream: the next byte begins a new stream."""
        self._buf.clear()
        self.broken = False

    def too_long(self) -> RemoteError:
        """The error for a message over :attr:`max_bytes`."""
        return RemoteError(f"{self.name}: a request over {self.max_bytes} bytes")

    def cut(self, buf: bytearray) -> tuple[int, int, int] | None:
        """Where the next complete message lies in ``buf``: ``(start, end, after)``, its body
        being ``buf[start:end]`` and ``buf[:after]`` consumed with it; None while it is
        incomplete (having deleted from ``buf`` any bytes that can never begin one).  Raises
        :class:`RemoteError` for a stream that cannot be read on."""
        raise NotImplementedError

    def text(self, body: bytes) -> str | RemoteError:
        """One message's body as text, or why it is not."""
        try:
            return body.decode("ascii").strip(self.strip)
        except UnicodeDecodeError:
            return RemoteError(f"{self.name}: the request is not ASCII")

    def _break(self, error: RemoteError) -> RemoteError:
        self.broken = True
        self._buf.clear()
        return error

    def feed(self, data: bytes) -> list[str | RemoteError]:
        """Append ``data``; the messages now complete, in order (nothing once broken)."""
        if self.broken:
            return []
        self._buf += data
        out: list[str | RemoteError] = []
        while True:
            try:
                found = self.cut(self._buf)
            except RemoteError as e:
                out.append(self._break(e))
                break
            if found is None:
                if len(self._buf) > self.max_bytes + self.overhead:
                    out.append(self._break(self.too_long()))
                break
            start, end, after = found
            body = bytes(self._buf[start:end])
            del self._buf[:after]
            out.append(self.too_long() if len(body) > self.max_bytes else self.text(body))
        return out
