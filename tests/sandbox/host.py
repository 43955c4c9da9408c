"""Whether this host can run the sandbox, for skip markers that say why not."""

from __future__ import annotations

import os

import pytest

from loopwright.errors import ConfigurationError
from loopwright.sandbox import check_available


def sandbox_unavailable_reason() -> str | None:
    if os.environ.get("LOOPWRIGHT_SKIP_SANDBOX_TESTS") == "1":
        return "sandbox tests disabled by LOOPWRIGHT_SKIP_SANDBOX_TESTS=1"
    try:
        check_available()
    except ConfigurationError as exc:
        return f"the sandbox cannot run on this host: {exc}"
    return None


_REASON = sandbox_unavailable_reason()
requires_sandbox = pytest.mark.skipif(_REASON is not None, reason=_REASON or "")
