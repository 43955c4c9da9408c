"""The session's model with every call checkpointed as a DBOS step.

The first time a call runs, the provider is streamed inside the step (retries included)
and the assembled response is recorded; when a recovered workflow replays the call, DBOS
hands back the recorded response and the provider is not called again.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from dbos import DBOS

from loopwright.errors import ModelError
from loopwright.models.base import Model, ModelEvent, ModelRequest, ModelResponse, ModelWrapper
from loopwright.models.scripted import ScriptedModel

from .records import response_from_record, response_to_record

MODEL_STEP_NAME = "loopwright.model_call"


class DurableModel(ModelWrapper):
    """``inner`` (the retrying model of the session) with each call a DBOS step.

    ``provider`` is the model under the retries; a scripted one is told about replayed
    calls so that it keeps its place in the script (a real provider is stateless).
    Deltas are not streamed out of a step (a replay could not repeat them); followers see
    each whole message as the transcript records it (``follow_session``).
    """

    def __init__(self, inner: Model, provider: Model) -> None:
        self._inner = inner
        self._provider = provider

    @property
    def wrapped(self) -> Model:
        return self._inner

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        ran_live = False

        async def call_provider() -> dict[str, Any] | None:
            nonlocal ran_live
            ran_live = True
            return await _collect(self._inner, request)

        record = await DBOS.run_step_async({"name": MODEL_STEP_NAME}, call_provider)
        if not ran_live and isinstance(self._provider, ScriptedModel):
            # Drawing the step advances the script without playing it: the recorded
            # response stands in for what it would have said.
            self._provider.stream(request)
        if record is None:
            return
        if "error" in record:
            raise _model_error(record["error"])
        yield response_from_record(record)


async def _collect(model: Model, request: ModelRequest) -> dict[str, Any] | None:
    """The response of one call as a record (None if the stream ended without one).

    A provider failure is recorded too, as data: a replay must fail the same way, and an
    exception pickled into the database would lose its fields.
    """
    response: ModelResponse | None = None
    try:
        async for event in model.stream(request):
            if isinstance(event, ModelResponse):
                response = event
    except ModelError as exc:
        return {
            "error": {
                "message": str(exc),
                "kind": exc.kind,
                "status_code": exc.status_code,
                "retry_after": exc.retry_after,
            }
        }
    return None if response is None else response_to_record(response)


def _model_error(data: dict[str, Any]) -> ModelError:
    return ModelError(
        str(data["message"]),
        kind=data["kind"],
        status_code=data.get("status_code"),
        retry_after=data.get("retry_after"),
    )
