"""``agents.exceptions``."""

from loopwright.compat.openai_agents._impl.errors import (
    AgentsException,
    MaxTurnsExceeded,
    ModelBehaviorError,
    UserError,
)
from loopwright.compat.openai_agents._impl.guardrails import (
    InputGuardrailTripwireTriggered,
    OutputGuardrailTripwireTriggered,
    ToolInputGuardrailTripwireTriggered,
    ToolOutputGuardrailTripwireTriggered,
)

__all__ = [
    "AgentsException",
    "InputGuardrailTripwireTriggered",
    "MaxTurnsExceeded",
    "ModelBehaviorError",
    "OutputGuardrailTripwireTriggered",
    "ToolInputGuardrailTripwireTriggered",
    "ToolOutputGuardrailTripwireTriggered",
    "UserError",
]
