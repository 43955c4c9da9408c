"""Providers under the real loop: retries become api_retry messages, cost is reported."""

from __future__ import annotations

from loopwright import Options, query, tool
from loopwright.messages import AssistantMessage, ResultMessage, SystemMessage
from loopwright.models.scripted import text, tool_call

from .conftest import Provider


@tool(read_only=True)
def lookup(key: str) -> str:
    """Look a key up."""
    return f"value of {key}"


async def test_a_session_over_http_with_a_retried_fault(provider: Provider) -> None:
    from loopwright.testing._fake_http import rate_limited

    script = [rate_limited(retry_after=0), tool_call("lookup", key="k"), text("It is done.")]
    with provider.serve(script) as (server, model):
        messages = [
            m
            async for m in query(
                "look k up", Options(model=model, tools=[lookup], allowed_tools=["lookup"])
            )
        ]
        server.assert_complete()
    retries = [m for m in messages if isinstance(m, SystemMessage) and m.subtype == "api_retry"]
    assert len(retries) == 1 and retries[0].data["error_status"] == 429
    result = messages[-1]
    assert isinstance(result, ResultMessage) and result.subtype == "success"
    assert result.result == "It is done." and result.num_turns == 1
    assert result.total_cost_usd is not None and result.total_cost_usd > 0
    answers = [m for m in messages if isinstance(m, AssistantMessage)]
    assert len(answers) == 2  # the failed attempt left nothing behind
    assert "value of k" in str(server.requests[-1].body)
