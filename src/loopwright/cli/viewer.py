"""``loopwright sessions export``: one session as a self-contained HTML page.

A header with the totals, a per-call token/cost chart (inline SVG), and the timeline of
every recorded message — tool calls with their results folded under them — in the order
they happened. Everything the session wrote is escaped; the page loads nothing else.
"""

from __future__ import annotations

import datetime
import html
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from loopwright.cli.terminal_text import visible
from loopwright.cli.usage_chart import TurnUsage, usage_chart_svg
from loopwright.cli.viewer_style import PAGE_STYLE
from loopwright.cost import cost_of
from loopwright.messages import (
    AssistantMessage,
    ImageBlock,
    Message,
    ResultMessage,
    StreamEvent,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
    UserMessage,
    message_from_dict,
)
from loopwright.stores import Entry
from loopwright.stores.approvals import ANSWERED_SUBTYPE, PENDING_SUBTYPE, PendingBatch
from loopwright.stores.transcript import chain


def escape(text: str) -> str:
    """Session text as HTML: markup escaped, and bidi overrides and control characters
    shown as escapes, so that the page cannot reorder or hide what the session said."""
    return html.escape(visible(text))


@dataclass(frozen=True, slots=True)
class Compaction:
    trigger: str
    pre_tokens: int
    post_tokens: int
    summary: str
    model: str
    usage: Usage | None


@dataclass(frozen=True, slots=True)
class TimelineItem:
    timestamp: float
    event: Message | Compaction
    anchor: str = ""


@dataclass(slots=True)
class SessionTimeline:
    session_id: str
    meta: dict[str, Any] = field(default_factory=dict[str, Any])
    items: list[TimelineItem] = field(default_factory=list[TimelineItem])
    turns: list[TurnUsage] = field(default_factory=list[TurnUsage])
    results: dict[str, ToolResultBlock] = field(default_factory=dict[str, ToolResultBlock])
    # Calls that wait for a person's approval (tool_use_id → why), until answered.
    waiting: dict[str, str] = field(default_factory=dict[str, str])


def build_timeline(session_id: str, entries: Sequence[Entry]) -> SessionTimeline:
    """The session's current branch, root to leaf, with every model call's usage."""
    timeline = SessionTimeline(session_id)
    for entry in entries:
        if entry.kind == "meta":
            timeline.meta.update(entry.payload)
    for entry in chain(entries):
        if entry.kind == "message":
            _add_message(timeline, entry)
        elif entry.kind == "compact":
            _add_compaction(timeline, entry)
    return timeline


def _add_message(timeline: SessionTimeline, entry: Entry) -> None:
    message = message_from_dict(entry.payload)
    anchor = ""
    if isinstance(message, AssistantMessage):
        anchor = f"call-{len(timeline.turns) + 1}"
        who = "subagent call" if message.parent_tool_use_id else "model call"
        timeline.turns.append(
            _turn(anchor, f"{who} {len(timeline.turns) + 1}", message.model, message.usage)
        )
    if isinstance(message, SystemMessage):
        _note_approvals(timeline, message)
    if isinstance(message, UserMessage) and not isinstance(message.content, str):
        for block in message.content:
            if isinstance(block, ToolResultBlock):
                timeline.results[block.tool_use_id] = block
    timeline.items.append(TimelineItem(entry.timestamp, message, anchor))


def _note_approvals(timeline: SessionTimeline, message: SystemMessage) -> None:
    if message.subtype == PENDING_SUBTYPE:
        batch = PendingBatch.from_record(message.data)
        timeline.results.update({r.tool_use_id: r for r in batch.results})
        timeline.waiting = {c.tool_use_id: c.reason for c in batch.calls}
    elif message.subtype == ANSWERED_SUBTYPE:
        timeline.waiting = {}


def _add_compaction(timeline: SessionTimeline, entry: Entry) -> None:
    payload = entry.payload
    raw_usage = payload.get("usage")
    usage = Usage.from_dict(raw_usage) if isinstance(raw_usage, dict) else None
    record = Compaction(
        trigger=str(payload.get("trigger", "")),
        pre_tokens=int(payload.get("pre_tokens") or 0),
        post_tokens=int(payload.get("post_tokens") or 0),
        summary=str(payload.get("summary", "")),
        model=str(payload.get("model") or ""),
        usage=usage,
    )
    anchor = ""
    if usage is not None:
        anchor = f"call-{len(timeline.turns) + 1}"
        label = f"compaction {len(timeline.turns) + 1}"
        timeline.turns.append(_turn(anchor, label, record.model, usage))
    timeline.items.append(TimelineItem(entry.timestamp, record, anchor))


def _turn(anchor: str, label: str, model: str, usage: Usage) -> TurnUsage:
    return TurnUsage(
        anchor=anchor,
        label=label,
        model=model or "unknown model",
        input_tokens=usage.input_tokens,
        cache_read_tokens=usage.cache_read_input_tokens,
        cache_write_tokens=usage.cache_creation_input_tokens,
        output_tokens=usage.output_tokens,
        cost_usd=cost_of(model, usage),
    )


