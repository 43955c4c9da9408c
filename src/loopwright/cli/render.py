"""Readable terminal rendering of the message stream (rich)."""

from __future__ import annotations

import json

from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table

# Re-exported: the renderer's callers print results and JSON lines too.
from loopwright.cli.plain_output import dict_to_json_line, result_text, to_json_line
from loopwright.cli.terminal_text import visible, visible_line
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
    UserMessage,
)

__all__ = ["Renderer", "dict_to_json_line", "result_text", "to_json_line"]

MAX_RESULT_LINES = 12


def _shown(text: str) -> str:
    """Session text as rich markup: control sequences made visible, markup escaped."""
    return escape(visible(text))


def _shown_line(text: object) -> str:
    return escape(visible_line(str(text)))


def _summarise_input(call: ToolUseBlock) -> str:
    for key in ("command", "file_path", "pattern", "url", "query", "prompt"):
        if key in call.input:
            return str(call.input[key])
    return json.dumps(call.input, ensure_ascii=False)[:200]


def _result_preview(block: ToolResultBlock) -> str:
    if isinstance(block.content, str):
        text = block.content
    else:
        text = "\n".join(
            b.text if isinstance(b, TextBlock) else f"[image {b.media_type}]"
            for b in block.content
            if isinstance(b, TextBlock | ImageBlock)
        )
    # Made visible before splitting: a \r or a form feed is shown, not taken for a line end.
    lines = visible(text).rstrip().split("\n")
    if len(lines) > MAX_RESULT_LINES:
        hidden = len(lines) - MAX_RESULT_LINES
        lines = [*lines[:MAX_RESULT_LINES], f"… {hidden} more lines"]
    return "\n".join(lines) or "(no output)"


class Renderer:
    """Prints each message as it arrives; tool calls and results are shown as steps."""

    def __init__(self, console: Console | None = None, *, show_prompt: bool = False) -> None:
        self.console = console or Console(highlight=False)
        self.show_prompt = show_prompt
        self._streamed_text = False  # this message's text was shown as it streamed
        self._line_open = False  # the last streamed text did not end its line

    def end_streamed_line(self) -> None:
        """Finish a line of streamed text before something else writes to the terminal."""
        if self._line_open:
            self.console.print()
            self._line_open = False

    def show(self, message: Message) -> None:
        match message:
            case SystemMessage(subtype="init", data=data):
                self.console.print(
                    f"[dim]session {_shown_line(data['session_id'])} · model "
                    f"{_shown_line(data['model'])} · cwd {_shown_line(data['cwd'])}[/dim]"
                )
            case SystemMessage(subtype=subtype, data=data):
                shown = json.dumps(data, ensure_ascii=False, default=str)
                self.console.print(f"[dim]· {_shown_line(subtype)}: {_shown(shown)}[/dim]")
            case StreamEvent(event=event):
                if event.get("type") == "text_delta":
                    self.console.print(_shown(event["text"]), end="")
                    self._streamed_text = self._line_open = True
            case AssistantMessage():
                self._assistant(message)
            case UserMessage(content=str() as prompt):
                if self.show_prompt:
                    self.console.print(f"[bold]> {_shown(prompt)}[/bold]")
            case UserMessage():
                for block in message.blocks:
                    if isinstance(block, ToolResultBlock):
                        style = "red" if block.is_error else "dim"
                        preview = _shown(_result_preview(block))
                        indented = preview.replace("\n", "\n    ")
                        self.console.print(f"[{style}]  ⎿ {indented}[/{style}]")
            case ResultMessage():
                self.result(message)

    def _assistant(self, message: AssistantMessage) -> None:
        if self._streamed_text:
            self.end_streamed_line()
            self._streamed_text = False
        else:
            for block in message.content:
                if isinstance(block, ThinkingBlock) and block.thinking:
                    self.console.print(f"[italic dim]{_shown(block.thinking)}[/italic dim]")
                elif isinstance(block, TextBlock) and block.text:
                    self.console.print(_shown(block.text))
        for call in message.tool_calls:
            self.console.print(
                f"[bold cyan]● {_shown_line(call.name)}[/bold cyan]"
                f"([yellow]{_shown(_summarise_input(call))}[/yellow])"
            )

    def result(self, result: ResultMessage) -> None:
        table = Table.grid(padding=(0, 2))
        table.add_row(
            "outcome", f"[{'red' if result.is_error else 'green'}]{_shown_line(result.subtype)}[/]"
        )
        table.add_row("turns", str(result.num_turns))
        usage = result.usage
        table.add_row(
            "tokens",
            f"{usage.input_tokens:,} in · {usage.output_tokens:,} out · "
            f"{usage.cache_read_input_tokens:,} cache read",
        )
        cost = (
            "unknown (no price for this model)"
            if result.total_cost_usd is None
            else (f"${result.total_cost_usd:.4f}")
        )
        table.add_row("cost", cost)
        seconds = result.duration_ms / 1000
        table.add_row("time", f"{seconds:.2f} s ({result.duration_api_ms} ms in the model)")
        for error in result.errors:
            table.add_row("error", f"[red]{_shown(error)}[/red]")
        self.console.print(Panel(table, title="result", expand=False))
