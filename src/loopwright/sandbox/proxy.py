"""A small HTTP proxy that admits only allowlisted hosts.

It serves ``CONNECT host:port`` (HTTPS and any TLS) and absolute-form plain HTTP
requests (``GET http://host/path``). It does not inspect TLS: the allowlist is enforced
on the host name the client asks for. It listens on a Unix socket, because the sandbox
has its own network namespace and cannot reach the host's loopback; a relay inside the
sandbox (relay.py) bridges 127.0.0.1:<port> there to this socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Sequence
from pathlib import Path

from loopwright.permissions.rules import domain_matches

_MAX_HEADER = 64 * 1024


class DomainProxy:
    """Runs on its own thread and event loop so ``wrap()`` can stay synchronous."""

    def __init__(self, allowed_domains: Sequence[str], socket_path: Path) -> None:
        self.allowed_domains = tuple(allowed_domains)
        self.socket_path = socket_path
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="loopwright-proxy", daemon=True)
        self._server: asyncio.AbstractServer | None = None
        self._error: BaseException | None = None

    def allows(self, host: str) -> bool:
        return any(domain_matches(pattern, host) for pattern in self.allowed_domains)

    def start(self) -> None:
        self._thread.start()
        self._ready.wait(10)
        if self._error is not None:
            raise self._error

    def close(self) -> None:
        if not self._thread.is_alive():
            return
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        with contextlib.suppress(OSError):
            self.socket_path.unlink()

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._server = self._loop.run_until_complete(
                asyncio.start_unix_server(self._handle, path=str(self.socket_path))
            )
        except BaseException as exc:
            self._error = exc
            self._ready.set()
            return
        self._ready.set()
        try:
            self._loop.run_forever()
        finally:
            self._server.close()
            self._loop.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            writer.close()
            return
        if len(head) > _MAX_HEADER:
            await _refuse(writer, 431, "request header too large")
            return
        request_line = head.split(b"\r\n", 1)[0].decode("latin-1")
        parts = request_line.split(" ")
        if len(parts) != 3:
            await _refuse(writer, 400, "malformed request line")
            return
        method, target, version = parts
        if method == "CONNECT":
            host, _, port = target.rpartition(":")
            await self._tunnel(reader, writer, host.strip("[]"), int(port or 443), None)
            return
        if not target.startswith("http://"):
            await _refuse(writer, 400, "only CONNECT and absolute http:// requests are proxied")
            return
        authority, _, path = target[len("http://") :].partition("/")
        host, _, port = authority.partition(":")
        rest = head.split(b"\r\n", 1)[1]
        first = f"{method} /{path} {version}\r\n".encode("latin-1") + rest
        await self._tunnel(reader, writer, host, int(port or 80), first)

    async def _tunnel(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        host: str,
        port: int,
        first: bytes | None,
    ) -> None:
        if not self.allows(host):
            await _refuse(
                writer, 403, f"{host} is not in the sandbox's allowed_domains; add it there"
            )
            return
        try:
            up_reader, up_writer = await asyncio.wait_for(
                asyncio.open_connection(host, port), timeout=15
            )
        except (OSError, TimeoutError) as exc:
            await _refuse(writer, 502, f"cannot reach {host}:{port}: {exc}")
            return
        if first is None:
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        else:
            up_writer.write(first)
        await asyncio.gather(_pump(reader, up_writer), _pump(up_reader, writer))


async def _pump(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
    try:
        while chunk := await source.read(65536):
            sink.write(chunk)
            await sink.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        with contextlib.suppress(Exception):
            sink.close()


async def _refuse(writer: asyncio.StreamWriter, status: int, message: str) -> None:
    body = f"loopwright sandbox proxy: {message}\n".encode()
    writer.write(
        f"HTTP/1.1 {status} Blocked\r\nContent-Type: text/plain\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
        + body
    )
    with contextlib.suppress(Exception):
        await writer.drain()
        writer.close()
