"""MCP in a running session: the manager bound to the session, the tool set kept current,
and what a prompt asks of MCP (``/mcp__server__prompt args``, ``@server:uri`` mentions).

``prepare_prompt`` runs before each prompt is answered (client.py), so tools that servers
add or remove (``tools/list_changed``, a reconnect, enable/disable) are in the tool set
from the next prompt on, never in the middle of one.
"""

from __future__ import annotations

import dataclasses
import re
import shlex
from typing import TYPE_CHECKING, Any, Protocol

from loopwright.errors import ConfigurationError
from loopwright.mcp.adapters import McpTool, SdkTool
from loopwright.mcp.errors import McpRequestError
from loopwright.messages import ContentBlock, ImageBlock, SystemMessage, TextBlock, UserMessage
from loopwright.tools.base import ToolServices

if TYPE_CHECKING:  # the manager module imports anyio: loaded only by sessions with MCP
    from loopwright.mcp.client import McpManager


class Session(Protocol):
    """What this module uses of a loopwright Session (the session layer sits above MCP)."""

    state: Any
    services: ToolServices
    agent: Any
    pending_notices: list[Any]

    def use_agent(self, agent: Any) -> None: ...


MCP_RESOURCE = "mcp"  # the manager's key in SessionState.resources
_PROMPT_COMMAND = re.compile(r"^/mcp__(\S+)(?:\s+(.*))?$", re.S)
# @server:uri — the server name as configured, the URI up to whitespace.
_MENTION = re.compile(r"(?<![\w@])@([A-Za-z0-9_.-]+):(\S+)")


def manager_of(session: Session) -> McpManager | None:
    manager: McpManager | None = session.state.resources.get(MCP_RESOURCE)
    return manager


def bind_session(session: Session) -> None:
    """Give the servers' questions the session's model (sampling) and working dirs (roots)."""
    manager = manager_of(session)
    if manager is None:
        return
    manager.host.model = session.services.model
    manager.host.working_dirs = tuple(session.agent.working_dirs)
    manager.synced_generation = manager.generation


def refresh_tools(session: Session) -> bool:
    """Put the servers' current tools into the Agent when they changed; whether they did."""
    manager = manager_of(session)
    if manager is None or manager.synced_generation == manager.generation:
        return False
    manager.synced_generation = manager.generation
    agent = session.agent
    removed = {n for n in agent.options.disallowed_tools if "(" not in n}
    kept = {k: t for k, t in agent.tools.items() if not isinstance(t, McpTool | SdkTool)}
    current = [t for t in manager.tools() if t.name not in removed and t.name not in kept]
    status = tuple(manager.status_dicts())
    if agent.deferred is not None:  # behind ToolSearch: the registry holds them
        was_loaded = [t.name for t in agent.deferred.loaded()]
        agent.deferred.deferred = current
        agent.deferred.reset()
        agent.deferred.load(was_loaded)
        session.use_agent(dataclasses.replace(agent, mcp_status=status))
        return True
    tools = {**kept, **{t.name: t for t in current}}
    session.use_agent(dataclasses.replace(agent, tools=tools, mcp_status=status))
    return True


async def prepare_prompt(session: Session, prompt: UserMessage) -> UserMessage:
    """The prompt as the model should see it; problems become notices of the run."""
    manager = manager_of(session)
    if manager is None:
        return prompt
    refresh_tools(session)
    text = prompt.content if isinstance(prompt.content, str) else None
    try:
        if text is not None and (command := _PROMPT_COMMAND.match(text.strip())):
            return await _expanded_command(manager, prompt, command)
        return await _with_mentions(manager, prompt)
    except (ConfigurationError, McpRequestError) as exc:
        session.pending_notices.append(SystemMessage("informational", {"message": str(exc)}))
        return prompt


