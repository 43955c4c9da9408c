"""The run's model responses: each one counted in the run's usage and kept as that SDK's
``ModelResponse`` (``RunResult.raw_responses``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from loopwright.compat.openai_agents._impl.context import RunContextWrapper, Usage
from loopwright.compat.openai_agents._impl.items import ModelResponse, model_response
from loopwright.models.base import ModelResponse as NativeResponse


@dataclass(slots=True)
class ResponseLog:
    context: RunContextWrapper[Any]
    responses: list[ModelResponse] = field(default_factory=list[ModelResponse])

    def record(self, event: NativeResponse) -> ModelResponse:
        # That SDK's input_tokens is the whole prompt, cached part included (the cached
        # part is also in input_tokens_details); ours counts uncached tokens only.
        prompt_tokens = event.usage.context_tokens
        usage = Usage(
            requests=1,
            input_tokens=prompt_tokens,
            output_tokens=event.usage.output_tokens,
            total_tokens=prompt_tokens + event.usage.output_tokens,
        )
        usage.input_tokens_details.cached_tokens = event.usage.cache_read_input_tokens
        self.context.usage.add(usage)
        self.context.usage.request_usage_entries.append(usage)
        response = model_response(event, usage, len(self.responses) + 1)
        self.responses.append(response)
        return response
