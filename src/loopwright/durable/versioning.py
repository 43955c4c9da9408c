"""Which code recorded a session's steps: loopwright's version and the session's options.

Replaying recorded steps is only sound against the loop that recorded them: a changed loop
asks the model in another order, and recorded responses then answer the wrong questions.
DBOS's ``application_version`` (``loopwright-<version>`` unless the user sets one) keeps a
worker from picking up another version's sessions at all; inside the session, its first
step records this fingerprint, and a replay that finds another one refuses to go on unless
the worker was told to (``replay_other_versions``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from typing import Any

from loopwright import __version__
from loopwright.options import Options
from loopwright.tools.base import MinimalTool

VERSION_STEP_NAME = "loopwright.session_version"


def application_version() -> str:
    """The DBOS application version of this loopwright: workers of other versions leave
    its sessions alone."""
    return f"loopwright-{__version__}"


def session_fingerprint(options: Options) -> dict[str, str]:
    """What the session's steps depend on: the loop's version and its options."""
    canonical = json.dumps(_canonical(options), sort_keys=True, default=str)
    return {
        "loopwright": __version__,
        "options": hashlib.sha256(canonical.encode()).hexdigest()[:16],
    }


def version_mismatch(recorded: dict[str, str], current: dict[str, str]) -> str | None:
    """A message saying what differs and what to do, or None when the two agree."""
    if recorded == current:
        return None
    differences: list[str] = []
    if recorded.get("loopwright") != current.get("loopwright"):
        differences.append(
            f"loopwright {recorded.get('loopwright')} recorded it, this worker runs "
            f"{current.get('loopwright')}"
        )
    if recorded.get("options") != current.get("options"):
        differences.append(
            f"its options had fingerprint {recorded.get('options')}, they now have "
            f"{current.get('options')} (the code that builds them changed)"
        )
    return (
        "refusing to replay this session's recorded steps: "
        + "; ".join(differences)
        + ". Finish it with a worker running the code that started it, or start this worker "
        "with replay_other_versions=True (`loopwright fleet worker --replay-other-versions`) "
        "to replay it anyway"
    )


def _canonical(value: Any) -> Any:
    """A JSON-able picture of ``value`` that is the same in every process: tools by name
    and schema, callables by qualified name, other objects by type."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, dict):
        return {str(k): _canonical(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        items = [_canonical(v) for v in value]
        return sorted(items, key=str) if isinstance(value, set | frozenset) else items
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            field.name: _canonical(getattr(value, field.name))
            for field in dataclasses.fields(value)
            if field.name != "session_id"  # set per session from the workflow id
        }
    if isinstance(value, MinimalTool):
        return {"tool": value.name, "schema": _canonical(value.input_schema)}
    qualified = getattr(value, "__qualname__", None)
    if isinstance(qualified, str):
        return f"{getattr(value, '__module__', '')}.{qualified}"
    return type(value).__qualname__
