"""What a checkout would run or grant if it is trusted: the input of a trust prompt.

A cloned repository's settings can run commands (hooks, SessionStart among them), start
``.mcp.json`` servers (a stdio server is a program), add allow rules, working directories
and environment variables. ``trust_project=False`` drops all of that and keeps only what
restricts; ``project_settings=False`` reads nothing from the checkout at all.

Headless runs keep what ``setting_sources`` / ``trust_project`` say (CI passes
``--no-project-settings``). An interactive front end asks first: it calls
:func:`checkout_capabilities`, shows the list when it is not empty, and builds its Options
with ``trust_project`` set to the answer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from loopwright.hooks.commands import CommandHook
from loopwright.settings.load import (
    CHECKOUT_SOURCES,
    find_project_root,
    load_settings,
    settings_files,
)


@dataclass(frozen=True, slots=True)
class CheckoutCapabilities:
    """What trusting the checkout at ``root`` would let it do, each as a line to show."""

    root: Path
    hooks: tuple[str, ...] = ()  # "SessionStart: ./scripts/setup.sh"
    mcp_servers: tuple[str, ...] = ()  # server names in .mcp.json
    allow_rules: tuple[str, ...] = ()
    additional_directories: tuple[Path, ...] = ()
    env: tuple[str, ...] = ()  # variable names
    settings_files: tuple[Path, ...] = ()

    @property
    def empty(self) -> bool:
        """Nothing to ask about: trusting the checkout grants nothing."""
        return not (
            self.hooks
            or self.mcp_servers
            or self.allow_rules
            or self.additional_directories
            or self.env
        )


def checkout_capabilities(cwd: str | Path, home: str | Path | None = None) -> CheckoutCapabilities:
    """Read (never run) the checkout's settings files and ``.mcp.json``."""
    cwd_path = Path(cwd).resolve()
    home_path = Path(home) if home is not None else Path.home()
    root = find_project_root(cwd_path)
    settings = load_settings(cwd_path, CHECKOUT_SOURCES, home_path, trust_project=True)
    hooks = tuple(
        f"{event}: {handler.command if isinstance(handler, CommandHook) else repr(handler)}"
        for event, matchers in settings.hooks.items()
        for matcher in matchers
        for handler in matcher.hooks
    )
    files = [path for _, path, _ in settings_files(cwd_path, CHECKOUT_SOURCES, home_path)]
    return CheckoutCapabilities(
        root=root,
        hooks=hooks,
        mcp_servers=_mcp_server_names(root / ".mcp.json"),
        allow_rules=tuple(rule.text for rule in settings.rules.allow),
        additional_directories=settings.additional_directories,
        env=tuple(settings.env),
        settings_files=tuple(path for path in files if path.is_file()),
    )


def _mcp_server_names(path: Path) -> tuple[str, ...]:
    if not path.is_file():
        return ()
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return ("(.mcp.json cannot be read)",)
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        return ()
    return tuple(str(name) for name in cast(dict[str, Any], servers))
