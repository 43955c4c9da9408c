"""``agents.extensions.handoff_prompt``."""

from loopwright.compat.openai_agents._impl.handoffs import RECOMMENDED_PROMPT_PREFIX


def prompt_with_handoff_instructions(prompt: str) -> str:
    return f"{RECOMMENDED_PROMPT_PREFIX}\n\n{prompt}"


__all__ = ["RECOMMENDED_PROMPT_PREFIX", "prompt_with_handoff_instructions"]