async def _expanded_command(
    manager: McpManager, prompt: UserMessage, command: re.Match[str]
) -> UserMessage:
    from loopwright.mcp.catalog import get_prompt, list_prompts
    from loopwright.mcp.features import check_prompt_arguments

    server, wanted = _split_command(manager, command.group(1))
    listing = await list_prompts(manager, server)
    prompt_info = next((p for p in listing.prompts if _safe(p.name) == wanted), None)
    if prompt_info is None:
        names = ", ".join(p.name for p in listing.prompts) or "none"
        raise ConfigurationError(
            f"MCP server {server!r} has no prompt {wanted!r} (it has: {names}); "
            "the text was sent as typed"
        )
    words = shlex.split(command.group(2) or "")
    arguments = _prompt_arguments([a.name for a in prompt_info.arguments], words)
    check_prompt_arguments(prompt_info, arguments)
    result = await get_prompt(manager, server, prompt_info.name, arguments)
    blocks: list[ContentBlock] = []
    for part in result.parts:
        if part.kind == "image":
            blocks.append(ImageBlock(part.mime_type or "image/png", part.data or ""))
        elif part.text:
            blocks.append(TextBlock(part.text))
    return dataclasses.replace(prompt, content=blocks or result.text)


def _prompt_arguments(names: list[str], words: list[str]) -> dict[str, str]:
    """``name=value`` words by name, the rest by position; the last argument takes the tail."""
    arguments: dict[str, str] = {}
    positional: list[str] = []
    for word in words:
        key, sep, value = word.partition("=")
        if sep and key in names:
            arguments[key] = value
        else:
            positional.append(word)
    free = [n for n in names if n not in arguments]
    for index, name in enumerate(free):
        if index >= len(positional):
            break
        last = index == len(free) - 1
        arguments[name] = " ".join(positional[index:]) if last else positional[index]
    return arguments


async def _with_mentions(manager: McpManager, prompt: UserMessage) -> UserMessage:
    from loopwright.mcp.catalog import read_resource
    from loopwright.mcp.resource_tools import content_blocks

    blocks = prompt.blocks
    mentions = [
        (m.group(1), m.group(2).rstrip(".,;:!?)"))
        for block in blocks
        if isinstance(block, TextBlock)
        for m in _MENTION.finditer(block.text)
        if m.group(1) in manager.names()
    ]
    if not mentions:
        return prompt
    attached: list[ContentBlock] = []
    for server, uri in dict.fromkeys(mentions):
        contents = await read_resource(manager, server, uri)
        attached.append(TextBlock(f'<mcp-resource server="{server}" uri="{uri}">'))
        for item in contents:
            attached.extend(content_blocks(server, item, ""))
        attached.append(TextBlock("</mcp-resource>"))
    return dataclasses.replace(prompt, content=[*blocks, *attached])


def _split_command(manager: McpManager, name: str) -> tuple[str, str]:
    """``<server>__<prompt>`` split at the configured server whose name fits (the longest)."""
    for server in sorted(manager.names(), key=len, reverse=True):
        prefix = _safe(server) + "__"
        if name.startswith(prefix) and len(name) > len(prefix):
            return server, name[len(prefix) :]
    raise ConfigurationError(
        f"/mcp__{name} names no prompt of a server in this session (servers: "
        f"{', '.join(manager.names()) or 'none'}); the text was sent as typed"
    )


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", name)


def status_of(session: Session) -> list[dict[str, Any]]:
    manager = manager_of(session)
    return [] if manager is None else manager.status_dicts()


def require_manager(session: Session) -> McpManager:
    manager = manager_of(session)
    if manager is None:
        raise ConfigurationError(
            "this session has no MCP servers; pass Options(mcp_servers={...}) or add a .mcp.json"
        )
    return manager


async def reconnect(session: Session, name: str) -> dict[str, Any]:
    status = await require_manager(session).reconnect(name)
    refresh_tools(session)  # safe between turns; within a turn the Agent swap waits
    return status.to_dict()


async def set_enabled(session: Session, name: str, enabled: bool) -> dict[str, Any]:
    status = await require_manager(session).set_enabled(name, enabled)
    refresh_tools(session)
    return status.to_dict()
