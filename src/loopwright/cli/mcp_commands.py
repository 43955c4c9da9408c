"""``loopwright mcp list|login|logout``: the MCP servers of a project and their OAuth logins.

Servers come from ``--config FILE`` (the ``.mcp.json`` shape) or the project's
``.mcp.json``. ``login NAME`` runs the OAuth 2.1 flow of an HTTP server: the authorization
URL is printed (and opened in a browser when there is one); the redirect comes back to a
one-shot server on 127.0.0.1, so it works over SSH too when the port is forwarded, or from
a browser on the same machine. Tokens go to ``$LOOPWRIGHT_HOME/mcp-auth`` (0600) and are
never printed.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import webbrowser
from collections.abc import Sequence
from pathlib import Path

from loopwright.cli.terminal_text import visible_line
from loopwright.errors import LoopwrightError
from loopwright.mcp.config import (
    HttpServerConfig,
    InvalidServerConfig,
    McpServerConfig,
    SseServerConfig,
    StdioServerConfig,
    load_mcp_json,
)
from loopwright.redact import redact_text, redact_url
from loopwright.settings.load import find_project_root

EXIT_USAGE = 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="loopwright mcp", description="MCP servers of this project and their OAuth logins"
    )
    commands = parser.add_subparsers(dest="command", required=True)
    for name, about in (
        ("list", "the configured servers and whether each has a stored login"),
        ("login", "log in to an HTTP server that uses OAuth (prints the URL to open)"),
        ("logout", "forget a server's stored OAuth tokens"),
    ):
        command = commands.add_parser(name, help=about, description=about)
        if name != "list":
            command.add_argument("name", help="the server's name in .mcp.json")
        command.add_argument("--config", help="a .mcp.json-shaped file (default: the project's)")
        command.add_argument("--cwd", help="the project directory (default: here)")
        if name == "login":
            command.add_argument(
                "--port", type=int, default=0, help="local port for the redirect (default: any)"
            )
            command.add_argument(
                "--no-browser", action="store_true", help="only print the URL, open nothing"
            )
    return parser


def mcp_command(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(list(argv))
    try:
        servers = _servers(args.config, args.cwd)
        if args.command == "list":
            return _list(servers)
        config = _remote(servers, args.name)
        if args.command == "logout":
            from loopwright.mcp.oauth import logout

            existed = logout(args.name, config)
            print(f"{args.name}: logged out" if existed else f"{args.name}: no stored login")
            return 0
        asyncio.run(_login(args.name, config, args.port, open_browser=not args.no_browser))
    except LoopwrightError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"{args.name}: logged in; the token is stored for future sessions")
    return 0


def _servers(config: str | None, cwd: str | None) -> dict[str, McpServerConfig]:
    if config is not None:
        return load_mcp_json(config)
    root = find_project_root(Path(cwd or os.getcwd()).resolve())
    return load_mcp_json(root / ".mcp.json")


def _remote(servers: dict[str, McpServerConfig], name: str) -> HttpServerConfig | SseServerConfig:
    config = servers.get(name)
    if config is None:
        known = ", ".join(servers) or "none"
        raise LoopwrightError(
            f"no MCP server named {name!r} (configured: {known}); check .mcp.json or --config"
        )
    if not isinstance(config, HttpServerConfig | SseServerConfig):
        raise LoopwrightError(
            f"MCP server {name!r} is not an HTTP server ({config.type}); only HTTP and SSE "
            "servers log in with OAuth"
        )
    return config


def _list(servers: dict[str, McpServerConfig]) -> int:
    from loopwright.mcp.oauth import FileTokenStorage, token_file

    if not servers:
        print("no MCP servers configured (add them to .mcp.json)")
    for name, config in servers.items():
        if isinstance(config, StdioServerConfig):
            line = f"{name}  stdio  {config.command} {' '.join(config.args)}".rstrip()
            print(visible_line(redact_text(line)))
        elif isinstance(config, HttpServerConfig | SseServerConfig):
            storage = FileTokenStorage(token_file(name, config.url))
            state = "logged in" if storage.path.exists() else "no login"
            print(visible_line(f"{name}  {config.type}  {redact_url(config.url)}  ({state})"))
        elif isinstance(config, InvalidServerConfig):
            print(visible_line(f"{name}  invalid: {redact_text(config.error)}"))
        else:
            print(visible_line(f"{name}  {config.type}"))
    return 0


async def _login(
    name: str, config: HttpServerConfig | SseServerConfig, port: int, *, open_browser: bool
) -> None:
    from loopwright.mcp.oauth import login

    async def show(url: str) -> None:
        print(f"To log in to {name}, open this URL in a browser:\n\n  {url}\n", flush=True)
        if open_browser and _has_browser():
            webbrowser.open(url)
        print("Waiting for the browser to come back…", flush=True)

    await login(name, config, show_url=show, port=port)


def _has_browser() -> bool:
    """A headless machine (no display) only prints the URL."""
    return sys.platform == "darwin" or bool(
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    )
