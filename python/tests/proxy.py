"""A real HTTP proxy in front of the test server that misbehaves on demand, so the SDK's retry
and resume rules meet real broken answers and connections."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx


@dataclass(frozen=True)
class Fault:
    """What the proxy does with one request.

    ``pass``: forward it. ``status``: answer ``status`` with ``headers`` and ``body`` without
    forwarding. ``status-after``: forward it (the server does the work), then answer ``status``
    anyway. ``drop-after``: forward it, then close the connection without an answer.
    ``cut-stream``: forward an event stream and close it after its first event."""

    kind: str = "pass"
    status: int = 503
    headers: dict[str, str] = field(default_factory=dict)
    body: str = '{"error":"unavailable"}'


PASS = Fault()


@dataclass(frozen=True)
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    at: float


Decide = Callable[[str, str, int], Fault]


class FaultyProxy:
    """``decide(method, path, seen_before)`` picks the fault of each request; ``seen_before``
    counts the earlier requests with the same method and path (query left out)."""

    def __init__(self, target: str, decide: Decide) -> None:
        self.target = target
        self.decide = decide
        self.requests: list[Seen] = []
        #: Event streams the server has answered (it subscribes before answering), and cut.
        self.streams_opened = 0
        self.streams_cut = 0
        self._changed = threading.Condition()
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> FaultyProxy:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def wait_for(self, check: Callable[[FaultyProxy], bool], timeout: float = 60.0) -> None:
        """Blocks until ``check(self)`` holds (an event stream opened, or was cut)."""
        with self._changed:
            if not self._changed.wait_for(lambda: check(self), timeout):
                raise AssertionError("the proxy never saw it")

    def _count(self, opened: int = 0, cut: int = 0) -> None:
        with self._changed:
            self.streams_opened += opened
            self.streams_cut += cut
            self._changed.notify_all()

    def seen(self, method: str, path: str) -> list[Seen]:
        with self._lock:
            return [r for r in self.requests if r.method == method and r.path.split("?")[0] == path]

    def _record(self, method: str, path: str, headers: dict[str, str]) -> int:
        with self._lock:
            before = len([r for r in self.requests if r.method == method and r.path.split("?")[0] == path])
            self.requests.append(Seen(method, path, headers, time.monotonic()))
            return before

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                pass

            def _any(self) -> None:
                headers = {name.lower(): value for name, value in self.headers.items()}
                path = self.path
                count = proxy._record(self.command, path, headers)
                fault = proxy.decide(self.command, path.split("?")[0], count)
                if fault.kind == "status":
                    return self._answer(fault.status, fault.headers, fault.body.encode())
                length = int(headers.get("content-length", "0"))
                body = self.rfile.read(length) if length else None
                forward = {
                    k: v for k, v in headers.items() if k not in ("host", "connection", "content-length")
                }
                with httpx.Client(base_url=proxy.target, timeout=httpx.Timeout(10.0, read=60.0)) as client:
                    with client.stream(self.command, path, headers=forward, content=body) as upstream:
                        if "text/event-stream" in upstream.headers.get("content-type", ""):
                            return self._stream(upstream, cut=fault.kind == "cut-stream")
                        content = upstream.read()
                if fault.kind == "drop-after":
                    self.close_connection = True
                    return
                if fault.kind == "status-after":
                    return self._answer(fault.status, fault.headers, fault.body.encode())
                kept = {"content-type": upstream.headers.get("content-type", "text/plain")}
                for name in ("retry-after", "www-authenticate"):
                    if name in upstream.headers:
                        kept[name] = upstream.headers[name]
                self._answer(upstream.status_code, kept, content)

            def _answer(self, status: int, headers: dict[str, str], body: bytes) -> None:
                self.send_response(status)
                headers = {"content-type": "application/json", **headers}
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _stream(self, upstream: httpx.Response, cut: bool) -> None:
                self.send_response(upstream.status_code)
                self.send_header("content-type", "text/event-stream")
                self.end_headers()
                proxy._count(opened=1)
                sent = ""
                try:
                    for chunk in upstream.iter_text():
                        if cut and "id: " in sent + chunk:
                            text = sent + chunk
                            end = text.find("\n\n", text.index("id: "))
                            if end >= 0:
                                # Exactly the first event, then the connection drops.
                                self.wfile.write(text[len(sent) : end + 2].encode())
                                self.wfile.flush()
                                self.close_connection = True
                                self.connection.shutdown(socket.SHUT_RDWR)
                                proxy._count(cut=1)
                                break
                        self.wfile.write(chunk.encode())
                        self.wfile.flush()
                        sent += chunk
                except OSError:
                    pass  # the client left
                self.close_connection = True

            do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _any

        return Handler
