"""The older history as plain text for the summariser, cut to fit its request.

Tool outputs are clipped (the summary needs what happened, not every byte), and when the
whole still does not fit, the oldest lines go first — except earlier summaries, which
carry everything before them and are always kept.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from loopwright.context.tokens import estimate_text_tokens
from loopwright.messages import (
    AssistantMessage,
    ContentBlock,
    ConversationMessage,
    ImageBlock,
    ServerToolBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
)

SUMMARY_HEADER = (
    "[Summary of the earlier conversation, written when the context was compacted. "
    "The task statement above is the original request; continue from the state below.]"
)
RESULT_CLIP = 1500
INPUT_CLIP = 600


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]} … [{len(text) - limit} more chars]"


def _block_line(role: str, block: ContentBlock, names: dict[str, str]) -> str | None:
    match block:
        case TextBlock(text=text):
            return f"{role}: {text}" if text.strip() else None
        case ThinkingBlock():
            return None  # reasoning is not needed to continue and is often long
        case ToolUseBlock(id=call_id, name=name, input=tool_input, raw_input=raw):
            names[call_id] = name
            body = raw if raw is not None else json.dumps(tool_input, ensure_ascii=False)
            return f"ASSISTANT called {name}({_clip(body, INPUT_CLIP)})"
        case ToolResultBlock(tool_use_id=call_id, is_error=is_error):
            label = "ERROR from" if is_error else "RESULT of"
            return f"{label} {names.get(call_id, 'tool')}: {_clip(block.text, RESULT_CLIP)}"
        case ImageBlock():
            return f"{role}: [image]"
        case ServerToolBlock(name=name, kind=kind, input=tool_input):
            # The provider ran it; a summary needs what was asked, not the raw results.
            if kind == "result":
                return f"({name} results were returned to the assistant)"
            asked = json.dumps(tool_input, ensure_ascii=False)
            return f"ASSISTANT used the provider's {name}({_clip(asked, INPUT_CLIP)})"


def _message_lines(message: ConversationMessage, names: dict[str, str]) -> list[str]:
    role = "ASSISTANT" if isinstance(message, AssistantMessage) else "USER"
    if isinstance(message, UserMessage) and isinstance(message.content, str):
        return [f"{role}: {message.content}"]
    blocks = message.blocks if isinstance(message, UserMessage) else message.content
    lines = [_block_line(role, block, names) for block in blocks]
    return [line for line in lines if line]


def render_for_summary(messages: Sequence[ConversationMessage], budget_tokens: int) -> str:
    names: dict[str, str] = {}
    lines: list[tuple[bool, str]] = []
    for message in messages:
        pinned = isinstance(message, UserMessage) and _is_summary(message)
        lines.extend((pinned, line) for line in _message_lines(message, names))
    used = sum(estimate_text_tokens(line) for pinned, line in lines if pinned)
    kept: list[str] = []
    omitted = 0
    for pinned, line in reversed(lines):  # newest first: the recent past matters most
        cost = estimate_text_tokens(line)
        if pinned or used + cost <= budget_tokens:
            kept.append(line)
            used += 0 if pinned else cost
        else:
            omitted += 1
    kept.reverse()
    if omitted:
        kept.insert(0, f"[{omitted} older lines omitted to fit the summariser's context]")
    transcript = "\n\n".join(kept)
    return (
        "Summarise this agent session so far.\n\n<conversation>\n"
        f"{transcript}\n</conversation>\n\nWrite the summary now."
    )


def _is_summary(message: UserMessage) -> bool:
    return isinstance(message.content, str) and message.content.startswith(SUMMARY_HEADER)
