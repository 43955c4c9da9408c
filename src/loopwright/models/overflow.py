"""How providers say that a prompt did not fit the context window.

The providers map such errors to ``context_window_exceeded`` (the loop then compacts and
asks again); the fake servers use the same markers to answer like the real APIs do.
"""

from __future__ import annotations

_CONTEXT_OVERFLOW_MARKERS = (
    "prompt is too long",
    "context_length_exceeded",
    "context length",
    "context window",
    "maximum context",
    "too many tokens",
    "input is too long",
)


def is_context_overflow(message: str) -> bool:
    lowered = message.lower()
    return any(marker in lowered for marker in _CONTEXT_OVERFLOW_MARKERS)
