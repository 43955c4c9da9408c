"""The REPL's own commands: ``/cost``, ``/model``, ``/help``, ``/exit``.

``/compact [focus]`` is not here: it goes to the loop as a prompt, which compacts instead of
answering (SDK users get the same behaviour by sending the string).
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.markup import escape
from rich.table import Table

from loopwright.cli.terminal_text import visible_line
from loopwright.session.session import Session

HELP = """\
/compact [focus]  summarise the conversation so far (optionally: what to keep)
/cost             tokens, cost and turns of this session
/model [spec]     show the model, or switch to another (e.g. anthropic:claude-opus-5-5)
/exit             end the session (also: Ctrl-D, or Ctrl-C at the prompt)
Ctrl-C while the agent works interrupts the response.
Alt-Enter (or a line ending in \\) starts a new line; Enter sends. Up/Down and Ctrl-R
search the history of every session; Tab completes a /command."""


# (name, what it does) for completion in the line editor.
COMMANDS: tuple[tuple[str, str], ...] = (
    ("compact", "summarise the conversation so far"),
    ("cost", "tokens, cost and turns of this session"),
    ("model", "show or switch the model"),
    ("help", "the commands"),
    ("exit", "end the session"),
)


@dataclass(frozen=True, slots=True)
class SlashCommand:
    name: str
    argument: str


def parse_slash_command(line: str) -> SlashCommand | None:
    text = line.strip()
    if not text.startswith("/"):
        return None
    name, _, argument = text[1:].partition(" ")
    return SlashCommand(name.lower(), argument.strip())


def cost_table(session: Session, context: dict[str, object]) -> Table:
    """Session totals: every query of this session, subagents included."""
    totals = session.spend.total
    usage = totals.usage
    table = Table.grid(padding=(0, 2))
    table.add_row("session", session.session_id)
    table.add_row("model", escape(visible_line(session.agent.model.name)))
    table.add_row("turns", str(session.spend.turns))
    table.add_row(
        "tokens",
        f"{usage.input_tokens:,} in · {usage.output_tokens:,} out · "
        f"{usage.cache_read_input_tokens:,} cache read · "
        f"{usage.cache_creation_input_tokens:,} cache write",
    )
    cost = totals.cost_usd
    table.add_row("cost", "unknown (no price for this model)" if cost is None else f"${cost:.4f}")
    table.add_row("api time", f"{totals.api_seconds:.2f} s")
    tokens, window = context.get("tokens"), context.get("window")
    if isinstance(tokens, int) and isinstance(window, int) and window > 0:
        table.add_row("context", f"{tokens:,} of {window:,} tokens ({tokens / window:.0%})")
    return table
