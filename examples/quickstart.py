"""The smallest useful agent: a custom tool, a scripted model, the real loop.

Run: ``.venv/bin/python examples/quickstart.py``. Swap the ScriptedModel for a model string
such as ``"anthropic:claude-sonnet-4-5"`` (with ANTHROPIC_API_KEY set) to run it for real.
"""

import asyncio

from loopwright import Options, ResultMessage, query, tool
from loopwright.testing import ScriptedModel, text, tool_call


@tool(read_only=True)
def word_count(text: str) -> int:
    """Count the words in a text.

    Args:
        text: the text to count
    """
    return len(text.split())


async def main() -> None:
    model = ScriptedModel(
        [
            tool_call("word_count", text="the quick brown fox"),
            text("The sentence has 4 words."),
        ]
    )
    options = Options(model=model, tools=[word_count], allowed_tools=["word_count"])
    async for message in query("How many words are in 'the quick brown fox'?", options):
        if isinstance(message, ResultMessage):
            print(message.subtype, "-", message.result)


if __name__ == "__main__":
    asyncio.run(main())
