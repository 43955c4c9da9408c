"""Claude Code's flags that loopwright's own flags do not already cover: the flag table.

Both official Agent SDKs start their CLI with these (``--mcp-config``, ``--settings``,
``--json-schema``, ``--permission-prompt-tool stdio`` …), and people type them daily. Each
is mapped onto :class:`Options` in :func:`claude_option_fields`; the few that have no
loopwright meaning are accepted and named in a warning on stderr, never silently dropped.
camelCase spellings (``--allowedTools``) are aliases declared next to the kebab ones.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from loopwright.errors import ConfigurationError

# Accepted for compatibility and ignored: what each would do in Claude Code has no
# counterpart here (or is the only behaviour loopwright has). Valued ones take one value.
IGNORED_VALUED = (
    "--betas",
    "--plugin-dir",
    "--plugin-dir-no-mcp",
    "--resume-drops-turn",
    "--debug-file",
    "--agent",
    "--permission-prompts",
    "--channels",
    "--project-config-root",
    "--initialize-fields",
    "--thinking-display",
)
IGNORED_SWITCHES = (
    "--session-mirror",
    "--managed-settings",
    "--managed-settings-in-initialize",
    "--debug",
    "--strict-mcp-config",
)


def add_claude_code_arguments(parser: argparse.ArgumentParser) -> None:
    """The Claude Code flags beyond :func:`add_agent_arguments`'s (host mode and print mode)."""
    parser.add_argument("--version", "-v", action="store_true", help="print the version")
    parser.add_argument("--verbose", action="store_true", help="(accepted; output is complete)")
    parser.add_argument(
        "--input-format",
        choices=("text", "stream-json"),
        default="text",
        help="stream-json: read user messages and control requests as JSON lines on stdin "
        "(the host mode the Claude Agent SDKs drive)",
    )
    parser.add_argument("--mcp-config", action="append", default=[], help="JSON or a file")
    parser.add_argument("--settings", help="a settings JSON object or the path of a file")
    parser.add_argument(
        "--setting-sources", help="comma-separated: user,project,local (empty: none)"
    )
    parser.add_argument("--json-schema", help="JSON Schema the final answer must match")
    parser.add_argument("--fallback-model", help="used after repeated overloads")
    parser.add_argument("--agents", help='subagents as JSON: {"name": {"description", "prompt"}}')
    parser.add_argument("--dangerously-skip-permissions", action="store_true")
    parser.add_argument("--allow-dangerously-skip-permissions", action="store_true")
    parser.add_argument(
        "--permission-prompt-tool", help="stdio: ask the SDK host over the control channel"
    )
    parser.add_argument("--max-thinking-tokens", type=int)
    parser.add_argument("--thinking", choices=("adaptive", "enabled", "disabled"))
    parser.add_argument("--effort", choices=("low", "medium", "high", "xhigh", "max"))
    parser.add_argument("--task-budget", type=int)
    parser.add_argument("--include-hook-events", action="store_true")
    parser.add_argument("--replay-user-messages", action="store_true")
    parser.add_argument("--await-initialize", action="store_true")
    parser.add_argument("--resume-session-at", help="resume from this message (= --resume-at)")
    parser.add_argument("--system-prompt-file")
    parser.add_argument("--append-system-prompt-file")
    for flag in IGNORED_VALUED:
        parser.add_argument(flag, dest=_ignored_dest(flag), help=argparse.SUPPRESS)
    for flag in IGNORED_SWITCHES:
        parser.add_argument(
            flag, dest=_ignored_dest(flag), action="store_true", help=argparse.SUPPRESS
        )


def _ignored_dest(flag: str) -> str:
    return "ignored_" + flag.lstrip("-").replace("-", "_")


def ignored_flag_warnings(args: argparse.Namespace) -> list[str]:
    """One line per given flag that loopwright accepts but does not act on."""
    given = [
        flag
        for flag in (*IGNORED_VALUED, *IGNORED_SWITCHES)
        if getattr(args, _ignored_dest(flag), None) not in (None, False)
    ]
    return [f"loopwright: warning: {flag} has no effect in loopwright (ignored)" for flag in given]


def tolerate_unknown_flags(
    parser: argparse.ArgumentParser, arguments: Sequence[str]
) -> tuple[list[str], list[str]]:
    """Split ``arguments`` into what the parser knows and warnings for the rest.

    An SDK's ``extra_args`` pass flags of newer Claude Code releases as ``--k``, ``--k v``
    or ``--k=v``: an unknown ``--k`` is dropped with the value after it (when that is not
    itself a flag), since host mode takes no positional prompt."""
    known = parser._option_string_actions  # pyright: ignore[reportPrivateUsage]
    kept: list[str] = []
    warnings: list[str] = []
    index = 0
    while index < len(arguments):
        token = arguments[index]
        name = token.split("=", 1)[0]
        if token.startswith("--") and len(token) > 2 and name not in known:
            takes_value = "=" not in token and index + 1 < len(arguments)
            if takes_value and not arguments[index + 1].startswith("-"):
                index += 1
            warnings.append(f"loopwright: warning: unknown flag {name} ignored")
        else:
            kept.append(token)
        index += 1
    return kept, warnings


def json_or_file(value: str, flag: str) -> Any:
    """A flag's JSON value, or the JSON in the file it names."""
    text = value.strip()
    if not text.startswith(("{", "[")):
        path = Path(value).expanduser()
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigurationError(
                f"{flag}: {value!r} is neither JSON nor a readable file ({exc.strerror}); "
                "pass a JSON object or the path of a JSON file"
            ) from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigurationError(
            f"{flag}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
            "check the quoting"
        ) from exc


def mcp_servers_from_flags(values: Sequence[str]) -> dict[str, Any]:
    """Every ``--mcp-config`` merged (``{"mcpServers": {...}}`` or the bare mapping).

    SDK servers (``{"type": "sdk"}``) are left out here: their instance lives in the SDK
    process and the host reaches them over the control channel."""
    servers: dict[str, Any] = {}
    for value in values:
        data = json_or_file(value, "--mcp-config")
        if not isinstance(data, dict):
            raise ConfigurationError('--mcp-config: expected {"mcpServers": {"name": {...}}}')
        entries = data.get("mcpServers", data)
        if not isinstance(entries, dict):
            raise ConfigurationError('--mcp-config: "mcpServers" must be an object of servers')
        for name, config in entries.items():
            if not (isinstance(config, dict) and config.get("type") == "sdk"):
                servers[str(name)] = config
    return servers


def sdk_server_names(values: Sequence[str]) -> list[str]:
    """The names of ``{"type": "sdk"}`` servers in the ``--mcp-config`` values."""
    names: list[str] = []
    for value in values:
        data = json_or_file(value, "--mcp-config")
        entries = data.get("mcpServers", data) if isinstance(data, dict) else {}
        for name, config in entries.items() if isinstance(entries, dict) else ():
            if isinstance(config, dict) and config.get("type") == "sdk":
                names.append(str(name))
    return names


def setting_sources_from_flag(value: str | None) -> list[str] | None:
    if value is None:
        return None
    sources = [item.strip() for item in value.split(",") if item.strip()]
    unknown = [s for s in sources if s not in ("user", "project", "local")]
    if unknown:
        raise ConfigurationError(
            f"--setting-sources: unknown source {unknown[0]!r}; use user, project and/or local"
        )
    return sources
