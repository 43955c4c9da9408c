"""The machinery behind the fake provider servers: a loopback HTTP server in a thread,
a script of steps and faults, request recording, and SSE writing with fault injection.

Provider specifics (paths, event shapes, error bodies) live in ``fake_anthropic`` and
``fake_openai``; this module knows only HTTP and SSE.
"""

from __future__ import annotations

import abc
import json
import re
import socket
import struct
import threading
import time
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Literal, Self

from loopwright.errors import ModelError
from loopwright.models.scripted import Step

FaultKind = Literal["status", "reset", "stream_error", "truncate", "slow"]
SSEEvent = tuple[str | None, dict[str, Any] | str]


@dataclass(frozen=True, slots=True)
class Fault:
    """One scripted failure, served in place of a step. Build with the helpers below."""

    kind: FaultKind
    status: int = 500
    retry_after: float | None = None
    error_type: str = "api_error"
    message: str = "injected fault"
    after_events: int = 3
    partial: Step | None = None
    delay: float = 0.0
    clean_end: bool = False


def rate_limited(retry_after: float | None = 1.0, message: str = "rate limited") -> Fault:
    """HTTP 429 with a Retry-After header (seconds)."""
    return Fault("status", 429, retry_after, "rate_limit_error", message)


def overloaded(message: str = "overloaded") -> Fault:
    """HTTP 529 on the Anthropic server, 503 on the OpenAI one."""
    return Fault("status", 529, None, "overloaded_error", message)


def server_error(status: int = 500, message: str = "internal server error") -> Fault:
    return Fault("status", status, None, "api_error", message)


def http_error(status: int, error_type: str, message: str) -> Fault:
    """Any error status with a provider-shaped error body."""
    return Fault("status", status, None, error_type, message)


def connection_reset() -> Fault:
    """The request is read, then the socket is reset (RST) before any response."""
    return Fault("reset")


def stream_error(
    after_events: int = 3,
    *,
    error_type: str = "overloaded_error",
    message: str = "stream interrupted",
    partial: Step | None = None,
) -> Fault:
    """A 200 stream that sends ``after_events`` events of ``partial``, then an SSE error."""
    return Fault("stream_error", 200, None, error_type, message, after_events, partial)


def truncated_stream(
    after_events: int = 3, *, partial: Step | None = None, clean_end: bool = False
) -> Fault:
    """A stream cut after ``after_events`` events: abruptly, or with a clean HTTP end."""
    return Fault("truncate", after_events=after_events, partial=partial, clean_end=clean_end)


def slow_stream(step: Step, *, delay: float = 0.05) -> Fault:
    """``step`` served normally but with ``delay`` seconds before every event."""
    return Fault("slow", partial=step, delay=delay)


@dataclass(frozen=True, slots=True)
class Recording:
    """A recorded response body, replayed byte for byte (an SSE stream exactly as a
    provider sent it). ``cut`` ends it by dropping the connection instead of cleanly."""

    body: bytes
    content_type: str = "text/event-stream"
    cut: bool = False

    @classmethod
    def from_file(cls, path: str | Path, *, cut: bool = False) -> Recording:
        return cls(Path(path).read_bytes(), cut=cut)


ScriptItem = Step | Fault | Recording


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    """One request the fake server received. ``body`` is its JSON (its text when it is
    not JSON), read from the bytes received when first asked for: kept as objects, the
    hundreds of long bodies of a benchmark's sessions made each of the collector's full
    passes walk them all (about 1 ms a request at 200 turns)."""

    method: str
    path: str
    headers: dict[str, str]
    raw: bytes
    query: str = ""
    _read: list[Any] = field(default_factory=list[Any], init=False, repr=False, compare=False)

    @property
    def body(self) -> Any:
        if not self._read:
            self._read.append(_read_body(self.raw))
        return self._read[0]


def _read_body(raw: bytes) -> Any:
    try:
        return json.loads(raw) if raw else None
    except json.JSONDecodeError:
        return raw.decode(errors="replace")


def fault_from_error(error: ModelError, *, overloaded_status: int) -> Fault:
    """An ``error(...)`` step of a ScriptedModel script, as the HTTP fault it stands for."""
    message = str(error)
    match error.kind:
        case "rate_limit":
            return Fault("status", 429, error.retry_after, "rate_limit_error", message)
        case "overloaded":
            return Fault("status", overloaded_status, None, "overloaded_error", message)
        case "timeout":
            return Fault("status", 408, None, "timeout_error", message)
        case "connection":
            return Fault("reset", message=message)
        case "stream":
            return Fault("stream_error", 200, None, "api_error", message)
        case "context_window_exceeded":
            text = message if "too long" in message else f"prompt is too long: {message}"
            return Fault("status", 400, None, "invalid_request_error", text)
        case "invalid_request":
            return Fault("status", 400, None, "invalid_request_error", message)
        case "authentication":
            return Fault("status", error.status_code or 401, None, "authentication_error", message)
        case "server" | "other":
            return Fault("status", error.status_code or 500, None, "api_error", message)


def word_chunks(text: str) -> list[str]:
    """Text split like a model streams it: a word and its trailing space per delta."""
    return re.findall(r"\S+\s*|\s+", text) or [text]


def halves(text: str) -> list[str]:
    """A JSON string in two pieces, so clients must assemble partial JSON."""
    middle = len(text) // 2
    return [part for part in (text[:middle], text[middle:]) if part]


