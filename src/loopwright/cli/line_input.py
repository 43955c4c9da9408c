"""The REPL's line editor (prompt_toolkit): history across sessions, multi-line input,
slash-command completion.

- History: ``$LOOPWRIGHT_HOME/repl_history`` (Up/Down, Ctrl-R), shared by every session.
- Multi-line: Alt-Enter (or Esc then Enter) adds a line; so does ending a line with ``\\``.
  Enter sends. A paste with line breaks arrives as one prompt (bracketed paste).
- Completion: Tab after ``/`` offers the slash commands.
- Ctrl-C clears a half-typed prompt; on an empty one it raises KeyboardInterrupt (the REPL
  leaves), as does Ctrl-D (EOFError). So a person who typed something is never thrown out
  by one key press.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from prompt_toolkit import PromptSession
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.history import FileHistory
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.output.defaults import create_output

from loopwright.private_files import create_private_file
from loopwright.stores.base import loopwright_home

HISTORY_FILE_NAME = "repl_history"


def history_path() -> Path:
    return loopwright_home() / HISTORY_FILE_NAME


class SlashCommandCompleter(Completer):
    """Completes ``/co`` to ``/compact`` or ``/cost``; nothing for ordinary prompts."""

    def __init__(self, commands: Iterable[tuple[str, str]]) -> None:
        self.commands = tuple(commands)

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterator[Completion]:
        typed = document.text_before_cursor
        if not typed.startswith("/") or " " in typed:
            return
        for name, meaning in self.commands:
            if name.startswith(typed[1:]):
                yield Completion(f"/{name}", start_position=-len(typed), display_meta=meaning)


def _key_bindings() -> KeyBindings:
    bindings = KeyBindings()

    @bindings.add("enter")
    def _(event: KeyPressEvent) -> None:
        buffer = event.current_buffer
        if buffer.document.text_before_cursor.endswith("\\"):
            buffer.delete_before_cursor(1)  # a trailing backslash continues the prompt
            buffer.insert_text("\n")
        else:
            buffer.validate_and_handle()

    @bindings.add("escape", "enter")
    def _(event: KeyPressEvent) -> None:
        event.current_buffer.insert_text("\n")

    @bindings.add("c-c")
    def _(event: KeyPressEvent) -> None:
        buffer = event.current_buffer
        if buffer.text:
            buffer.reset()  # the first Ctrl-C clears what was typed
        else:
            event.app.exit(exception=KeyboardInterrupt())

    return bindings


class LineReader:
    """Reads one prompt at a time from the terminal."""

    def __init__(self, commands: Iterable[tuple[str, str]], history: Path | None = None) -> None:
        path = history or history_path()
        create_private_file(path)  # what the user typed: owner-only, as transcripts are
        output = create_output()
        # Cursor-position queries only size completion menus; terminals (and test ptys)
        # that never answer them would make prompt_toolkit print a warning.
        output.enable_cpr = False  # type: ignore[attr-defined]
        self.session: PromptSession[str] = PromptSession(
            history=FileHistory(str(path)),
            completer=SlashCommandCompleter(commands),
            complete_while_typing=False,
            multiline=True,  # Enter is bound above: it sends unless the line ends in "\"
            key_bindings=_key_bindings(),
            prompt_continuation=lambda width, line_number, wrap_count: "." * (width - 1) + " ",
            output=output,
        )

    def read(self, prompt: str, default: str = "") -> str:
        """One prompt (``default``: text already typed, e.g. while the last response ran);
        raises EOFError on Ctrl-D and KeyboardInterrupt on Ctrl-C at an empty prompt."""
        return self.session.prompt(prompt, default=default)