# --------------------------------------------------------------------------- the page


def render_session_html(timeline: SessionTimeline) -> str:
    title = f"loopwright session {timeline.session_id}"
    body = "".join(_item_html(timeline, item) for item in timeline.items)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{PAGE_STYLE}</style></head><body>"
        f"<header><h1>{escape(title)}</h1>{_summary_html(timeline)}</header>"
        '<section class="chart"><h2>Tokens and cost per model call</h2>'
        f"{usage_chart_svg(timeline.turns)}</section>"
        f'<section><h2>Timeline</h2><ol class="timeline">{body}</ol></section>'
        "</body></html>\n"
    )


def _summary_html(timeline: SessionTimeline) -> str:
    usage = Usage()
    for turn in timeline.turns:
        usage = usage + Usage(
            turn.input_tokens, turn.output_tokens, turn.cache_read_tokens, turn.cache_write_tokens
        )
    costs = [turn.cost_usd for turn in timeline.turns]
    cost = "unknown" if None in costs else f"${sum(c for c in costs if c is not None):.4f}"
    models = sorted({turn.model for turn in timeline.turns})
    prompts = sum(
        1
        for item in timeline.items
        if isinstance(item.event, UserMessage) and isinstance(item.event.content, str)
    )
    rows = [
        ("title", str(timeline.meta.get("title", ""))),
        ("directory", str(timeline.meta.get("cwd", ""))),
        ("models", ", ".join(models)),
        ("prompts", str(prompts)),
        ("model calls", str(len(timeline.turns))),
        (
            "tokens",
            f"{usage.input_tokens:,} input · {usage.output_tokens:,} output · "
            f"{usage.cache_read_input_tokens:,} cache read · "
            f"{usage.cache_creation_input_tokens:,} cache write",
        ),
        ("cost", cost),
    ]
    if timeline.items:
        first, last = timeline.items[0].timestamp, timeline.items[-1].timestamp
        rows.append(("time", f"{_when(first)} to {_when(last)}"))
    cells = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in rows if v)
    return f'<dl class="summary">{cells}</dl>'


def _when(timestamp: float) -> str:
    return datetime.datetime.fromtimestamp(timestamp).strftime("%Y-%m-%d %H:%M:%S")


def _item_html(timeline: SessionTimeline, item: TimelineItem) -> str:
    event = item.event
    if isinstance(event, UserMessage) and _only_tool_results(event, timeline):
        return ""  # shown under the calls they answer
    kind, inner = _event_html(timeline, event)
    in_subagent = isinstance(event, AssistantMessage | UserMessage | StreamEvent)
    subagent = event.parent_tool_use_id if in_subagent else None
    classes = f"item {kind}" + (" subagent" if subagent else "")
    anchor = f' id="{escape(item.anchor)}"' if item.anchor else ""
    stamp = f"<time>{escape(_when(item.timestamp)[11:])}</time>"
    label = '<span class="tag">subagent</span>' if subagent else ""
    return f'<li class="{classes}"{anchor}>{stamp}{label}{inner}</li>'


def _only_tool_results(message: UserMessage, timeline: SessionTimeline) -> bool:
    if isinstance(message.content, str) or not message.content:
        return False
    return all(isinstance(b, ToolResultBlock) for b in message.content) and all(
        _call_exists(timeline, b.tool_use_id)
        for b in message.content
        if isinstance(b, ToolResultBlock)
    )


def _call_exists(timeline: SessionTimeline, tool_use_id: str) -> bool:
    return any(
        isinstance(item.event, AssistantMessage)
        and any(call.id == tool_use_id for call in item.event.tool_calls)
        for item in timeline.items
    )


def _event_html(timeline: SessionTimeline, event: Message | Compaction) -> tuple[str, str]:
    match event:
        case Compaction():
            return "compact", _compaction_html(event)
        case UserMessage(content=str() as prompt):
            return "user", f'<div class="who">prompt</div><pre class="text">{escape(prompt)}</pre>'
        case UserMessage():
            return "user", '<div class="who">user</div>' + _blocks_html(timeline, event.content)
        case AssistantMessage():
            return "assistant", _assistant_html(timeline, event)
        case ResultMessage():
            return "result", _result_html(event)
        case SystemMessage():
            return "system", _system_html(event)
        case _:
            return "other", f"<pre>{escape(json.dumps(event.to_dict(), default=str))}</pre>"


def _assistant_html(timeline: SessionTimeline, message: AssistantMessage) -> str:
    usage = message.usage
    cost = cost_of(message.model, usage)
    priced = "" if cost is None else f" · ${cost:.4f}"
    head = (
        f'<div class="who">assistant <span class="meta">{escape(message.model)} · '
        f"{usage.context_tokens:,}"
        f" in · {usage.output_tokens:,} out{priced}</span></div>"
    )
    return head + _blocks_html(timeline, message.content)


