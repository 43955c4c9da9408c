"""What the session offers MCP servers that ask the client something: elicitation, sampling
and roots.

A server may ask the user for input mid-call (elicitation), ask the client's model for a
completion (sampling), or ask which directories it may work in (roots). The manager's
:class:`McpHost` answers for every server of the session. Elicitation goes to
``Options.on_elicitation`` (no callback: declined, with the reason in ``_meta``); sampling
runs on the session's model only with ``Options.mcp_sampling=True``; roots are the
session's working directories.

The ``mcp`` types are imported inside the callbacks, so this module loads without them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from loopwright.messages import TextBlock, UserMessage
from loopwright.models.base import Model, ModelRequest, ModelResponse

NO_ELICITATION_HANDLER = (
    "this session cannot ask the user (no on_elicitation callback: a headless run); "
    "continue without the answer"
)
_DEFAULT_SAMPLING_TOKENS = 1024


@dataclass(frozen=True, slots=True)
class ElicitationRequest:
    """A server asks the user for input: a form (``requested_schema``) or a URL to open."""

    server: str
    message: str
    mode: Literal["form", "url"] = "form"
    requested_schema: Mapping[str, Any] = field(default_factory=dict[str, Any])
    url: str | None = None


@dataclass(frozen=True, slots=True)
class ElicitationResponse:
    """The user's answer: ``accept`` with ``content`` (form fields), ``decline`` or ``cancel``."""

    action: Literal["accept", "decline", "cancel"]
    content: Mapping[str, Any] | None = None
    reason: str | None = None  # why it was declined, passed to the server in ``_meta``


ElicitationHandler = Callable[[ElicitationRequest], Awaitable[ElicitationResponse]]


@dataclass(slots=True)
class McpHost:
    """The session side of server-to-client requests; the session fills in the model."""

    on_elicitation: ElicitationHandler | None = None
    allow_sampling: bool = False
    model: Model | None = None  # bound once the session exists (its counting model)
    working_dirs: tuple[Path, ...] = ()

    async def elicit(self, server: str, params: Any) -> Any:
        from mcp_types import ElicitResult

        request = ElicitationRequest(
            server=server,
            message=str(params.message),
            mode="url" if getattr(params, "mode", None) == "url" else "form",
            requested_schema=dict(getattr(params, "requested_schema", None) or {}),
            url=getattr(params, "url", None),
        )
        if self.on_elicitation is None:
            answer = ElicitationResponse("decline", reason=NO_ELICITATION_HANDLER)
        else:
            try:
                answer = await self.on_elicitation(request)
            except Exception as exc:  # the callback's failure is the server's "declined"
                answer = ElicitationResponse("decline", reason=f"the question failed: {exc}")
        meta = {"loopwright/reason": answer.reason} if answer.reason else None
        content = dict(answer.content) if answer.action == "accept" and answer.content else None
        return ElicitResult.model_validate(
            {"action": answer.action, "content": content, "_meta": meta}
        )

    async def sample(self, server: str, params: Any) -> Any:
        from mcp_types import INVALID_REQUEST, CreateMessageResult, ErrorData, TextContent

        if not self.allow_sampling or self.model is None:
            return ErrorData(
                code=INVALID_REQUEST,
                message=f"sampling is off for MCP server {server!r}; the user can allow it "
                "with Options(mcp_sampling=True) (--mcp-sampling)",
            )
        request = ModelRequest(
            model=self.model.name,
            system=str(params.system_prompt or ""),
            messages=[_sampling_message(m) for m in params.messages],
            max_tokens=int(params.max_tokens or _DEFAULT_SAMPLING_TOKENS),
            metadata={"mcp_sampling_server": server},
        )
        response: ModelResponse | None = None
        async for event in self.model.stream(request):
            if isinstance(event, ModelResponse):
                response = event
        if response is None:
            return ErrorData(code=INVALID_REQUEST, message="the model gave no response")
        text = "".join(b.text for b in response.content if isinstance(b, TextBlock))
        return CreateMessageResult(
            role="assistant",
            content=TextContent(type="text", text=text),
            model=response.model or self.model.name,
            stop_reason="maxTokens" if response.stop_reason == "max_tokens" else "endTurn",
        )

    async def roots(self) -> Any:
        from mcp_types import ListRootsResult, Root

        roots = [
            Root.model_validate({"uri": path.as_uri(), "name": path.name or str(path)})
            for path in self.working_dirs
        ]
        return ListRootsResult(roots=roots)


def _sampling_message(message: Any) -> Any:
    """A sampling message as one of ours: text only (images and tools are not forwarded)."""
    from loopwright.messages import AssistantMessage

    items = message.content if isinstance(message.content, list) else [message.content]
    text = "\n".join(str(item.text) for item in items if getattr(item, "type", None) == "text")
    if message.role == "assistant":
        return AssistantMessage([TextBlock(text)])
    return UserMessage(text)
