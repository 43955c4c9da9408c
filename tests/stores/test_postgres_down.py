"""Resuming, or running, while PostgreSQL is down: a clear error before the stream starts
(opening a session) or an error result (mid-run), never a raw psycopg exception. The
server is one of the test's own, started here and then stopped."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from loopwright import Options, run
from loopwright.stores.base import SessionError
from loopwright.stores.postgres import PostgresStore
from loopwright.testing import ScriptedModel, text, tool_call
from loopwright.tools.base import tool
from postgres_server import PostgresServer, postgres_server


@pytest.fixture
def server() -> Iterator[PostgresServer]:
    with postgres_server(max_connections=20) as started:
        yield started


def _options(store: str | PostgresStore, **more: object) -> Options:
    return Options(
        model=ScriptedModel([text("first run"), text("second run")]),
        setting_sources=[],
        session_store=store,
        **more,  # type: ignore[arg-type]
    )


def _is_ours(error: BaseException) -> None:
    """Our words, not psycopg's exception: the type, and what to do."""
    assert isinstance(error, SessionError) and "psycopg" not in type(error).__module__
    assert "server is running" in str(error)


async def test_resuming_in_a_fresh_process_while_the_server_is_down_raises_before_the_stream(
    server: PostgresServer,
) -> None:
    first = await run("hello", _options(server.url))
    assert first.subtype == "success"
    server.stop()
    stream = run("and again", _options(server.url, resume=first.session_id))
    with pytest.raises(SessionError) as refused:
        await stream
    _is_ours(refused.value)
    assert "cannot connect to PostgreSQL" in str(refused.value)


async def test_resuming_on_an_open_store_after_the_server_went_away_raises_before_the_stream(
    server: PostgresServer,
) -> None:
    store = PostgresStore(server.url)  # the application's store, open across runs
    try:
        first = await run("hello", _options(store))
        assert first.subtype == "success"
        server.stop()  # the pool and the lock connection are cut under the store
        with pytest.raises(SessionError) as refused:
            await run("and again", _options(store, resume=first.session_id))
        _is_ours(refused.value)
    finally:
        await store.aclose()


async def test_the_server_going_away_mid_run_ends_the_session_with_an_error_result(
    server: PostgresServer,
) -> None:
    @tool()
    def stop_the_database() -> str:
        """Stop the session store's server."""
        server.stop()
        return "stopped"

    options = Options(
        model=ScriptedModel([tool_call("stop_the_database"), text("never recorded")]),
        tools=[stop_the_database],
        allowed_tools=["stop_the_database"],
        setting_sources=[],
        session_store=server.url,
    )
    result = await run("go", options)
    assert result.subtype == "error_during_execution"
    assert "server is running" in result.errors[0]
