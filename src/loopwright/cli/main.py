"""``loopwright``: print mode (``-p``), the interactive session, and the subcommands."""

from __future__ import annotations

import argparse
import asyncio
import os
import stat
import sys
from collections.abc import Sequence

from loopwright.cli.agent_arguments import add_agent_arguments, options_from_args
from loopwright.cli.claude_flags import (
    add_claude_code_arguments,
    ignored_flag_warnings,
    tolerate_unknown_flags,
)
from loopwright.cli.claude_options import with_claude_flags
from loopwright.cli.plain_output import result_text, start_notice, to_json_line
from loopwright.cli.stream_json import StreamJsonWriter
from loopwright.cli.subcommand_order import with_subcommand_first
from loopwright.cli.terminal_text import visible
from loopwright.errors import ConfigurationError, LoopwrightError
from loopwright.messages import ResultMessage
from loopwright.options import Options

EXIT_ERROR_RESULT = 1
EXIT_USAGE = 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="loopwright",
        description=(
            "Run an agent loop: interactive without -p. Subcommands: `loopwright demo` (the "
            "offline walkthrough), `sessions list|show|export`, `loop` (rerun until a check "
            "passes), `schedule install|list|remove`, `fleet run|worker|status`, "
            "`approvals list|approve|deny` and `mcp list|login|logout`."
        ),
    )
    parser.add_argument("-p", "--print", dest="prompt", help="run this prompt and print the result")
    parser.add_argument(
        "initial_prompt",
        nargs="?",
        metavar="PROMPT",
        help="the first prompt of the interactive session (with piped input: put before it)",
    )
    parser.add_argument("--output-format", choices=("text", "json", "stream-json"), default="text")
    add_agent_arguments(parser)
    add_claude_code_arguments(parser)
    return parser


def wants_host_mode(arguments: Sequence[str]) -> bool:
    """``--input-format stream-json``: the process is an Agent SDK's engine (cli/host)."""
    for index, token in enumerate(arguments):
        if token == "--input-format=stream-json":
            return True
        if token == "--input-format" and arguments[index + 1 : index + 2] == ["stream-json"]:
            return True
    return False


async def print_mode(prompt: str, options: Options, output_format: str) -> int:
    # The engine: not needed to answer --help or a host's initialize.
    from loopwright.cli.stopping import Stopping, stoppable_run

    result: ResultMessage | None = None
    stream = StreamJsonWriter()
    stopping = Stopping()  # SIGTERM/SIGHUP/SIGINT end the run with an interrupted result
    async for message in stoppable_run(prompt, options, stopping):
        if output_format == "stream-json":
            sys.stdout.write(stream.line(message) + "\n")
            sys.stdout.flush()
        elif output_format == "text" and (notice := start_notice(message)) is not None:
            print(f"loopwright: {visible(notice)}", file=sys.stderr)  # a rule that never matches…
        if isinstance(message, ResultMessage):
            result = message
    if result is None:  # pragma: no cover - the loop always ends with a result
        return EXIT_ERROR_RESULT
    if output_format == "json":
        print(to_json_line(result))
    elif output_format == "text":
        stream = sys.stderr if result.is_error else sys.stdout
        print(visible(result_text(result)), file=stream)
    if stopping.exit_code is not None:
        return stopping.exit_code
    return EXIT_ERROR_RESULT if result.is_error else 0


def piped_input() -> str | None:
    """What was piped to standard input (`cat build.log | loopwright -p ...`), else None.

    Only a pipe or a file counts: a terminal is the user, and /dev/null, a socket or a
    closed stdin (cron, CI, an IDE's task runner) give nothing to wait for."""
    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode
    except (AttributeError, OSError, ValueError):
        return None
    if not (stat.S_ISFIFO(mode) or stat.S_ISREG(mode)):
        return None
    return sys.stdin.read()


def with_piped_input(prompt: str, piped: str) -> str:
    """The -p prompt with the piped text after it, marked so the model knows what it is."""
    return (
        f"{prompt}\n\n(The text below was piped to loopwright on standard input.)\n"
        f"<stdin>\n{piped.rstrip()}\n</stdin>"
    )


EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, what a shell reports for a writer whose reader left


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _dispatch(list(sys.argv[1:] if argv is None else argv))
    except BrokenPipeError:
        # The reader went away (`loopwright ... | head`): stop quietly, as other Unix tools
        # do. Point stdout at /dev/null so that the flush at exit does not complain again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE


def _dispatch(arguments: list[str]) -> int:
    arguments = with_subcommand_first(arguments)
    if arguments[:1] == ["demo"]:
        from loopwright.cli.demo import demo_command

        return demo_command(arguments[1:])
    if arguments[:1] == ["sessions"]:
        from loopwright.cli.sessions import sessions_command

        return sessions_command(arguments[1:])
    if arguments[:1] == ["loop"]:
        from loopwright.cli.outer_loop import loop_command

        return loop_command(arguments[1:])
    if arguments[:1] == ["schedule"]:
        from loopwright.cli.schedule import schedule_command

        return schedule_command(arguments[1:])
    if arguments[:1] == ["approvals"]:
        from loopwright.cli.approvals import approvals_command

        return approvals_command(arguments[1:])
    if arguments[:1] == ["fleet"]:
        return _fleet(arguments[1:])
    if arguments[:1] == ["mcp"]:
        from loopwright.cli.mcp_commands import mcp_command

        return mcp_command(arguments[1:])
    parser = build_parser()
    host = wants_host_mode(arguments)
    warnings: list[str] = []
    if host:  # an SDK's extra_args may carry flags of newer Claude Code releases
        arguments, warnings = tolerate_unknown_flags(parser, arguments)
    args = parser.parse_args(arguments)
    if args.version:
        from loopwright.cli.host.versions import version_line

        print(version_line())
        return 0
    for warning in [*warnings, *ignored_flag_warnings(args)]:
        print(warning, file=sys.stderr)
    try:
        if args.resume == "" and args.prompt is None and not host and sys.stdin.isatty():
            from loopwright.cli.repl_resume import pick_at_start

            args.resume = pick_at_start(args.session_store, args.cwd)
        options = with_claude_flags(options_from_args(args), args)
        if host:
            from loopwright.cli.host.serve import run_host

            return run_host(options, args)
        if args.prompt is not None and not args.prompt.strip():
            raise ConfigurationError('the prompt is empty; say what to do: -p "PROMPT"')
        if args.prompt is not None:
            piped = piped_input()
            prompt = args.prompt if not piped else with_piped_input(args.prompt, piped)
            return asyncio.run(print_mode(prompt, options, args.output_format))
        if not sys.stdin.isatty():
            prompt = piped_input() or ""
            if not prompt.strip() and args.initial_prompt:
                # `loopwright "PROMPT" < /dev/null` (cron, CI): the prompt was given.
                return asyncio.run(print_mode(args.initial_prompt, options, args.output_format))
            if not prompt.strip():
                raise ConfigurationError(
                    "no prompt: standard input is not a terminal and gave nothing to run; "
                    'pass one with -p "PROMPT" or pipe it in (echo "PROMPT" | loopwright)'
                )
            if args.initial_prompt:
                prompt = f"{args.initial_prompt}\n\n{prompt}"
            return asyncio.run(print_mode(prompt, options, args.output_format))
        if args.output_format != "text":
            raise ConfigurationError(
                f"--output-format {args.output_format} is for print mode; the interactive "
                'session only draws on the terminal. Add -p "PROMPT" (or pipe the prompt in)'
            )
        from loopwright.cli.repl import run_interactive

        return run_interactive(options, args.initial_prompt)
    except ConfigurationError as exc:
        print(f"loopwright: {visible(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
    except LoopwrightError as exc:
        print(f"loopwright: {visible(str(exc))}", file=sys.stderr)
        return EXIT_ERROR_RESULT
    except KeyboardInterrupt:
        return 130


def _fleet(arguments: list[str]) -> int:
    try:
        from loopwright.cli.fleet import fleet_command
    except ImportError as exc:
        print(
            f"loopwright fleet: needs the durable extra ({exc.name or exc} is not installed); "
            "run: pip install 'loopwright[durable]'",
            file=sys.stderr,
        )
        return EXIT_USAGE
    return fleet_command(arguments)


if __name__ == "__main__":
    sys.exit(main())