class FakeServer(abc.ABC):
    """Base of the fake provider servers. Subclasses implement ``handle``."""

    overloaded_status = 529

    def __init__(self, script: Iterable[ScriptItem] = ()) -> None:
        self._script: deque[ScriptItem] = deque(script)
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.requests: list[RecordedRequest] = []
        self.served = 0

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> Self:
        handler = _make_handler(self)
        server = _QuietServer(("127.0.0.1", 0), handler)
        server.daemon_threads = True
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("the fake server is not running; use it as a context manager")
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>`` without any API prefix."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        """What to pass as the SDK client's ``base_url``."""
        return self.url

    # ------------------------------------------------------------------ script

    def add(self, *items: ScriptItem) -> None:
        with self._lock:
            self._script.extend(items)

    @property
    def remaining(self) -> int:
        with self._lock:
            return len(self._script)

    def assert_complete(self) -> None:
        left = self.remaining
        if left:
            raise AssertionError(f"the fake server has {left} unused script item(s)")

    def next_item(self) -> ScriptItem | None:
        with self._lock:
            self.served += 1
            return self._script.popleft() if self._script else None

    def bodies(self, path_suffix: str = "") -> list[Any]:
        """The JSON bodies received, optionally only for paths ending in ``path_suffix``."""
        return [r.body for r in self.requests if r.path.split("?")[0].endswith(path_suffix)]

    # ------------------------------------------------------------------ subclass API

    @abc.abstractmethod
    def handle(self, exchange: Exchange) -> None:
        """Answer one request (a subclass speaks one provider's wire format)."""


class Exchange:
    """One request and the means to answer it: JSON, SSE with faults, or a reset."""

    def __init__(self, handler: BaseHTTPRequestHandler, request: RecordedRequest) -> None:
        self._handler = handler
        self.request = request
        # Read here for the handler, and again only if a test asks the recorded request.
        body = _read_body(request.raw)
        self.body: dict[str, Any] = body if isinstance(body, dict) else {}

    @property
    def wants_stream(self) -> bool:
        return self.body.get("stream") is True

    def send_json(self, status: int, payload: Any, headers: Sequence[tuple[str, str]] = ()) -> None:
        data = json.dumps(payload).encode()
        handler = self._handler
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(data)

    def replay(self, recording: Recording) -> None:
        """Send a recorded body as it was recorded (chunked, like the providers)."""
        handler = self._handler
        handler.send_response(200)
        handler.send_header("Content-Type", recording.content_type)
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        handler.wfile.write(_chunk(recording.body))
        if recording.cut:
            _cut(handler)
            return
        handler.wfile.write(b"0\r\n\r\n")

    def reset(self) -> None:
        """Abort the connection with a TCP reset."""
        connection: socket.socket = self._handler.connection  # type: ignore[assignment]
        connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self._handler.close_connection = True
        connection.close()

    def send_sse(
        self,
        events: Sequence[SSEEvent],
        *,
        cut_after: int | None = None,
        then: SSEEvent | None = None,
        delay: float = 0.0,
        clean_end: bool = True,
    ) -> None:
        """Stream ``events``; with ``cut_after``, stop there and send ``then`` or cut."""
        handler = self._handler
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Cache-Control", "no-cache")
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        shown = list(events if cut_after is None else events[:cut_after])
        if then is not None:
            shown.append(then)
        chunks = [_chunk(_sse_bytes(name, data)) for name, data in shown]
        if delay > 0:
            for chunk in chunks:
                time.sleep(delay)
                handler.wfile.write(chunk)
                handler.wfile.flush()  # each event on the wire at its own time
        else:
            # Zero latency: the whole response leaves in one send (the writer is
            # buffered), so the benchmark measures the client, not syscalls.
            handler.wfile.write(b"".join(chunks))
        if cut_after is not None and then is None and not clean_end:
            _cut(handler)
            return
        handler.wfile.write(b"0\r\n\r\n")


def _sse_bytes(name: str | None, data: dict[str, Any] | str) -> bytes:
    payload = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
    head = f"event: {name}\n" if name else ""
    return f"{head}data: {payload}\n\n".encode()


def _cut(handler: BaseHTTPRequestHandler) -> None:
    """End the connection mid-response: what was written goes out, then both directions shut."""
    handler.close_connection = True
    handler.wfile.flush()
    handler.connection.shutdown(socket.SHUT_RDWR)


def _chunk(data: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(data), data)


class _QuietServer(ThreadingHTTPServer):
    # Many concurrent sessions connect at once; the stdlib default backlog of 5 would make
    # the kernel refuse connections and the clients retry.
    request_queue_size = 1024
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # injected resets and cuts make the handler fail; that is the point


def _make_handler(server: FakeServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # A buffered writer: status line, headers, body and the chunked terminator leave in
        # one send when the handler returns (BaseHTTPRequestHandler flushes after each
        # request). Unbuffered, each was its own packet, and a client woke up (an event-loop
        # turn, a read, a parse) for each: a third of a loaded client's time on loopback.
        wbufsize = 1 << 16

        def setup(self) -> None:
            super().setup()
            # Headers and body are separate writes; without NODELAY, Nagle plus delayed
            # ACKs add ~40 ms to every response.
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def do_POST(self) -> None:
            self._serve()

        def do_GET(self) -> None:
            self._serve()

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            path, _, query = self.path.partition("?")
            recorded = RecordedRequest(
                self.command,
                path,
                {k.lower(): v for k, v in self.headers.items()},
                raw,
                query,
            )
            with server._lock:
                server.requests.append(recorded)
            server.handle(Exchange(self, recorded))

        def log_message(self, format: str, *args: Any) -> None:
            pass  # quiet: tests and benchmarks read the recorded requests instead

        def finish(self) -> None:
            try:
                super().finish()
            except OSError:
                pass  # the socket was reset or cut on purpose

    return Handler
