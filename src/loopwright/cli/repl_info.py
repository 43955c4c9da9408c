"""What the REPL's informational commands print: /permissions, /mcp, /agents, /memory,
/status, and the starter memory file of /init.

Each takes the live session (what is in force now, not what the files say today) and
returns markup lines; every name and path in them is session or checkout text, so it goes
through the sanitiser.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rich.markup import escape

from loopwright.cli.terminal_text import visible_line
from loopwright.options import Options
from loopwright.permissions.gate import PermissionGate
from loopwright.session.assemble import setting_sources
from loopwright.session.session import Session
from loopwright.settings.load import SettingSource, find_project_root, load_settings


def _shown(value: object) -> str:
    return escape(visible_line(str(value)))


def permission_lines(session: Session, always: Sequence[str], exact: int) -> list[str]:
    gate = session.agent.gate
    lines = [f"mode: {_shown(session.agent.permission_mode)}"]
    if isinstance(gate, PermissionGate):
        rules = gate.policy.rules
        for behavior, listed in (("allow", rules.allow), ("ask", rules.ask), ("deny", rules.deny)):
            lines.append(f"[bold]{behavior}[/bold]" + ("" if listed else " [dim](none)[/dim]"))
            lines.extend(
                f"  {_shown(rule.text)} [dim]({_shown(rule.source)})[/dim]" for rule in listed
            )
    lines.append("[bold]always allowed in this session[/bold]" + ("" if always else " (none)"))
    lines.extend(f"  {_shown(rule)}" for rule in always)
    if exact:
        lines.append(f"  [dim]and {exact} exact call(s) approved with “always”[/dim]")
    return lines


def mcp_lines(session: Session) -> list[str]:
    servers = session.agent.mcp_status
    if not servers:
        return ["no MCP servers (add them in .mcp.json or Options(mcp_servers=...))"]
    lines: list[str] = []
    for server in servers:
        status = str(server.get("status", "?"))
        colour = {"connected": "green", "failed": "red"}.get(status, "yellow")
        error = server.get("error")
        lines.append(
            f"  {_shown(server.get('name', '?'))}: [{colour}]{_shown(status)}[/{colour}]"
            f" · {int(server.get('tools', 0) or 0)} tool(s)"
            + (f" [red]{_shown(error)}[/red]" if error else "")
        )
    return lines


def agent_lines(session: Session) -> list[str]:
    names = list(dict.fromkeys(session.agent.agent_names))
    if not names:
        return ["no subagents (define them in .claude/agents/*.md or Options(agents=...))"]
    return [f"  {_shown(name)}" for name in names]


def memory_files(options: Options, cwd: str) -> tuple[Path, ...]:
    sources: list[SettingSource] = [s for s in setting_sources(options) if s in _SOURCES]
    settings = load_settings(cwd, sources, trust_project=options.trust_project)
    return settings.memory_files


_SOURCES: tuple[SettingSource, ...] = ("user", "project", "local")


def memory_lines(options: Options, cwd: str) -> list[str]:
    files = memory_files(options, cwd)
    if not files:
        return ["no memory files loaded (/init writes a starter AGENTS.md)"]
    return [f"  {_shown(path)}" for path in files]


def status_lines(session: Session, options: Options) -> list[str]:
    agent = session.agent
    trust = (
        "nothing read from the checkout"
        if not options.project_settings
        else ("trusted" if options.trust_project else "not trusted (only its restrictions)")
    )
    return [
        f"session      {_shown(session.session_id)}",
        f"model        {_shown(agent.model.name)}",
        f"cwd          {_shown(session.state.cwd)}",
        f"permissions  {_shown(agent.permission_mode)}",
        f"checkout     {trust}",
        f"tools        {len(agent.tools)} · MCP servers {len(agent.mcp_status)} · "
        f"subagents {len(agent.agent_names)} · skills {len(agent.skill_names)}",
        f"turns        {session.spend.turns}",
    ]


STARTER_MEMORY = """\
# {name}

Instructions for coding agents working in this repository (read at the start of every
session: keep it short and true).

## Build and test
- (how to install dependencies)
- (the command that runs the tests)

## Conventions
- (code style, naming, where things live)

## Do not
- (what an agent must never change or run)
"""


def init_target(cwd: str) -> Path:
    """The memory file /init writes: one that exists already (then nothing is written),
    else CLAUDE.md where the project uses Claude Code's layout, else AGENTS.md."""
    root = find_project_root(Path(cwd).resolve())
    for name in ("AGENTS.md", "CLAUDE.md"):
        if (root / name).exists():
            return root / name
    return root / ("CLAUDE.md" if (root / ".claude").is_dir() else "AGENTS.md")
