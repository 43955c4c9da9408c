"""``agents.exceptions``."""

from loopwright.compat._openai_agent_errors import (
    AgentsException,
    MaxTurnsExceeded,
    ModelBehaviorError,
    UserError,
)
from loopwright.compat._openai_guardrails import (
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
