"""The providers' own HTTP/1.1 client: h11 over asyncio streams.

h11 (the protocol state machine under httpcore and httpx) parses and frames the messages;
this module adds what a provider needs around it: keep-alive connections per origin and
event loop, TLS, the connect and read timeouts, gzip/deflate bodies. Chosen over httpcore
and httpx by import cost, which every ``loopwright -p`` pays before its first request:
h11 adds about 8 ms to a process that has asyncio and ssl, httpcore or httpx 55-70 ms
(``python -X importtime``, medians of 9 runs; see the issue note).

Failures are raised as :class:`TransportError`; the providers turn them into ModelErrors.
"""

from __future__ import annotations

import asyncio
import os
import ssl
import zlib
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

import h11

Header = tuple[str, str]

# Our defaults: 5 s to connect; 10 minutes between two reads (a long answer's pauses).
CONNECT_TIMEOUT = 5.0
READ_TIMEOUT = 600.0
_READ_SIZE = 65536


class TransportError(Exception):
    """The request failed before a whole response arrived: ``timed_out`` for a connect or
    read that took too long; ``responded`` once the response's head had arrived."""

    def __init__(self, message: str, *, timed_out: bool = False, responded: bool = False) -> None:
        super().__init__(message)
        self.timed_out = timed_out
        self.responded = responded


@dataclass(frozen=True, slots=True)
class Origin:
    scheme: Literal["http", "https"]
    host: str
    port: int

    @property
    def netloc(self) -> str:
        """The Host header: the port only when it is not the scheme's default."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        default = 443 if self.scheme == "https" else 80
        return host if self.port == default else f"{host}:{self.port}"


@dataclass(frozen=True, slots=True)
class Endpoint:
    """Where one request goes: the connection's origin and the request target."""

    origin: Origin
    target: str

    @property
    def url(self) -> str:
        return f"{self.origin.scheme}://{self.origin.netloc}{self.target}"


def endpoint(base_url: str, path: str, query: str = "") -> Endpoint | None:
    """``path`` under ``base_url`` ("/v1" + "/messages" is "/v1/messages"), or None for a
    base URL this client does not serve (not http(s), credentials, a query, non-ASCII)."""
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or parts.query or parts.fragment:
        return None
    if not parts.hostname or parts.username or parts.password or not base_url.isascii():
        return None
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return None
    prefix = parts.path.rstrip("/")
    target = prefix + "/" + path.lstrip("/") + (f"?{query}" if query else "")
    scheme: Literal["http", "https"] = "https" if parts.scheme == "https" else "http"
    return Endpoint(Origin(scheme, parts.hostname, port), target)


class _Connection:
    def __init__(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, read_timeout: float | None
    ) -> None:
        self.reader = reader
        self.writer = writer
        self.read_timeout = read_timeout
        self.protocol = h11.Connection(h11.CLIENT)
        self.received_any = False

    def idle(self) -> bool:
        return (
            self.protocol.our_state is h11.IDLE
            and not self.writer.is_closing()
            and not self.reader.at_eof()
        )

    async def next_event(self) -> h11.Event | type[h11.NEED_DATA] | type[h11.PAUSED]:
        while True:
            try:
                event = self.protocol.next_event()
            except h11.RemoteProtocolError as exc:
                raise TransportError(f"not a valid HTTP response: {exc}") from None
            if event is not h11.NEED_DATA:
                return event
            self.protocol.receive_data(await self._read())

    async def _read(self) -> bytes:
        try:
            async with asyncio.timeout(self.read_timeout):
                data = await self.reader.read(_READ_SIZE)
        except TimeoutError:
            raise TransportError("timed out reading the response", timed_out=True) from None
        except OSError as exc:
            raise TransportError(str(exc) or type(exc).__name__) from exc
        self.received_any = self.received_any or bool(data)
        return data

    def close(self) -> None:
        self.writer.close()


class Response:
    """A response whose head has arrived; the body is read by ``aiter_bytes``/``read``."""

    def __init__(
        self, client: HttpClient, origin: Origin, connection: _Connection, head: h11.Response
    ) -> None:
        self._client = client
        self._origin = origin
        self._connection: _Connection | None = connection
        self.status_code: int = head.status_code
        self.headers = {
            name.decode().lower(): value.decode("latin-1") for name, value in head.headers
        }

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        """The decoded body as it arrives; the connection goes back to the pool at its end."""
        decoder = _decoder(self.headers.get("content-encoding"))
        connection = self._connection
        while connection is not None:
            try:
                event = await connection.next_event()
            except TransportError as exc:
                exc.responded = True
                raise
            if isinstance(event, h11.Data):
                data = decoder.decompress(event.data) if decoder else bytes(event.data)
                if data:
                    yield data
            elif isinstance(event, h11.EndOfMessage):
                self._release()
                break
            else:
                raise TransportError(
                    "peer closed connection without sending complete message body",
                    responded=True,
                )
        if decoder is not None and (tail := decoder.flush()):
            yield tail

    async def read(self) -> bytes:
        return b"".join([chunk async for chunk in self.aiter_bytes()])

    async def aclose(self) -> None:
        """Drop the connection unless the body was read to its end."""
        connection, self._connection = self._connection, None
        if connection is not None:
            connection.close()

    def _release(self) -> None:
        connection, self._connection = self._connection, None
        if connection is None:
            return
        protocol = connection.protocol
        if protocol.our_state is h11.DONE and protocol.their_state is h11.DONE:
            protocol.start_next_cycle()
            self._client.put_back(self._origin, connection)
        else:
            connection.close()


