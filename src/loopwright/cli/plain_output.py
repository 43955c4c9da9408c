"""Results and messages as plain text and JSON lines: what print mode writes.

Kept apart from the rich renderer so that ``loopwright -p`` does not import rich.
"""

from __future__ import annotations

import json
from typing import Any

from loopwright.messages import Message, ResultMessage, SystemMessage

# What an error result means when the run gave no message of its own, and what to do.
_ENDED_BECAUSE = {
    "error_max_turns": "the turn limit was reached; raise --max-turns or --resume the session",
    "error_max_budget_usd": "the budget was spent; raise --max-budget-usd or --resume it",
    "error_max_tokens_budget": "the token budget was spent; raise it or --resume the session",
    "error_max_structured_output_retries": "no valid structured answer after the retries",
    "interrupted": "the run was interrupted; --resume the session to go on",
}


def result_text(result: ResultMessage) -> str:
    if result.result is not None:
        return result.result
    detail = "; ".join(result.errors) or _ENDED_BECAUSE.get(
        result.subtype, "the run ended without a message; see the transcript"
    )
    return f"error: {result.subtype}: {detail}"


def start_notice(message: Message) -> str | None:
    """The text of an informational notice (a rule that never matches, a setting that is
    ignored), which text output shows on stderr."""
    if isinstance(message, SystemMessage) and message.subtype == "informational":
        text = message.data.get("message")
        return text if isinstance(text, str) else None
    return None


# Characters JSON leaves unescaped that str.splitlines() (and JavaScript, before ES2019)
# treat as line breaks: escaped, so that one message is always exactly one line.
_LINE_BREAKS_JSON_KEEPS = {"\u0085": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def to_json_line(message: Message) -> str:
    """One message as one line of UTF-8-encodable JSON, whatever text it carries."""
    return dict_to_json_line(message.to_dict())


def dict_to_json_line(data: dict[str, Any]) -> str:
    """A JSON object as one line of UTF-8-encodable JSON, whatever text it carries."""
    line = json.dumps(data, ensure_ascii=False, default=str)
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:
        # A lone surrogate (a file name that is not UTF-8, say) cannot be written as UTF-8;
        # escaped, it stays valid JSON that round-trips.
        return json.dumps(data, ensure_ascii=True, default=str)
    for char, escaped in _LINE_BREAKS_JSON_KEEPS.items():
        line = line.replace(char, escaped)
    return line
