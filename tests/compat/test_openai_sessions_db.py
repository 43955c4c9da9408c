"""The OpenAI Agents layer's database sessions against real databases: SQLAlchemySession on
SQLite (aiosqlite) and on the PostgreSQL the tests start (psycopg async),
AdvancedSQLiteSession (branches, usage per turn) and EncryptedSession over them."""

import uuid
from pathlib import Path
from typing import Any

import pytest

from loopwright.compat.openai_agents import (
    Agent,
    OpenAIConversationsSession,
    Runner,
    UserError,
    function_tool,
)
from loopwright.compat.openai_agents.extensions.memory import (
    AdvancedSQLiteSession,
    EncryptedSession,
    RedisSession,
    SQLAlchemySession,
)
from loopwright.messages import UserMessage
from loopwright.testing import ScriptedModel, text, tool_call


def _user_texts(model: ScriptedModel) -> list[str]:
    """What each request's conversation held as plain user text."""
    return [
        " | ".join(
            m.content
            for m in r.messages
            if isinstance(m, UserMessage) and isinstance(m.content, str)
        )
        for r in model.requests
    ]


async def _two_runs_remember(session: Any) -> ScriptedModel:
    model = ScriptedModel([text("Noted: blue."), text("You said blue.")])
    agent = Agent(name="A", model=model)
    await Runner.run(agent, "My colour is blue.", session=session)
    await Runner.run(agent, "What is my colour?", session=session)
    return model


def _sqlite_url(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path / 'sessions.db'}"


async def test_sqlalchemy_session_on_sqlite_keeps_the_conversation(tmp_path: Path) -> None:
    session = SQLAlchemySession.from_url("chat", url=_sqlite_url(tmp_path), create_tables=True)

    model = await _two_runs_remember(session)

    assert _user_texts(model)[1] == "My colour is blue. | What is my colour?"
    items = await session.get_items()
    assert [i.get("role") for i in items] == ["user", "assistant", "user", "assistant"]
    # Another session object on the same file reads the same rows.
    again = SQLAlchemySession.from_url("chat", url=_sqlite_url(tmp_path))
    assert await again.get_items(limit=1) == items[-1:]
    assert await again.pop_item() == items[-1]
    assert len(await session.get_items()) == 3
    await session.clear_session()
    assert await again.get_items() == []
    await session.engine.dispose()
    await again.engine.dispose()


async def test_sqlalchemy_session_on_postgresql(postgres_port: int) -> None:
    table = f"oai_messages_{uuid.uuid4().hex[:8]}"
    url = f"postgresql+psycopg://postgres@127.0.0.1:{postgres_port}/postgres"
    session = SQLAlchemySession.from_url(
        "pg-chat",
        url=url,
        create_tables=True,
        sessions_table=f"{table}_sessions",
        messages_table=table,
    )

    model = await _two_runs_remember(session)

    assert _user_texts(model)[1] == "My colour is blue. | What is my colour?"
    other = SQLAlchemySession.from_url(
        "pg-chat", url=url, sessions_table=f"{table}_sessions", messages_table=table
    )
    assert len(await other.get_items()) == 4
    assert await other.get_items(limit=2) == (await session.get_items())[-2:]
    await other.clear_session()
    assert await session.get_items() == []
    await session.engine.dispose()
    await other.engine.dispose()


@function_tool
def weather(city: str) -> str:
    """The weather in a city."""
    return f"{city}: sunny"


async def test_advanced_sqlite_session_branches_from_a_turn(tmp_path: Path) -> None:
    session = AdvancedSQLiteSession(session_id="s", db_path=tmp_path / "adv.db", create_tables=True)
    model = ScriptedModel(
        [tool_call("weather", city="SF"), text("SF is sunny."), text("Paris."), text("NYC.")]
    )
    agent = Agent(name="A", model=model, tools=[weather])

    first = await Runner.run(agent, "Weather in SF?", session=session)
    await session.store_run_usage(first)
    await Runner.run(agent, "Capital of France?", session=session)
    turns = await session.get_conversation_turns()
    branch = await session.create_branch_from_turn(2)
    await Runner.run(agent, "Biggest US city?", session=session)

    assert [t["content"] for t in turns] == ["Weather in SF?", "Capital of France?"]
    branch_items = await session.get_items()
    assert [i.get("content") for i in branch_items if i.get("role") == "user"] == [
        "Weather in SF?",
        "Biggest US city?",
    ]
    assert _user_texts(model)[-1] == "Weather in SF? | Biggest US city?"
    await session.switch_to_branch("main")
    assert len(await session.get_items()) == 6  # user, call, output, answer; user, answer
    branches = {b["branch_id"]: b for b in await session.list_branches()}
    assert branches[branch]["user_turns"] == 2 and branches["main"]["is_current"]
    assert await session.get_tool_usage() == [("weather", 1, 1)]
    by_turn = await session.get_conversation_by_turns()
    assert [i["type"] for i in by_turn[1]] == [
        "user",
        "function_call",
        "function_call_output",
        "assistant",
    ]
    with pytest.raises(ValueError, match="get_conversation_turns"):
        await session.create_branch_from_turn(7)
    session.close()


async def test_advanced_sqlite_session_tracks_usage_per_turn(tmp_path: Path) -> None:
    session = AdvancedSQLiteSession(session_id="u", db_path=tmp_path / "u.db", create_tables=True)
    agent = Agent(name="A", model=ScriptedModel([text("one"), text("two")]))

    for prompt in ("first", "second"):
        result = await Runner.run(agent, prompt, session=session)
        await session.store_run_usage(result)

    usage = await session.get_session_usage()
    per_turn = await session.get_turn_usage()
    assert usage is not None and usage["requests"] == 2 and usage["total_turns"] == 2
    assert isinstance(per_turn, list)
    assert [t["user_turn_number"] for t in per_turn] == [1, 2]
    assert usage["total_tokens"] == sum(t["total_tokens"] for t in per_turn) > 0
    session.close()


async def test_encrypted_session_over_sqlalchemy_stores_only_ciphertext(tmp_path: Path) -> None:
    url = _sqlite_url(tmp_path)
    store = SQLAlchemySession.from_url("secret", url=url, create_tables=True)
    session = EncryptedSession("secret", store, encryption_key="a key of our own", ttl=600)

    model = await _two_runs_remember(session)

    assert _user_texts(model)[1] == "My colour is blue. | What is my colour?"
    raw = await store.get_items()
    assert raw and all(r.get("__enc__") == 1 for r in raw)
    assert "blue" not in repr(raw)
    wrong_key = EncryptedSession("secret", store, encryption_key="another key")
    assert await wrong_key.get_items() == []
    await store.engine.dispose()


def test_sessions_on_openais_servers_say_what_to_use_instead() -> None:
    with pytest.raises(UserError, match="SQLAlchemySession"):
        OpenAIConversationsSession()
    with pytest.raises(UserError, match="SQLAlchemySession"):
        RedisSession.from_url("s", url="redis://localhost")
