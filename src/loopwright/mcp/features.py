"""Resources and prompts of MCP servers, as plain frozen records.

The manager lists and reads them through each server's owner task (see connection.py);
this module turns the ``mcp`` package's results into records that neither the tools nor
the Python API need the optional package to use. Conversion is duck-typed on attributes.
"""

from __future__ import annotations

import base64
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

_MAX_PAGES = 100  # a server that paginates forever must not hang the listing


@dataclass(frozen=True, slots=True)
class McpResource:
    """A resource a server offers (``template`` is True for a URI template)."""

    server: str
    uri: str
    name: str
    description: str = ""
    mime_type: str | None = None
    template: bool = False

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"server": self.server, "name": self.name}
        data["uriTemplate" if self.template else "uri"] = self.uri
        if self.description:
            data["description"] = self.description
        if self.mime_type:
            data["mimeType"] = self.mime_type
        return data


@dataclass(frozen=True, slots=True)
class ResourceContent:
    """One part of a read resource: text, or binary data (base64 in ``blob``)."""

    uri: str
    mime_type: str | None
    text: str | None = None
    blob: str | None = None

    @property
    def size(self) -> int:
        if self.text is not None:
            return len(self.text.encode("utf-8"))
        return len(base64.b64decode(self.blob or ""))


@dataclass(frozen=True, slots=True)
class McpPromptArgument:
    name: str
    description: str = ""
    required: bool = False


@dataclass(frozen=True, slots=True)
class McpPrompt:
    """A prompt template a server offers (a slash command ``/mcp__<server>__<name>``)."""

    server: str
    name: str
    description: str = ""
    arguments: tuple[McpPromptArgument, ...] = ()


@dataclass(frozen=True, slots=True)
class PromptPart:
    """One message of a filled-in prompt: text, an image (base64) or a resource's text."""

    role: Literal["user", "assistant"]
    kind: Literal["text", "image"]
    text: str = ""
    mime_type: str | None = None
    data: str | None = None


@dataclass(frozen=True, slots=True)
class McpPromptResult:
    server: str
    name: str
    description: str = ""
    parts: tuple[PromptPart, ...] = field(default_factory=tuple[PromptPart, ...])

    @property
    def text(self) -> str:
        """The prompt's text parts joined: what is sent as the user's message."""
        return "\n\n".join(p.text for p in self.parts if p.kind == "text" and p.text)


async def paginate(fetch: Callable[[str | None], Awaitable[Any]], attribute: str) -> list[Any]:
    """Every item of a paginated listing (``resources``, ``prompts`` …)."""
    items: list[Any] = []
    cursor: str | None = None
    for _ in range(_MAX_PAGES):
        page = await fetch(cursor)
        items.extend(getattr(page, attribute))
        cursor = page.next_cursor
        if cursor is None:
            break
    return items


def resource_record(server: str, item: Any, *, template: bool = False) -> McpResource:
    uri = item.uri_template if template else item.uri
    return McpResource(
        server=server,
        uri=str(uri),
        name=str(item.name),
        description=str(getattr(item, "description", None) or ""),
        mime_type=getattr(item, "mime_type", None),
        template=template,
    )


def resource_contents(result: Any) -> list[ResourceContent]:
    contents: list[ResourceContent] = []
    for item in result.contents:
        text = getattr(item, "text", None)
        contents.append(
            ResourceContent(
                uri=str(item.uri),
                mime_type=getattr(item, "mime_type", None),
                text=None if text is None else str(text),
                blob=None if text is not None else str(getattr(item, "blob", "")),
            )
        )
    return contents


def prompt_record(server: str, item: Any) -> McpPrompt:
    arguments = tuple(
        McpPromptArgument(str(a.name), str(a.description or ""), bool(a.required))
        for a in (item.arguments or [])
    )
    return McpPrompt(server, str(item.name), str(item.description or ""), arguments)


def prompt_result(server: str, name: str, result: Any) -> McpPromptResult:
    parts: list[PromptPart] = []
    for message in result.messages:
        role: Literal["user", "assistant"] = "assistant" if message.role == "assistant" else "user"
        parts.append(_prompt_part(role, message.content))
    return McpPromptResult(server, name, str(result.description or ""), tuple(parts))


def _prompt_part(role: Literal["user", "assistant"], content: Any) -> PromptPart:
    kind = getattr(content, "type", None)
    if kind == "text":
        return PromptPart(role, "text", str(content.text))
    if kind == "image":
        return PromptPart(role, "image", mime_type=str(content.mime_type), data=str(content.data))
    if kind == "resource":
        resource = content.resource
        text = getattr(resource, "text", None)
        if text is not None:
            return PromptPart(role, "text", f"[resource {resource.uri}]\n{text}")
        return PromptPart(role, "text", f"[binary resource {resource.uri} omitted]")
    return PromptPart(role, "text", f"[{kind} content omitted: not supported in prompts]")


def check_prompt_arguments(prompt: McpPrompt, arguments: Mapping[str, str]) -> None:
    """A missing required argument is named, with the command's usage."""
    from loopwright.errors import ConfigurationError

    missing = [a.name for a in prompt.arguments if a.required and a.name not in arguments]
    if missing:
        usage = " ".join(f"<{a.name}>" if a.required else f"[{a.name}]" for a in prompt.arguments)
        raise ConfigurationError(
            f"MCP prompt {prompt.name!r} of server {prompt.server!r} needs "
            f"{', '.join(missing)}; use: /mcp__{prompt.server}__{prompt.name} {usage}".rstrip()
        )
