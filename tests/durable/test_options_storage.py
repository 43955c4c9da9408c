"""Options a durable session cannot store are refused up front, with what to do instead."""

from __future__ import annotations

import pytest

pytest.importorskip(
    "dbos", reason="DURABLE TESTS NOT RUN: the dbos package is missing (pip install dbos)"
)

from loopwright.durable import enqueue_session, start_session
from loopwright.errors import ConfigurationError
from loopwright.options import Options


def _unpicklable_options() -> Options:
    return Options(model="scripted:unused.yaml", can_use_tool=lambda *_: None)


async def test_unpicklable_options_are_refused_before_the_session_starts() -> None:
    with pytest.raises(ConfigurationError, match=r"package\.module:attribute"):
        await start_session("go", _unpicklable_options())


async def test_unpicklable_options_are_refused_before_they_are_queued() -> None:
    with pytest.raises(ConfigurationError, match="lambdas and closures"):
        await enqueue_session("go", _unpicklable_options())
