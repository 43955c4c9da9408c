"""One process of an OpenAI Agents run paused for approval (run by the tests).

``start CWD``: runs the agent until the refund call waits; prints ``state.to_string()``.
``approve CWD STATE_FILE`` / ``reject CWD STATE_FILE``: ``RunState.from_string`` in this
new process, decides, resumes; prints the final output. Refunds append to CWD/refunds.log.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from loopwright.compat.openai_agents import Agent, Runner, RunState, function_tool
from loopwright.testing import ScriptedModel, text, tool_call

CWD = Path(sys.argv[2])


@function_tool(needs_approval=True)
def refund(order: str) -> str:
    """Refund an order."""
    with (CWD / "refunds.log").open("a") as log:
        log.write(order + "\n")
    return f"refunded {order}"


async def main() -> int:
    os.chdir(CWD)  # the session store is found from the working directory
    mode = sys.argv[1]
    if mode == "start":
        model = ScriptedModel([tool_call("refund", order="A1")])
        paused = await Runner.run(Agent(name="Support", tools=[refund], model=model), "refund A1")
        assert [i.name for i in paused.interruptions] == ["refund"]
        print(paused.to_state().to_string())
        return 0
    model = ScriptedModel([text("Refund handled.")])
    agent = Agent(name="Support", tools=[refund], model=model)
    state = await RunState.from_string(agent, Path(sys.argv[3]).read_text())
    [item] = state.get_interruptions()
    if mode == "approve":
        state.approve(item)
    else:
        state.reject(item, rejection_message="refunds need a receipt")
    result = await Runner.run(agent, state)
    print(result.final_output)
    sent = model.requests[0].messages[-1].blocks[0]  # type: ignore[union-attr]
    print(getattr(sent, "text", ""))
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
