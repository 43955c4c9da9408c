"""Hosted tools and server-side features of the OpenAI platform: they run on OpenAI's
servers, which loopwright does not call for them, so making one raises a ``UserError`` that
says what to use instead."""

from __future__ import annotations

from typing import Any

from loopwright.compat.openai_agents._impl.errors import UserError


class _Unsupported:
    _advice = "write a function tool (@function_tool) that does the work locally"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise UserError(
            f"{type(self).__name__} is a hosted tool that runs on OpenAI's servers and is not "
            f"available in loopwright's openai_agents layer; {self._advice}"
        )


class WebSearchTool(_Unsupported):
    _advice = "use a function tool that searches, or loopwright's WebSearch tool with a backend"


class FileSearchTool(_Unsupported):
    pass


class CodeInterpreterTool(_Unsupported):
    pass


class ImageGenerationTool(_Unsupported):
    pass


class ComputerTool(_Unsupported):
    pass


class HostedMCPTool(_Unsupported):
    _advice = "connect the MCP server yourself with MCPServerStreamableHttp / MCPServerSse"


class OpenAIConversationsSession(_Unsupported):
    _advice = (
        "use SQLiteSession (a local file), SQLAlchemySession (any SQL database) or "
        "AdvancedSQLiteSession (branches, usage), which keep the conversation yourself"
    )


class _UnsupportedStore:
    _store = "a database service"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise UserError(
            f"{type(self).__name__} ({self._store}) is not provided by loopwright's "
            "openai_agents layer; use SQLAlchemySession (PostgreSQL, MySQL, SQLite… through "
            "SQLAlchemy's async engine) or SQLiteSession, or write a class with the Session "
            "methods over your store"
        )

    @classmethod
    def from_url(cls, *args: Any, **kwargs: Any) -> Any:
        return cls(*args, **kwargs)


class RedisSession(_UnsupportedStore):
    _store = "Redis"


class MongoDBSession(_UnsupportedStore):
    _store = "MongoDB"


class DaprSession(_UnsupportedStore):
    _store = "Dapr state stores"
