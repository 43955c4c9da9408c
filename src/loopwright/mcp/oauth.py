"""OAuth 2.1 for HTTP MCP servers, on the ``mcp`` package's ``OAuthClientProvider``.

The provider does discovery (protected-resource and authorization-server metadata),
dynamic client registration, PKCE and token refresh. What is ours:

- where tokens live: ``$LOOPWRIGHT_HOME/mcp-auth/<server>-<hash of url>.json``, the file
  0600 in a 0700 directory, written whole (a crash never leaves half a token);
- when the person logs in: only ``loopwright mcp login NAME`` runs the browser flow, with
  the redirect caught by a one-shot server on 127.0.0.1 and the URL printed (a headless
  machine opens it elsewhere). A session that finds no usable token reports the server as
  ``needs-auth`` with that command, instead of waiting for a browser nobody sees.

Tokens never reach a message, a transcript or a log: errors name the server and the file.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import os
import re
import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from mcp.client.auth import OAuthClientProvider
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)

from loopwright.errors import ConfigurationError
from loopwright.mcp.config import HttpServerConfig, SseServerConfig
from loopwright.mcp.errors import LoginRequired
from loopwright.tools.spill import loopwright_home

RemoteConfig = HttpServerConfig | SseServerConfig
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")
_CALLBACK_PATH = "/callback"
LOGIN_TIMEOUT_SECONDS = 300.0


def tokens_dir() -> Path:
    path = loopwright_home() / "mcp-auth"
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    path.chmod(0o700)  # also when it existed with looser permissions
    return path


def token_file(name: str, url: str) -> Path:
    """Tokens are tied to the server's name and URL: a changed URL needs a new login."""
    digest = hashlib.sha256(url.encode()).hexdigest()[:12]
    return tokens_dir() / f"{_UNSAFE.sub('_', name)}-{digest}.json"


