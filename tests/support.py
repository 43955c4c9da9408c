"""Helpers shared by the loop-level tests."""

from typing import Any

from loopwright import Options, query, tool
from loopwright.messages import Message, ToolResultBlock, UserMessage


async def collect(prompt: str, options: Options) -> list[Message]:
    """Every message of one run."""
    return [m async for m in query(prompt, options)]


def tool_results(messages: list[Message]) -> list[ToolResultBlock]:
    """The tool results of a run, in order (the subagents' included)."""
    return [
        block
        for message in messages
        if isinstance(message, UserMessage)
        for block in message.blocks
        if isinstance(block, ToolResultBlock)
    ]


# What ``look`` and ``touch`` ran, in order; a test that checks it clears it first.
ran: list[str] = []


@tool(read_only=True)
def look(path: str) -> str:
    """Look at a file."""
    ran.append(f"look {path}")
    return f"contents of {path}"


@tool
def touch(path: str) -> str:
    """Create a file."""
    ran.append(f"touch {path}")
    return "touched"


@tool(read_only=True)
def blob() -> str:
    """Return a medium-sized output."""
    return " ".join(f"line{i}" for i in range(300))


def base_options(model: Any, **extra: Any) -> Options:
    """Options for a run of ``model`` with ``look`` and ``touch``, approved, not persisted,
    reading no settings from disk; ``extra`` overrides any of it."""
    extra.setdefault("permission_mode", "bypassPermissions")
    extra.setdefault("tools", [look, touch])
    return Options(model=model, setting_sources=[], persist_session=False, **extra)
