"""The official Python Claude Agent SDK (``pip install claude-agent-sdk``), unchanged, with
loopwright as its engine: ``cli_path`` names the loopwright console script.

Run it on any model loopwright speaks (the SDK passes the environment on)::

    LOOPWRIGHT_MODEL=openai:gpt-5.5 python examples/agent_sdk/python_sdk.py
    LOOPWRIGHT_MODEL=scripted:examples/agent_sdk/script.yaml python examples/agent_sdk/python_sdk.py

It gives the model an in-process tool (an SDK MCP server) and asks this program
(``can_use_tool``) about every call that is not read-only.
"""

import os
import shutil
import sys
from pathlib import Path
from typing import Any

import anyio
from claude_agent_sdk import (
    AssistantMessage,
    ClaudeAgentOptions,
    PermissionResultAllow,
    PermissionResultDeny,
    ResultMessage,
    TextBlock,
    create_sdk_mcp_server,
    query,
    tool,
)


@tool("word_count", "Count the words in a text", {"text": str})
async def word_count(args: dict[str, Any]) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": str(len(args["text"].split()))}]}


async def ask(name: str, input: dict[str, Any], context: Any) -> Any:
    if name == "Bash" and input.get("command", "").startswith("rm "):
        return PermissionResultDeny(message="this program never lets the agent delete files")
    return PermissionResultAllow()


async def prompt(text: str) -> Any:
    # can_use_tool needs streaming input: the control channel stays open for its questions.
    yield {"type": "user", "message": {"role": "user", "content": text}}


async def main() -> None:
    # On PATH, or beside this interpreter (a virtualenv that is not activated).
    loopwright = shutil.which(
        "loopwright", path=f"{Path(sys.executable).parent}:{os.environ['PATH']}"
    )
    assert loopwright, "install loopwright first: pip install loopwright"
    options = ClaudeAgentOptions(
        cli_path=loopwright,
        mcp_servers={"text": create_sdk_mcp_server("text", tools=[word_count])},
        can_use_tool=ask,
    )
    async for message in query(
        prompt=prompt("How many words are in 'the quick brown fox'?"), options=options
    ):
        if isinstance(message, AssistantMessage):
            for block in message.content:
                if isinstance(block, TextBlock):
                    print(block.text)
        elif isinstance(message, ResultMessage):
            print(f"[{message.subtype}, {message.num_turns} turns]")


anyio.run(main)
