"""Resuming in the REPL: the conversation so far on screen, and a picker of sessions.

``--resume ID`` shows the earlier conversation before the first prompt (only its last
messages when it is long: the rest is one line saying how many and how to see them).
``--resume`` with no id, and ``/resume``, list this folder's recent sessions — first
prompt, age, cost — to choose from by number.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass

from rich.console import Console
from rich.markup import escape

from loopwright.cli.render import Renderer
from loopwright.cli.terminal_text import visible_line
from loopwright.messages import Message, ResultMessage, SystemMessage
from loopwright.stores import MinimalStore, get_session_messages, list_sessions, open_store
from loopwright.stores.transcript import restore

SHOWN_MESSAGES = 12  # the tail of a long conversation shown on resume
PICKER_SIZE = 10
StoreSpec = MinimalStore | str | None


@dataclass(frozen=True, slots=True)
class PastSession:
    session_id: str
    summary: str
    updated_at: float
    cost_usd: float | None


def age(seconds_ago: float) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds_ago >= size:
            return f"{int(seconds_ago // size)} {unit} ago"
    return "just now"


async def recent_sessions(store_spec: StoreSpec, cwd: str) -> list[PastSession]:
    """This folder's newest sessions with what the picker shows of each."""
    store = open_store(store_spec, cwd=cwd)
    try:
        infos = (await list_sessions(cwd, store=store))[:PICKER_SIZE]
        found: list[PastSession] = []
        for info in infos:
            cost = restore(await store.load(info.session_id)).state.total_cost_usd
            found.append(PastSession(info.session_id, info.summary, info.updated_at, cost))
        return found
    finally:
        if store_spec is None or isinstance(store_spec, str):  # a store passed in is theirs
            await store.aclose()


def picker_lines(sessions: list[PastSession], now: float | None = None) -> list[str]:
    moment = time.time() if now is None else now
    lines: list[str] = []
    for number, past in enumerate(sessions, start=1):
        cost = "$?" if past.cost_usd is None else f"${past.cost_usd:.4f}"
        lines.append(
            f"  [bold]{number:>2}.[/bold] {escape(visible_line(past.summary or '(no prompt)'))}"
            f"  [dim]{age(moment - past.updated_at)} · {cost} · "
            f"{escape(visible_line(past.session_id))}[/dim]"
        )
    return lines


def choose(sessions: list[PastSession], reply: str) -> PastSession | None:
    """The session numbered ``reply``; None for anything else (Enter alone: none)."""
    text = reply.strip()
    if text.isdigit() and 1 <= int(text) <= len(sessions):
        return sessions[int(text) - 1]
    return None


def pick_session(console: Console, sessions: list[PastSession]) -> PastSession | None:
    """Ask on the terminal which session to resume (a line: the number, then Enter)."""
    if not sessions:
        console.print("[dim]no earlier session in this folder[/dim]")
        return None
    console.print("[bold]resume which session?[/bold]")
    for line in picker_lines(sessions):
        console.print(line)
    while True:
        reply = input("  number (Enter alone: a new session): ")
        if not reply.strip():
            return None
        chosen = choose(sessions, reply)
        if chosen is not None:
            return chosen
        console.print(f"  [red]no session numbered {escape(visible_line(reply))}[/red]")


async def conversation_so_far(
    store_spec: StoreSpec, cwd: str, session_id: str
) -> Sequence[Message]:
    store = open_store(store_spec, cwd=cwd)
    try:
        return await get_session_messages(session_id, store=store)
    finally:
        if store_spec is None or isinstance(store_spec, str):  # a store passed in is theirs
            await store.aclose()


def show_conversation(console: Console, messages: Sequence[Message], session_id: str) -> None:
    """The earlier conversation as the REPL showed it, only the tail when it is long."""
    shown = [m for m in messages if not isinstance(m, SystemMessage | ResultMessage)]
    if not shown:
        return
    hidden = max(0, len(shown) - SHOWN_MESSAGES)
    console.print(f"[dim]── resumed session {escape(visible_line(session_id))} ──[/dim]")
    if hidden:
        console.print(
            f"[dim]… {hidden} earlier message(s) not shown (all of them: loopwright "
            f"sessions show {escape(visible_line(session_id))})[/dim]"
        )
    renderer = Renderer(console, show_prompt=True)
    for message in shown[hidden:]:
        renderer.show(message)
    renderer.end_streamed_line()
    console.print("[dim]── end of the earlier conversation ──[/dim]")


def pick_at_start(store_spec: StoreSpec, cwd: str | None) -> str | None:
    """``--resume`` with no id at a terminal: the chosen session's id, or None (new)."""
    directory = cwd or os.getcwd()
    console = Console(highlight=False)
    chosen = pick_session(console, asyncio.run(recent_sessions(store_spec, directory)))
    return None if chosen is None else chosen.session_id
