"""AskUserQuestion in the REPL: the model's questions answered by the person at the terminal.

Like a permission question, the ``ask_user`` callback runs on the event-loop thread and
posts a :class:`UserQuestions` to the REPL's queue; the main thread shows each question
(through the sanitiser: the text is the model's) and hands the answers back.

An answer is the number of an option, several numbers for a multi-select question
(``1 3``), or anything else typed: the person's own words, as Claude Code's "Other".
"""

from __future__ import annotations

import asyncio
import queue
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from rich.markup import escape

from loopwright.cli.terminal_text import visible, visible_line

Answers = dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class UserQuestions:
    questions: tuple[dict[str, Any], ...]
    # Thread-safe: settles the awaiting callback; None = dismissed (Esc, Ctrl-C).
    answer: Callable[[Answers], None]


def _options(question: dict[str, Any]) -> list[dict[str, Any]]:
    return [cast(dict[str, Any], option) for option in question.get("options", [])]


def question_markup(question: dict[str, Any]) -> str:
    header = str(question.get("header") or "")
    lines = [
        "[bold cyan]?[/bold cyan] "
        + (f"[bold]{escape(visible_line(header))}[/bold] · " if header else "")
        + escape(visible(str(question.get("question", ""))))
    ]
    for number, option in enumerate(_options(question), start=1):
        label = escape(visible_line(str(option.get("label", ""))))
        description = str(option.get("description") or "")
        lines.append(
            f"  [bold]{number}.[/bold] {label}"
            + (f" [dim]— {escape(visible(description))}[/dim]" if description else "")
        )
    several = "numbers (e.g. 1 3)" if question.get("multiSelect") else "a number"
    lines.append(f"  [dim]type {several}, or your own answer; Enter alone skips[/dim]")
    return "\n".join(lines)


def parse_answer(question: dict[str, Any], reply: str) -> str | list[str]:
    """The chosen label(s) for numbers that name options; otherwise the words typed."""
    labels = [str(option.get("label", "")) for option in _options(question)]
    numbers = re.split(r"[\s,]+", reply.strip())
    if reply.strip() and all(n.isdigit() and 1 <= int(n) <= len(labels) for n in numbers):
        chosen = [labels[int(n) - 1] for n in dict.fromkeys(numbers)]
        return chosen if question.get("multiSelect") else chosen[0]
    return reply.strip()


class TerminalQuestions:
    """The REPL's ``ask_user``: posts the questions and waits for the main thread."""

    def __init__(self, events: queue.Queue[Any]) -> None:
        self._events = events

    async def __call__(self, questions: list[dict[str, Any]]) -> Answers:
        loop = asyncio.get_running_loop()
        answered: asyncio.Future[Answers] = loop.create_future()

        def answer(answers: Answers) -> None:
            loop.call_soon_threadsafe(_settle, answered, answers)

        self._events.put(UserQuestions(tuple(questions), answer))
        return await answered


def _settle(future: asyncio.Future[Answers], answers: Answers) -> None:
    if not future.done():
        future.set_result(answers)