class HttpClient:
    """Keep-alive HTTP/1.1 connections of one event loop, reused per origin."""

    def __init__(
        self,
        *,
        connect_timeout: float | None = CONNECT_TIMEOUT,
        read_timeout: float | None = READ_TIMEOUT,
    ) -> None:
        self.connect_timeout = connect_timeout
        self.read_timeout = read_timeout
        self._idle: dict[Origin, list[_Connection]] = {}
        self._tls: ssl.SSLContext | None = None
        self._closed = False

    def is_closed(self) -> bool:
        return self._closed

    async def post(self, where: Endpoint, headers: Sequence[Header], body: bytes) -> Response:
        """Send the request and read the response's head (headers as given, in order,
        after Host and before Content-Length)."""
        request = h11.Request(
            method="POST",
            target=where.target,
            headers=[
                ("Host", where.origin.netloc),
                *headers,
                ("Content-Length", str(len(body))),
            ],
        )
        idle = self._idle.get(where.origin, [])
        while idle:
            connection = idle.pop()
            if not connection.idle():
                connection.close()
                continue
            try:
                return await self._exchange(where.origin, connection, request, body)
            except TransportError as exc:
                # A kept-alive connection the server had closed meanwhile: nothing came
                # back, so the request goes again on a new one (as httpcore does).
                if connection.received_any or exc.timed_out:
                    raise
        connection = await self._connect(where.origin)
        return await self._exchange(where.origin, connection, request, body)

    def put_back(self, origin: Origin, connection: _Connection) -> None:
        if self._closed:  # a stream that outlived close(): nothing will reuse it
            connection.close()
            return
        self._idle.setdefault(origin, []).append(connection)

    async def close(self) -> None:
        self._closed = True
        idle, self._idle = self._idle, {}
        for connections in idle.values():
            for connection in connections:
                connection.close()

    async def _connect(self, origin: Origin) -> _Connection:
        context = self._tls_context() if origin.scheme == "https" else None
        try:
            async with asyncio.timeout(self.connect_timeout):
                reader, writer = await asyncio.open_connection(
                    origin.host,
                    origin.port,
                    ssl=context,
                    server_hostname=origin.host if context is not None else None,
                )
        except TimeoutError:
            raise TransportError(
                f"timed out connecting to {origin.netloc}", timed_out=True
            ) from None
        except (OSError, ssl.SSLError) as exc:
            raise TransportError(f"cannot connect to {origin.netloc}: {exc}") from exc
        return _Connection(reader, writer, self.read_timeout)

    async def _exchange(
        self, origin: Origin, connection: _Connection, request: h11.Request, body: bytes
    ) -> Response:
        protocol = connection.protocol
        connection.received_any = False  # of this exchange's answer
        data = protocol.send(request) + protocol.send(h11.Data(data=body))
        data += protocol.send(h11.EndOfMessage())
        try:
            connection.writer.write(data)
            await connection.writer.drain()
            while True:
                event = await connection.next_event()
                if isinstance(event, h11.Response):
                    return Response(self, origin, connection, event)
                if not isinstance(event, h11.InformationalResponse):
                    raise TransportError("Server disconnected without sending a response.")
        except OSError as exc:
            connection.close()
            raise TransportError(str(exc) or type(exc).__name__) from exc
        except BaseException:
            connection.close()
            raise

    def _tls_context(self) -> ssl.SSLContext:
        if self._tls is None:
            self._tls = tls_context()
            self._tls.set_alpn_protocols(["http/1.1"])
        return self._tls


def tls_context() -> ssl.SSLContext:
    """Certificates from SSL_CERT_FILE / SSL_CERT_DIR when set, else the system's (OpenSSL's
    paths on Linux, the OS store through truststore elsewhere), else certifi's bundle."""
    import platform

    if cafile := os.environ.get("SSL_CERT_FILE"):
        return ssl.create_default_context(cafile=cafile)
    if capath := os.environ.get("SSL_CERT_DIR"):
        return ssl.create_default_context(capath=capath)
    if platform.system() == "Linux":
        paths = ssl.get_default_verify_paths()
        cafile = paths.openssl_cafile if os.path.isfile(paths.openssl_cafile) else None
        capath = paths.openssl_capath if os.path.isdir(paths.openssl_capath) else None
        if cafile or capath:
            return ssl.create_default_context(cafile=cafile, capath=capath)
    try:
        import truststore

        return truststore.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    except ImportError:
        import certifi

        return ssl.create_default_context(cafile=certifi.where())


def _decoder(encoding: str | None) -> zlib._Decompress | None:
    """gzip and deflate, the encodings the providers ask for."""
    match (encoding or "identity").strip().lower():
        case "gzip":
            return zlib.decompressobj(zlib.MAX_WBITS | 16)
        case "deflate":
            return zlib.decompressobj(zlib.MAX_WBITS)
        case _:
            return None
