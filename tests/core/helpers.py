"""Helpers shared by the loop-level tests."""

from loopwright import Options, query
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
