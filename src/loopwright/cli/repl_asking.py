"""The two questions a response can put to the person: may this tool run, and the
model's own AskUserQuestion. Both arrive on the REPL's queue and are answered here, on
the main thread, which owns the terminal.

A permission question takes one key, no Enter: y(es), n(o) (also Esc), t(ell the model
what to do instead: a line of text that becomes the deny message), a(lways: the rule is
shown before it is chosen, and written to the local settings file when it is).
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.markup import escape

from loopwright.cli.permission_prompt import PermissionQuestion, parse_choice
from loopwright.cli.repl_keys import Keys
from loopwright.cli.repl_local_rules import add_allow_rules, local_settings_path
from loopwright.cli.repl_questions import UserQuestions, parse_answer, question_markup
from loopwright.cli.terminal_text import visible, visible_line
from loopwright.errors import ConfigurationError
from loopwright.settings.load import find_project_root

_WORDS = {"yes": "yes", "no": "no", "always": "always", "tell": "no, and tell it why"}


def _relative(path: Path, cwd: str) -> str:
    root = find_project_root(Path(cwd).resolve())
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def choices_line(question: PermissionQuestion, settings_file: Path | None) -> str:
    if question.always and settings_file is not None:
        where = escape(visible_line(_relative(settings_file, question.cwd or ".")))
        always = f"{escape(question.always_label())} [dim](saved to {where})[/dim]"
    else:
        always = "this exact call [dim](this session only)[/dim]"
    return f"  \\[y]es · \\[n]o · \\[t]ell it what to do instead · \\[a]lways allow {always}: "


def ask_permission(console: Console, keys: Keys, question: PermissionQuestion) -> None:
    """Show the question and what the call will do; settle it with the key pressed."""
    cwd = question.cwd or str(Path.cwd())
    settings_file = local_settings_path(cwd) if question.always else None
    console.print(question.prompt_markup())
    console.print(choices_line(question, settings_file), end="")
    try:
        while (choice := parse_choice(keys.read())) is None:
            pass  # any other key: keep waiting for one of the four
        console.print(_WORDS[choice])
        if choice == "tell":
            with keys.cooked():
                reason = input("  what should it do instead? ")
            question.answer("tell", reason)
            return
    except (EOFError, KeyboardInterrupt):
        question.answer("no")
        raise KeyboardInterrupt from None  # and stop the response
    if choice == "always" and settings_file is not None:
        _save_rules(console, settings_file, question)
    question.answer(choice)


def _save_rules(console: Console, settings_file: Path, question: PermissionQuestion) -> None:
    try:
        add_allow_rules(settings_file, question.always)
    except (ConfigurationError, OSError) as exc:
        console.print(
            f"  [red]not saved: {escape(visible(str(exc)))}[/red] [dim](allowed for this "
            "session only)[/dim]"
        )
        return
    console.print(
        f"  [dim]added {escape(question.always_label())} to "
        f"{escape(visible_line(str(settings_file)))}[/dim]"
    )


def ask_questions(console: Console, keys: Keys, asked: UserQuestions) -> None:
    """Each question in turn; a number picks an option, other words are the answer."""
    answers: dict[str, object] = {}
    try:
        with keys.cooked():
            for question in asked.questions:
                console.print(question_markup(question))
                reply = input("  answer: ")
                if reply.strip():
                    answers[str(question["question"])] = parse_answer(question, reply)
    except (EOFError, KeyboardInterrupt):
        asked.answer(None)  # dismissed: the model is told so
        raise KeyboardInterrupt from None
    asked.answer(answers or None)
