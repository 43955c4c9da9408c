"""Shared fixtures: a fresh session context rooted in the test's temp directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from loopwright.tools.base import SessionState, ToolContext


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(state=SessionState(cwd=tmp_path), tool_use_id="t1")