def _blocks_html(timeline: SessionTimeline, blocks: Sequence[Any]) -> str:
    parts: list[str] = []
    for block in blocks:
        match block:
            case TextBlock(text=text) if text:
                parts.append(f'<pre class="text">{escape(text)}</pre>')
            case ThinkingBlock(thinking=thinking) if thinking:
                parts.append(
                    '<details class="thinking"><summary>thinking</summary>'
                    f"<pre>{escape(thinking)}</pre></details>"
                )
            case ToolUseBlock():
                waits = timeline.waiting.get(block.id)
                parts.append(_tool_html(block, timeline.results.get(block.id), waits))
            case ToolResultBlock():
                parts.append(_tool_result_html(block, open_=True))
            case ImageBlock(media_type=media_type):
                parts.append(f'<p class="meta">[image {escape(media_type)}]</p>')
            case _:
                pass
    return "".join(parts)


def _tool_summary(call: ToolUseBlock) -> str:
    for key in ("command", "file_path", "path", "pattern", "url", "query", "description"):
        if key in call.input:
            return str(call.input[key])[:160]
    return json.dumps(call.input, ensure_ascii=False)[:160]


def _tool_html(call: ToolUseBlock, result: ToolResultBlock | None, waits: str | None) -> str:
    if result is None and waits is not None:
        status = f'<span class="status pending">waiting for approval: {escape(waits)}</span>'
    elif result is None:
        status = '<span class="status pending">no result</span>'
    elif result.is_error:
        status = '<span class="status error">error</span>'
    else:
        status = '<span class="status ok">ok</span>'
    arguments = call.raw_input or json.dumps(call.input, indent=2, ensure_ascii=False)
    body = f'<div class="label">input</div><pre class="tool-input">{escape(arguments)}</pre>'
    if result is not None:
        body += _tool_result_html(result, open_=False)
    return (
        f'<details class="tool" data-tool-use-id="{escape(call.id)}"><summary>'
        f"<b>{escape(call.name)}</b>(<code>{escape(_tool_summary(call))}</code>) {status}"
        f"</summary>{body}</details>"
    )


def _tool_result_html(result: ToolResultBlock, *, open_: bool) -> str:
    images = (
        0
        if isinstance(result.content, str)
        else sum(isinstance(b, ImageBlock) for b in result.content)
    )
    note = f" (+{images} image(s))" if images else ""
    css = "tool-result error" if result.is_error else "tool-result"
    return (
        f'<div class="label">result{note}</div><pre class="{css}">{escape(result.text)}</pre>'
        if not open_
        else f'<div class="who">tool result</div><pre class="{css}">{escape(result.text)}</pre>'
    )


def _result_html(result: ResultMessage) -> str:
    usage = result.usage
    cost = "cost unknown" if result.total_cost_usd is None else f"${result.total_cost_usd:.4f}"
    state = "error" if result.is_error else "ok"
    errors = "".join(f"<li>{escape(e)}</li>" for e in result.errors)
    return (
        f'<div class="who">result <span class="status {state}">{escape(result.subtype)}</span>'
        f'</div><p class="meta">{result.num_turns} turn(s) · {usage.input_tokens:,} in · '
        f"{usage.output_tokens:,} out · {cost} · {result.duration_ms / 1000:.2f} s</p>"
        + (f'<ul class="errors">{errors}</ul>' if errors else "")
    )


def _system_html(message: SystemMessage) -> str:
    if message.subtype == "init":
        data = message.data
        tools = ", ".join(str(t) for t in data.get("tools", []))
        return (
            f'<div class="who">session start</div><p class="meta">model '
            f"{escape(str(data.get('model', '')))} · {escape(str(data.get('cwd', '')))} · "
            f"permission mode {escape(str(data.get('permission_mode', '')))} · tools: "
            f"{escape(tools)}</p>"
        )
    if message.subtype == PENDING_SUBTYPE:
        calls = PendingBatch.from_record(message.data).calls
        listed = "".join(
            f"<li><b>{escape(c.tool_name)}</b> <code>{escape(c.tool_use_id)}</code>: "
            f"{escape(c.reason)}</li>"
            for c in calls
        )
        return (
            '<div class="who">waiting for approval <span class="meta">(answer with '
            "<code>loopwright approvals approve|deny</code>)</span></div>"
            f'<ul class="errors">{listed}</ul>'
        )
    details = escape(json.dumps(message.data, indent=2, ensure_ascii=False, default=str))
    return (
        f'<details class="system"><summary>system: {escape(message.subtype)}</summary>'
        f"<pre>{details}</pre></details>"
    )


def _compaction_html(record: Compaction) -> str:
    return (
        f'<div class="who">conversation compacted <span class="meta">({escape(record.trigger)}: '
        f"{record.pre_tokens:,} → {record.post_tokens:,} tokens)</span></div>"
        '<details class="summary-text"><summary>summary</summary>'
        f"<pre>{escape(record.summary)}</pre></details>"
    )
