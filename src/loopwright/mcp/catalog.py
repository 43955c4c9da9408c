"""Resources and prompts across a session's servers: list, read, get.

Each request goes through the server's owner task (``ServerConnection.request``) with the
call timeout; a server that fails while listing is reported in ``problems`` instead of
hiding every other server's items.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from loopwright.mcp.client import McpManager
from loopwright.mcp.connection import ServerConnection
from loopwright.mcp.errors import McpRequestError
from loopwright.mcp.features import (
    McpPrompt,
    McpPromptResult,
    McpResource,
    ResourceContent,
    paginate,
    prompt_record,
    prompt_result,
    resource_contents,
    resource_record,
)


@dataclass(frozen=True, slots=True)
class Listing:
    """What the servers listed, and why some could not (``"server: reason"``)."""

    resources: tuple[McpResource, ...] = ()
    prompts: tuple[McpPrompt, ...] = ()
    problems: tuple[str, ...] = field(default_factory=tuple[str, ...])


def _servers(manager: McpManager, server: str | None) -> list[ServerConnection]:
    if server is not None:
        return [manager.connection(server)]
    return [manager.connection(name) for name in manager.connected()]


async def list_resources(manager: McpManager, server: str | None = None) -> Listing:
    """Resources and resource templates of one server, or of every connected one."""
    outcomes = await asyncio.gather(
        *(_resources_of(c, manager.call_timeout) for c in _servers(manager, server)),
        return_exceptions=True,
    )
    return _merge(outcomes, "resources")


async def list_prompts(manager: McpManager, server: str | None = None) -> Listing:
    outcomes = await asyncio.gather(
        *(_prompts_of(c, manager.call_timeout) for c in _servers(manager, server)),
        return_exceptions=True,
    )
    return _merge(outcomes, "prompts")


async def read_resource(manager: McpManager, server: str, uri: str) -> list[ResourceContent]:
    """The contents of one resource (a URI of a template's form works too)."""

    async def read(client: Any) -> Any:
        return await client.read_resource(uri)

    connection = manager.connection(server)
    result = await connection.request(f"resources/read {uri!r}", read, manager.call_timeout)
    return resource_contents(result)


async def get_prompt(
    manager: McpManager, server: str, name: str, arguments: Mapping[str, str] | None = None
) -> McpPromptResult:
    """A prompt filled in with ``arguments``; its messages as text and image parts."""

    async def get(client: Any) -> Any:
        return await client.get_prompt(name, dict(arguments or {}))

    connection = manager.connection(server)
    result = await connection.request(f"prompt {name!r}", get, manager.call_timeout)
    return prompt_result(server, name, result)


async def _resources_of(connection: ServerConnection, timeout: float | None) -> list[McpResource]:
    name = connection.name

    async def fetch(client: Any) -> list[McpResource]:
        if client.server_capabilities.resources is None:
            return []
        plain = await paginate(lambda c: client.list_resources(cursor=c), "resources")
        templates = await paginate(
            lambda c: client.list_resource_templates(cursor=c), "resource_templates"
        )
        return [resource_record(name, r) for r in plain] + [
            resource_record(name, t, template=True) for t in templates
        ]

    listed: list[McpResource] = await connection.request("resources/list", fetch, timeout)
    return listed


async def _prompts_of(connection: ServerConnection, timeout: float | None) -> list[McpPrompt]:
    name = connection.name

    async def fetch(client: Any) -> list[McpPrompt]:
        if client.server_capabilities.prompts is None:
            return []
        prompts = await paginate(lambda c: client.list_prompts(cursor=c), "prompts")
        return [prompt_record(name, p) for p in prompts]

    listed: list[McpPrompt] = await connection.request("prompts/list", fetch, timeout)
    return listed


def _merge(outcomes: list[Any], kind: str) -> Listing:
    items: list[Any] = []
    problems: list[str] = []
    for outcome in outcomes:
        if isinstance(outcome, McpRequestError):
            problems.append(str(outcome))
        elif isinstance(outcome, BaseException):
            raise outcome
        else:
            items.extend(outcome)
    if kind == "resources":
        return Listing(resources=tuple(items), problems=tuple(problems))
    return Listing(prompts=tuple(items), problems=tuple(problems))
