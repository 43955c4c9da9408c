"""The OpenAI Agents layer reports usage as that SDK does: input_tokens is the whole
prompt, cached tokens included, with the cached part in input_tokens_details."""

from __future__ import annotations

from loopwright.compat.openai_agents import Agent, Runner
from loopwright.messages import Usage
from loopwright.testing import ScriptedModel, text


async def test_input_tokens_include_the_cached_tokens() -> None:
    usage = Usage(input_tokens=65, output_tokens=7, cache_read_input_tokens=578)
    model = ScriptedModel([text("hello", usage=usage)])
    agent = Agent(name="a", instructions="be brief", model=model)

    result = await Runner.run(agent, "hi")

    reported = result.context_wrapper.usage
    assert reported.input_tokens == 643
    assert reported.input_tokens_details.cached_tokens == 578
    assert reported.output_tokens == 7
    assert reported.total_tokens == 650
    assert result.raw_responses[0].usage.input_tokens == 643
