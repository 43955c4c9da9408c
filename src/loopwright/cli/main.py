"""``loopwright``: print mode (``-p``), the interactive session, and the subcommands."""

from __future__ import annotations

import argparse
import asyncio
import os
import stat
import sys
from collections.abc import Sequence

from loopwright.cli.agent_arguments import add_agent_arguments, options_from_args
from loopwright.cli.plain_output import result_text, to_json_line
from loopwright.cli.stream_json import StreamJsonWriter
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
            "passes), `schedule install` and `fleet run|worker|status`."
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
    return parser


async def print_mode(prompt: str, options: Options, output_format: str) -> int:
    from loopwright.cli.stopping import Stopping, stoppable_run

    result: ResultMessage | None = None
    stream = StreamJsonWriter()
    stopping = Stopping()  # SIGTERM/SIGHUP/SIGINT end the run with an interrupted result
    async for message in stoppable_run(prompt, options, stopping):
        if output_format == "stream-json":
            sys.stdout.write(stream.line(message) + "\n")
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
    if arguments[:1] == ["demo"]:
        from loopwright.cli.demo import run_demo

        return asyncio.run(run_demo())
    if arguments[:1] == ["sessions"]:
        from loopwright.cli.sessions import sessions_command

        return sessions_command(arguments[1:])
    if arguments[:1] == ["loop"]:
        from loopwright.cli.outer_loop import loop_command

        return loop_command(arguments[1:])
    if arguments[:1] == ["schedule"]:
        from loopwright.cli.schedule import schedule_command

        return schedule_command(arguments[1:])
    if arguments[:1] == ["fleet"]:
        from loopwright.cli.fleet import fleet_command

        return fleet_command(arguments[1:])
    args = build_parser().parse_args(arguments)
    try:
        options = options_from_args(args)
        if args.prompt is not None and not args.prompt.strip():
            raise ConfigurationError('the prompt is empty; say what to do: -p "PROMPT"')
        if args.prompt is not None:
            piped = piped_input()
            prompt = args.prompt if not piped else with_piped_input(args.prompt, piped)
            return asyncio.run(print_mode(prompt, options, args.output_format))
        if not sys.stdin.isatty():
            prompt = piped_input() or ""
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
        print(f"loopwright: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except LoopwrightError as exc:
        print(f"loopwright: {exc}", file=sys.stderr)
        return EXIT_ERROR_RESULT
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
