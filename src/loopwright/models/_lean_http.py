"""A small HTTP/1.1 client on asyncio streams: the transport of the lean request path.

``import anthropic`` takes about a second and ``import openai`` half of one, most of it
type definitions a streamed request never needs; httpx2 with httpcore2 adds another
0.1-0.2 s. For the configurations the SDK would send as plain HTTP (see ``_sdk_headers``)
the providers post through this client instead: the same request line, headers and body
bytes as the SDK's httpx2 client (tests compare them byte for byte), one keep-alive
connection pool per event loop, the SDK's default timeouts. Proxies, custom CA settings,
custom transports and every other configuration go through the SDK itself.

Failures are raised as :class:`TransportError` with the stage they happened in; the
providers turn them into the SDK's own exception types before mapping them to ModelErrors.
"""

from __future__ import annotations

import asyncio
import os
import ssl
import zlib
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

Header = tuple[str, str]
Stage = Literal["connect", "write", "read"]

# The SDKs' default timeout: 10 minutes to read, 5 s to connect.
CONNECT_TIMEOUT = 5.0
READ_TIMEOUT = 600.0
_HEAD_LIMIT = 1 << 20


class TransportError(Exception):
    """The connection failed (``stage``), or a read or connect took too long."""

    def __init__(
        self, message: str, *, stage: Stage, timed_out: bool = False, empty: bool = False
    ) -> None:
        super().__init__(message)
        self.stage = stage
        self.timed_out = timed_out
        # Nothing at all came back: on a kept-alive connection, the server had closed it.
        self.empty = empty


