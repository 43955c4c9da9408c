"""Retry settings of the OpenAI Agents layer.

loopwright retries provider errors itself (408, 409, 429, 5xx, dropped connections, with
exponential backoff that honours Retry-After). ``ModelRetrySettings.max_retries`` sets how
many times; a ``policy`` and ``backoff`` have no effect there and are reported once.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass
class RetryDecision:
    retry: bool
    delay: float | None = None
    reason: str | None = None


@dataclass
class ModelRetrySettings:
    max_retries: int | None = None
    backoff: Any = None
    policy: Callable[..., Any] | None = None


def max_retries_of(retry: Any) -> int | None:
    if retry is None:
        return None
    if retry.policy is not None or retry.backoff is not None:
        warnings.warn(
            "ModelRetrySettings: loopwright retries transient provider errors with its own "
            "policy and backoff; only max_retries is used",
            UserWarning,
            stacklevel=4,
        )
    return retry.max_retries


class _Policies:
    """``retry_policies``: building blocks of a retry policy (each takes the retry context)."""

    @staticmethod
    def never() -> Callable[[Any], bool]:
        return lambda context: False

    @staticmethod
    def network_error() -> Callable[[Any], bool]:
        return lambda context: isinstance(getattr(context, "error", None), ConnectionError)

    @staticmethod
    def http_status(statuses: Sequence[int]) -> Callable[[Any], bool]:
        wanted = set(statuses)
        return lambda context: (
            getattr(getattr(context, "error", None), "status_code", None) in wanted
        )

    @staticmethod
    def retry_after() -> Callable[[Any], Any]:
        def decide(context: Any) -> Any:
            delay = getattr(getattr(context, "error", None), "retry_after", None)
            return RetryDecision(True, float(delay), "retry-after") if delay is not None else False

        return decide

    @staticmethod
    def provider_suggested() -> Callable[[Any], bool]:
        return lambda context: bool(getattr(getattr(context, "error", None), "should_retry", False))

    @staticmethod
    def any(*policies: Callable[[Any], Any]) -> Callable[[Any], Any]:
        def decide(context: Any) -> Any:
            for policy in policies:
                decided = policy(context)
                if decided:
                    return decided
            return False

        return decide

    @staticmethod
    def all(*policies: Callable[[Any], Any]) -> Callable[[Any], Any]:
        return lambda context: all(policy(context) for policy in policies)


retry_policies = _Policies()


@dataclass
class AgentToolStreamEventData:
    event: Any
    agent: Any
    tool_call: Any
