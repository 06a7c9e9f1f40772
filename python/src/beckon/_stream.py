"""The agent event stream (``GET /mcp/sse``) without I/O: the Server-Sent Events decoder and the
reconnection rules of the TypeScript SDK (sdk/src/events.ts): resume with ``Last-Event-ID``,
wait as the server advises (``retry:``), longer while it keeps failing, and give up only on
400, 401 and 403."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

import httpx

from .errors import BeckonError
from .models import StreamEvent

MAX_DELAY_SECONDS = 30.0
#: The server writes a keep-alive every 15 s; a stream silent for this long is dead.
READ_TIMEOUT_SECONDS = 45.0
STREAM_TIMEOUT = httpx.Timeout(10.0, read=READ_TIMEOUT_SECONDS)

Scope = Literal["agent", "org"]


@dataclass(frozen=True)
class SseMessage:
    id: str | None
    event: str
    data: str


class SseDecoder:
    """Text chunks in, messages out, per the HTML specification's parsing rules (any line
    ending, ``field: value`` with one optional space, multi-line data, comments, ``retry``)."""

    def __init__(self) -> None:
        self._buffer = ""
        self._id: str | None = None
        self._event = "message"
        self._data: list[str] = []
        self.retry_ms: int | None = None

    def feed(self, text: str) -> list[SseMessage]:
        self._buffer += text
        messages: list[SseMessage] = []
        while True:
            ends = [i for i in (self._buffer.find("\r"), self._buffer.find("\n")) if i >= 0]
            if not ends:
                return messages
            end = min(ends)
            # A lone "\r" at the end may be the first half of "\r\n": wait for the next chunk.
            if self._buffer[end] == "\r" and end == len(self._buffer) - 1:
                return messages
            width = 2 if self._buffer.startswith("\r\n", end) else 1
            line, self._buffer = self._buffer[:end], self._buffer[end + width :]
            message = self._line(line)
            if message:
                messages.append(message)

    def _line(self, line: str) -> SseMessage | None:
        if line == "":
            message = SseMessage(self._id, self._event, "\n".join(self._data)) if self._data else None
            self._event, self._data = "message", []
            return message
        if line.startswith(":"):
            return None
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id" and "\0" not in value:
            self._id = value
        elif name == "retry" and value.isdigit():
            self.retry_ms = int(value)
        return None


@dataclass(frozen=True)
class Signal:
    """What the stream tells its reader: connected (``open``), dropped (``down``), a resume that
    was not possible (``reset``: events may have been missed), or an ``event``."""

    kind: Literal["open", "down", "reset", "event"]
    event: StreamEvent | None = None
    reason: str | None = None
    error: BeckonError | None = None


class StreamState:
    """One subscription across its connections."""

    def __init__(self, scope: Scope | None, last_event_id: str | None) -> None:
        self.scope = scope
        self.last_event_id = last_event_id
        self._retry_seconds = 2.0
        self._failures = 0
        self._decoder = SseDecoder()

    def headers(self) -> dict[str, str]:
        headers = {"accept": "text/event-stream"}
        if self.last_event_id:
            headers["last-event-id"] = self.last_event_id
        return headers

    def params(self) -> dict[str, str]:
        return {"scope": self.scope} if self.scope else {}

    def opened(self) -> Signal:
        self._failures = 0
        self._decoder = SseDecoder()
        return Signal("open")

    def feed(self, text: str) -> list[Signal]:
        signals: list[Signal] = []
        for message in self._decoder.feed(text):
            if message.id:
                self.last_event_id = message.id
            if message.event == "stream.reset":
                signals.append(Signal("reset", reason=_reason(message.data)))
                continue
            # The server is stopping: the stream ends next and is resumed with Last-Event-ID.
            if message.event == "stream.closing":
                continue
            try:
                signals.append(Signal("event", event=StreamEvent.from_dict(json.loads(message.data))))
            except (ValueError, TypeError, AttributeError):
                continue
        if self._decoder.retry_ms is not None:
            self._retry_seconds = self._decoder.retry_ms / 1000
        return signals

    def failed(self, error: BeckonError) -> Signal:
        """A failed connection: raises what no reconnection can fix, else counts it."""
        if error.status in (400, 401, 403):
            raise error
        self._failures += 1
        return Signal("down", error=error)

    def next_delay(self) -> float:
        return min(MAX_DELAY_SECONDS, self._retry_seconds * 2.0 ** max(0, self._failures - 1))


def _reason(data: str) -> str:
    try:
        return str(json.loads(data).get("reason", data))
    except (ValueError, AttributeError):
        return data
