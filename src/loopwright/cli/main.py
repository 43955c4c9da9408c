"""``loopwright``: print mode (``-p``), an interactive session, and ``demo``."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence

from loopwright.cli.render import Renderer, result_text, to_json_line
from loopwright.client import Client, query
from loopwright.errors import ConfigurationError, LoopwrightError
from loopwright.messages import ResultMessage
from loopwright.options import Options

EXIT_ERROR_RESULT = 1
EXIT_USAGE = 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="loopwright",
        description="Run an agent loop. `loopwright demo` runs the offline walkthrough.",
    )
    parser.add_argument("-p", "--print", dest="prompt", help="run this prompt and print the result")
    parser.add_argument("--model", help="anthropic:ID, openai:ID, openai-chat:ID or scripted:FILE")
    parser.add_argument("--output-format", choices=("text", "json", "stream-json"), default="text")
    parser.add_argument("--max-turns", type=int)
    parser.add_argument("--max-budget-usd", type=float)
    parser.add_argument("--cwd")
    parser.add_argument("--system-prompt")
    parser.add_argument("--append-system-prompt")
    parser.add_argument("--tools", help="comma-separated built-in tool names the model sees")
    parser.add_argument(
        "--permission-mode",
        choices=("default", "acceptEdits", "plan", "dontAsk", "bypassPermissions"),
    )
    parser.add_argument(
        "--allowed-tools", help='comma-separated rules to approve, e.g. "Read,Bash(npm test *)"'
    )
    parser.add_argument(
        "--disallowed-tools", help="comma-separated rules to deny; a bare name removes the tool"
    )
    parser.add_argument("--add-dir", action="append", default=[], help="another working dir")
    parser.add_argument("--include-partial-messages", action="store_true")
    parser.add_argument("-r", "--resume", metavar="SESSION_ID", help="continue this session")
    parser.add_argument(
        "-c",
        "--continue",
        dest="continue_conversation",
        action="store_true",
        help="continue the most recent session in this directory",
    )
    parser.add_argument("--fork-session", action="store_true", help="resume into a new session id")
    parser.add_argument("--resume-at", metavar="MESSAGE_UUID", help="branch from this message")
    parser.add_argument("--session-id", help="use this id for a new session")
    parser.add_argument("--no-session-persistence", action="store_true")
    parser.add_argument("--session-store", help="jsonl (default), sqlite:PATH or postgresql://…")
    return parser


def _split(value: str | None) -> list[str]:
    """Split on commas outside parentheses: "Bash(git diff, x),Read" has two rules."""
    items: list[str] = []
    depth, current = 0, ""
    for char in value or "":
        depth += (char == "(") - (char == ")")
        if char == "," and depth == 0:
            items.append(current.strip())
            current = ""
        else:
            current += char
    items.append(current.strip())
    return [item for item in items if item]


def options_from_args(args: argparse.Namespace) -> Options:
    return Options(
        model=args.model,
        cwd=args.cwd,
        max_turns=args.max_turns,
        max_budget_usd=args.max_budget_usd,
        system_prompt=args.system_prompt,
        append_system_prompt=args.append_system_prompt,
        tools=_split(args.tools) if args.tools else None,
        disallowed_tools=_split(args.disallowed_tools),
        allowed_tools=_split(args.allowed_tools),
        permission_mode=args.permission_mode,
        add_dirs=args.add_dir,
        include_partial_messages=args.include_partial_messages,
        resume=args.resume,
        continue_conversation=args.continue_conversation,
        fork_session=args.fork_session,
        resume_at=args.resume_at,
        session_id=args.session_id,
        persist_session=not args.no_session_persistence,
        session_store=args.session_store,
    )


async def print_mode(prompt: str, options: Options, output_format: str) -> int:
    result: ResultMessage | None = None
    async for message in query(prompt, options):
        if output_format == "stream-json":
            sys.stdout.write(to_json_line(message) + "\n")
            sys.stdout.flush()
        if isinstance(message, ResultMessage):
            result = message
    if result is None:  # pragma: no cover - the loop always ends with a result
        return EXIT_ERROR_RESULT
    if output_format == "json":
        print(to_json_line(result))
    elif output_format == "text":
        stream = sys.stderr if result.is_error else sys.stdout
        print(result_text(result), file=stream)
    return EXIT_ERROR_RESULT if result.is_error else 0


async def interactive(options: Options) -> int:
    """A line-based session: each line is a prompt; /exit or EOF ends it."""
    renderer = Renderer()
    async with Client(options) as client:
        renderer.console.print("[dim]loopwright — type a prompt; /exit to quit[/dim]")
        while True:
            try:
                line = await asyncio.to_thread(input, "> ")
            except EOFError:
                return 0
            if line.strip() in ("/exit", "/quit"):
                return 0
            if not line.strip():
                continue
            await client.query(line)
            async for message in client.receive_response():
                renderer.show(message)


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:1] == ["demo"]:
        from loopwright.cli.demo import run_demo

        return asyncio.run(run_demo())
    if arguments[:1] == ["sessions"]:
        from loopwright.cli.sessions import sessions_command

        return sessions_command(arguments[1:])
    args = build_parser().parse_args(arguments)
    try:
        options = options_from_args(args)
        if args.prompt is not None:
            return asyncio.run(print_mode(args.prompt, options, args.output_format))
        if not sys.stdin.isatty():
            prompt = sys.stdin.read()
            return asyncio.run(print_mode(prompt, options, args.output_format))
        return asyncio.run(interactive(options))
    except ConfigurationError as exc:
        print(f"loopwright: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except LoopwrightError as exc:
        print(f"loopwright: {exc}", file=sys.stderr)
        return EXIT_ERROR_RESULT
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