class FileTokenStorage:
    """The mcp package's TokenStorage on one owner-only JSON file."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def _load(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _save(self, data: dict[str, Any]) -> None:
        temporary = self.path.with_suffix(".tmp")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle)
        os.replace(temporary, self.path)

    async def get_tokens(self) -> OAuthToken | None:
        raw = self._load().get("tokens")
        return OAuthToken.model_validate(raw) if raw else None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        data = self._load()
        data["tokens"] = tokens.model_dump(mode="json", exclude_none=True)
        data["expires_at"] = time.time() + tokens.expires_in if tokens.expires_in else None
        self._save(data)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        raw = self._load().get("client_info")
        return OAuthClientInformationFull.model_validate(raw) if raw else None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        data = self._load()
        data["client_info"] = client_info.model_dump(mode="json", exclude_none=True)
        self._save(data)

    def expires_at(self) -> float | None:
        value = self._load().get("expires_at")
        return float(value) if isinstance(value, int | float) else None

    def redirect_uri(self) -> str | None:
        uris = (self._load().get("client_info") or {}).get("redirect_uris") or []
        return str(uris[0]) if uris else None


class StoredOAuthProvider(OAuthClientProvider):
    """Knows when a stored token expires, so a new process refreshes it before using it
    (the base class learns the expiry only from a token response it saw itself)."""

    def __init__(self, storage: FileTokenStorage, **kwargs: Any) -> None:
        super().__init__(storage=storage, **kwargs)
        self._file_storage = storage

    async def _initialize(self) -> None:
        await super()._initialize()
        self.context.token_expiry_time = self._file_storage.expires_at()


def client_metadata(redirect_uri: str) -> OAuthClientMetadata:
    return OAuthClientMetadata.model_validate(
        {
            "client_name": "loopwright",
            "redirect_uris": [redirect_uri],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
        }
    )


class _QuietLoginRequired(logging.Filter):
    """The mcp package logs every OAuth flow error with its traceback; "log in first" is an
    expected state (the server's status says it), not a crash to print to stderr."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        return not isinstance(error, LoginRequired)


_FLOW_LOGGER = logging.getLogger("mcp.client.auth.oauth2")
_FLOW_LOGGER.addFilter(_QuietLoginRequired())


def session_auth(name: str, config: RemoteConfig) -> StoredOAuthProvider:
    """The provider a session uses: stored tokens, refreshed when due; never a browser."""
    storage = FileTokenStorage(token_file(name, config.url))

    async def needs_login(url: str) -> None:
        raise LoginRequired(
            f"MCP server {name!r} needs an OAuth login; run: loopwright mcp login {name} "
            "(then reconnect the server or start a new session)"
        )

    async def no_callback() -> AuthorizationCodeResult:  # pragma: no cover - never reached
        raise LoginRequired(f"MCP server {name!r} needs an OAuth login")

    redirect = storage.redirect_uri() or f"http://127.0.0.1:1{_CALLBACK_PATH}"
    return StoredOAuthProvider(
        storage,
        server_url=config.url,
        client_metadata=client_metadata(redirect),
        redirect_handler=needs_login,
        callback_handler=no_callback,
    )


def logout(name: str, config: RemoteConfig) -> bool:
    """Forget the server's tokens and registration; whether there were any."""
    path = token_file(name, config.url)
    existed = path.exists()
    path.unlink(missing_ok=True)
    return existed


async def login(
    name: str,
    config: RemoteConfig,
    *,
    show_url: Callable[[str], Awaitable[None]],
    port: int = 0,
    timeout: float = LOGIN_TIMEOUT_SECONDS,
) -> None:
    """The full browser flow: discovery, registration, PKCE; tokens stored on success."""
    from mcp import Client

    storage = FileTokenStorage(token_file(name, config.url))
    async with CallbackServer.running(port) as callback:
        if storage.redirect_uri() != callback.redirect_uri:
            # Registered for another redirect port: register again rather than be refused.
            storage.path.unlink(missing_ok=True)
        else:
            data = storage._load()  # pyright: ignore[reportPrivateUsage]
            data.pop("tokens", None)
            storage._save(data)  # pyright: ignore[reportPrivateUsage]
        provider = StoredOAuthProvider(
            storage,
            server_url=config.url,
            client_metadata=client_metadata(callback.redirect_uri),
            redirect_handler=show_url,
            callback_handler=callback.wait,
        )
        transport = _transport(config, provider)
        try:
            async with asyncio.timeout(timeout), Client(transport) as client:
                await client.list_tools()
        except TimeoutError:
            raise ConfigurationError(
                f"the login to MCP server {name!r} did not finish within {timeout:g} s; "
                "open the printed URL and approve the access, then try again"
            ) from None
    if await storage.get_tokens() is None:
        raise ConfigurationError(
            f"MCP server {name!r} did not ask for a login (no OAuth); nothing was stored"
        )


def _transport(config: RemoteConfig, provider: StoredOAuthProvider) -> Any:
    headers = dict(config.headers) or None
    if isinstance(config, SseServerConfig):
        from mcp.client.sse import sse_client

        return sse_client(config.url, headers=headers, auth=provider)
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    @contextlib.asynccontextmanager
    async def opened() -> AsyncGenerator[Any]:
        async with (
            create_mcp_http_client(headers=headers, auth=provider) as http,
            streamable_http_client(config.url, http_client=http) as streams,
        ):
            yield streams

    return opened()


class CallbackServer:
    """A one-shot HTTP server on 127.0.0.1 that catches the authorization redirect."""

    def __init__(self) -> None:
        self.port = 0
        self._result: asyncio.Future[AuthorizationCodeResult] = (
            asyncio.get_running_loop().create_future()
        )

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self.port}{_CALLBACK_PATH}"

    @classmethod
    @contextlib.asynccontextmanager
    async def running(cls, port: int = 0) -> AsyncGenerator[CallbackServer]:
        server = cls()
        listener = await asyncio.start_server(server._serve, "127.0.0.1", port)
        server.port = int(listener.sockets[0].getsockname()[1])
        try:
            yield server
        finally:
            listener.close()
            await listener.wait_closed()

    async def wait(self) -> AuthorizationCodeResult:
        return await self._result

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request_line = (await reader.readline()).decode("latin-1")
            while (await reader.readline()) not in (b"\r\n", b"\n", b""):
                pass  # headers: not needed
            parts = request_line.split()
            target = urlsplit(parts[1]) if len(parts) >= 2 else urlsplit("/")
            query = {k: v[0] for k, v in parse_qs(target.query).items()}
            body, status = self._answer(target.path, query)
            writer.write(
                f"HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\n"
                f"Content-Length: {len(body.encode())}\r\nConnection: close\r\n\r\n{body}".encode()
            )
            await writer.drain()
        finally:
            writer.close()

    def _answer(self, path: str, query: dict[str, str]) -> tuple[str, str]:
        if path != _CALLBACK_PATH:
            return "not found", "404 Not Found"
        if "error" in query:
            if not self._result.done():
                self._result.set_exception(
                    ConfigurationError(
                        f"the authorization server refused the login: {query['error']} "
                        f"{query.get('error_description', '')}".strip()
                    )
                )
            return "Login failed; see the terminal.", "400 Bad Request"
        if "code" not in query:
            return "missing code", "400 Bad Request"
        if not self._result.done():
            self._result.set_result(
                AuthorizationCodeResult(
                    code=query["code"], state=query.get("state"), iss=query.get("iss")
                )
            )
        return "Logged in. You can close this window and go back to the terminal.", "200 OK"