@dataclass(frozen=True)
class Origin:
    scheme: Literal["http", "https"]
    host: str
    port: int

    @property
    def netloc(self) -> str:
        """What httpx sends as Host: the port only when it is not the scheme's default."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        default = 443 if self.scheme == "https" else 80
        return host if self.port == default else f"{host}:{self.port}"


class _Connection:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    def usable(self) -> bool:
        return not self.writer.is_closing() and not self.reader.at_eof()

    def close(self) -> None:
        self.writer.close()


class LeanResponse:
    """A response whose head has been read; the body is read by ``aiter_bytes``/``read``."""

    def __init__(
        self,
        client: LeanClient,
        origin: Origin,
        connection: _Connection,
        status: int,
        headers: list[Header],
    ) -> None:
        self._client = client
        self._origin = origin
        self._connection: _Connection | None = connection
        self.status_code = status
        self.headers = headers
        self._lower = {name.lower(): value for name, value in headers}
        self._keep_alive = "close" not in self._lower.get("connection", "").lower()

    def header(self, name: str) -> str | None:
        return self._lower.get(name.lower())

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        """The decoded body as it arrives; the connection goes back to the pool at its end."""
        decoder = _decoder(self.header("content-encoding"))
        async for chunk in self._raw_body():
            data = decoder.decompress(chunk) if decoder is not None else chunk
            if data:
                yield data
        if decoder is not None:
            tail = decoder.flush()
            if tail:
                yield tail
        self._release()

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
        if self._keep_alive and connection.usable():
            self._client.put_back(self._origin, connection)
        else:
            connection.close()

    async def _raw_body(self) -> AsyncIterator[bytes]:
        connection = self._connection
        if connection is None:
            return
        reader = connection.reader
        if "chunked" in (self.header("transfer-encoding") or "").lower():
            while True:
                size_line = await self._read(reader.readline(), _has_line(reader))
                if not size_line.endswith(b"\n"):
                    raise _incomplete()
                try:
                    size = int(size_line.split(b";", 1)[0].strip(), 16)
                except ValueError:
                    raise TransportError("malformed chunk size", stage="read") from None
                if size == 0:
                    while (await self._read(reader.readline(), _has_line(reader))).strip():
                        pass  # trailers
                    return
                data = await self._read(reader.readexactly(size + 2), _buffered(reader) >= size + 2)
                yield data[:-2]
            return
        length = self.header("content-length")
        if length is not None:
            if not length.isdigit():
                raise TransportError(f"bad Content-Length {length!r}", stage="read")
            remaining = int(length)
            while remaining > 0:
                data = await self._read(reader.read(min(remaining, 65536)), _buffered(reader) > 0)
                if not data:
                    raise _incomplete()
                remaining -= len(data)
                yield data
            return
        self._keep_alive = False  # the body ends when the server closes the connection
        while data := await self._read(reader.read(65536), _buffered(reader) > 0):
            yield data

    async def _read(self, pending: Any, ready: bool) -> bytes:
        """Await a read of the body; a read the buffer already holds needs no timer (a
        timeout per read was a sixth of a loaded client's time)."""
        try:
            if ready:
                return await pending
            async with asyncio.timeout(self._client.read_timeout):
                return await pending
        except TimeoutError:
            raise TransportError(
                "timed out reading the response", stage="read", timed_out=True
            ) from None
        except asyncio.IncompleteReadError:
            raise _incomplete() from None
        except (OSError, ValueError) as exc:
            raise TransportError(str(exc) or type(exc).__name__, stage="read") from exc


def _buffered(reader: asyncio.StreamReader) -> int:
    """Bytes that have arrived and not been read yet (StreamReader keeps them in _buffer)."""
    buffer: bytes | bytearray = getattr(reader, "_buffer", b"")
    return len(buffer)


def _has_line(reader: asyncio.StreamReader) -> bool:
    buffer: bytes | bytearray = getattr(reader, "_buffer", b"")
    return b"\n" in buffer


class LeanClient:
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
        self._ssl: ssl.SSLContext | None = None
        self._closed = False

    def is_closed(self) -> bool:
        return self._closed

    async def post(
        self, origin: Origin, target: str, headers: Sequence[Header], body: bytes
    ) -> LeanResponse:
        """Send the request (headers exactly as given, in order) and read the response head."""
        head = [f"POST {target} HTTP/1.1"]
        head.extend(f"{name}: {value}" for name, value in headers)
        # UTF-8 as httpx2 encodes header values (ASCII, which is all the SDKs send, alike).
        request = ("\r\n".join(head) + "\r\n\r\n").encode() + body
        idle = self._idle.get(origin, [])
        while idle:
            connection = idle.pop()
            if not connection.usable():
                connection.close()
                continue
            try:
                return await self._exchange(origin, connection, request)
            except TransportError as exc:
                # A kept-alive connection the server had already closed: as httpcore does,
                # the request goes again on a new one.
                if exc.empty:
                    continue
                raise
        connection = await self._connect(origin)
        return await self._exchange(origin, connection, request)

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
        context = self._ssl_context() if origin.scheme == "https" else None
        try:
            async with asyncio.timeout(self.connect_timeout):
                reader, writer = await asyncio.open_connection(
                    origin.host,
                    origin.port,
                    ssl=context,
                    server_hostname=origin.host if context is not None else None,
                    limit=_HEAD_LIMIT,
                )
        except TimeoutError:
            raise TransportError(
                f"timed out connecting to {origin.netloc}", stage="connect", timed_out=True
            ) from None
        except (OSError, ssl.SSLError) as exc:
            raise TransportError(str(exc), stage="connect") from exc
        return _Connection(reader, writer)

    async def _exchange(
        self, origin: Origin, connection: _Connection, request: bytes
    ) -> LeanResponse:
        try:
            connection.writer.write(request)
            await connection.writer.drain()
        except OSError as exc:
            connection.close()
            # Nothing came back, so the request may go again on a new connection.
            raise TransportError(str(exc), stage="write", empty=True) from exc
        try:
            while True:
                status, headers = await self._head(connection)
                if not 100 <= status < 200:
                    return LeanResponse(self, origin, connection, status, headers)
        except BaseException:
            connection.close()
            raise

    async def _head(self, connection: _Connection) -> tuple[int, list[Header]]:
        try:
            async with asyncio.timeout(self.read_timeout):
                raw = await connection.reader.readuntil(b"\r\n\r\n")
        except TimeoutError:
            raise TransportError(
                "timed out waiting for the response", stage="read", timed_out=True
            ) from None
        except asyncio.IncompleteReadError as exc:
            error = TransportError("Server disconnected without sending a response.", stage="read")
            error.empty = not exc.partial  # type: ignore[attr-defined]
            raise error from None
        except (OSError, asyncio.LimitOverrunError) as exc:
            # A reset before any byte of the answer: the server had dropped the kept-alive
            # connection (as a broken pipe on writing would say); httpcore resends then too.
            reset = isinstance(exc, ConnectionResetError)
            raise TransportError(str(exc) or type(exc).__name__, stage="read", empty=reset) from exc
        lines = raw.decode("latin-1").split("\r\n")
        parts = lines[0].split(" ", 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/") or not parts[1].isdigit():
            raise TransportError(f"not an HTTP response: {lines[0][:80]!r}", stage="read")
        headers: list[Header] = []
        for line in lines[1:]:
            if line:
                name, _, value = line.partition(":")
                headers.append((name.strip(), value.strip()))
        return int(parts[1]), headers

    def _ssl_context(self) -> ssl.SSLContext:
        if self._ssl is None:
            self._ssl = default_ssl_context()
            self._ssl.set_alpn_protocols(["http/1.1"])
        return self._ssl


def default_ssl_context() -> ssl.SSLContext:
    """httpcore2's default context (the one the SDK's client uses): the CA file or
    directory named by SSL_CERT_FILE / SSL_CERT_DIR, else on Linux the compiled-in OpenSSL
    paths, elsewhere httpcore2's own (truststore)."""
    import platform

    if cafile := os.environ.get("SSL_CERT_FILE"):
        return ssl.create_default_context(cafile=cafile)
    if capath := os.environ.get("SSL_CERT_DIR"):
        return ssl.create_default_context(capath=capath)
    if platform.system() in ("Windows", "Darwin"):
        import httpcore2

        return httpcore2.default_ssl_context()
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    paths = ssl.get_default_verify_paths()
    cafile = paths.openssl_cafile if os.path.isfile(paths.openssl_cafile) else None
    capath = paths.openssl_capath if os.path.isdir(paths.openssl_capath) else None
    if not cafile and not capath:
        import httpcore2

        return httpcore2.default_ssl_context()
    context.load_verify_locations(cafile, capath)
    return context


def _incomplete() -> TransportError:
    return TransportError(
        "peer closed connection without sending complete message body", stage="read"
    )


class _Decoder:
    def __init__(self, wbits: int) -> None:
        self._inner = zlib.decompressobj(wbits)

    def decompress(self, data: bytes) -> bytes:
        return self._inner.decompress(data)

    def flush(self) -> bytes:
        return self._inner.flush()


def _decoder(encoding: str | None) -> _Decoder | None:
    """gzip and deflate, the two encodings the lean path asks for (see ``_sdk_headers``)."""
    match (encoding or "identity").strip().lower():
        case "gzip":
            return _Decoder(zlib.MAX_WBITS | 16)
        case "deflate":
            return _Decoder(zlib.MAX_WBITS)
        case _:
            return None
