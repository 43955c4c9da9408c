"""``loopwright loop``: the loop around the loop.

Run the agent, run a check command; while the check fails, run the agent again in the same
session (resumed, so it remembers what it tried) and tell it what the check said. Bounded
by iterations and by a budget across all iterations; ``--every`` spaces the runs out on a
schedule instead of starting the next one at once.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import os
import signal
import sys
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from rich.console import Console
from rich.markup import escape

from loopwright.cli.agent_arguments import add_agent_arguments, options_from_args
from loopwright.cli.durations import parse_duration
from loopwright.cli.render import Renderer
from loopwright.cli.terminal_text import visible, visible_line
from loopwright.client import query
from loopwright.errors import ConfigurationError, LoopwrightError
from loopwright.messages import ResultMessage
from loopwright.options import Options

EXIT_CHECK_PASSED = 0
EXIT_GAVE_UP = 1
EXIT_USAGE = 2
EXIT_COMMAND_NOT_FOUND = 127  # what the shell exits with when it cannot find the command
DEFAULT_MAX_ITERATIONS = 10
CHECK_OUTPUT_LINES = 40  # enough of a test failure to act on, not a whole log


@dataclass(frozen=True, slots=True)
class CheckOutcome:
    exit_code: int
    output: str

    @property
    def passed(self) -> bool:
        return self.exit_code == 0

    def tail(self) -> str:
        lines = self.output.rstrip().splitlines()
        return "\n".join(lines[-CHECK_OUTPUT_LINES:]) or "(no output)"


@dataclass(frozen=True, slots=True)
class LoopPlan:
    prompt: str
    until: str | None
    max_iterations: int | None  # None: no limit (a schedule bounded only by budget)
    max_budget_usd: float | None
    every_seconds: float | None
    check_timeout: float


def loop_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="loopwright loop",
        description="Rerun the agent in one session until a check command exits 0.",
    )
    parser.add_argument("loop_prompt", metavar="PROMPT")
    parser.add_argument("--until", metavar="CMD", help="shell command; exit 0 ends the loop")
    parser.add_argument(
        "--max-iterations",
        type=int,
        default=DEFAULT_MAX_ITERATIONS,
        help=f"agent runs at most (default {DEFAULT_MAX_ITERATIONS}; 0 = no limit)",
    )
    parser.add_argument("--every", metavar="INTERVAL", help="wait this long between runs (1h…)")
    parser.add_argument("--check-timeout", type=float, default=600.0, metavar="SECONDS")
    add_agent_arguments(parser, budget_help="budget of all the runs together")
    return parser


def feedback_prompt(plan: LoopPlan, iteration: int, check: CheckOutcome | None) -> str:
    """The first run gets the prompt; later runs also hear what the check said."""
    if check is None:
        return plan.prompt
    return (
        f"{plan.prompt}\n\n"
        f"(Iteration {iteration}: the check `{plan.until}` still fails with exit code "
        f"{check.exit_code}. Its output ends with:)\n```\n{check.tail()}\n```"
    )


async def run_check(command: str, cwd: str, timeout: float) -> CheckOutcome:
    process = await asyncio.create_subprocess_shell(
        command,
        cwd=cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        output, _ = await asyncio.wait_for(process.communicate(), timeout)
    except TimeoutError:
        # The check runs in its own session: kill the whole group, not just the shell, or
        # whatever it started (a test runner, a server) lives on after the loop.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        await process.wait()
        return CheckOutcome(124, f"the check did not finish within {timeout:g} s")
    return CheckOutcome(process.returncode or 0, output.decode(errors="replace"))


class OuterLoop:
    def __init__(self, plan: LoopPlan, options: Options, console: Console | None = None) -> None:
        self.plan = plan
        self.console = console or Console(highlight=False)
        self.renderer = Renderer(self.console, show_prompt=False)
        self.spent_usd: float | None = 0.0
        self.options = self._first_run_options(options)

    @staticmethod
    def _first_run_options(options: Options) -> Options:
        if not options.persist_session:
            raise ConfigurationError(
                "loopwright loop resumes its session between runs, so it needs session "
                "persistence; drop --no-session-persistence"
            )
        from loopwright.session.assemble import resolve_model

        # One model object for every run: a scripted model carries on through its script,
        # and a provider's settings are resolved (and checked) once, before any work.
        model = resolve_model(options.model)
        session_id = options.session_id
        if not (options.resume or options.continue_conversation or session_id):
            session_id = str(uuid.uuid4())
        return dataclasses.replace(options, model=model, session_id=session_id)

    def _budget_left(self) -> float | None:
        if self.plan.max_budget_usd is None or self.spent_usd is None:
            return self.plan.max_budget_usd
        return self.plan.max_budget_usd - self.spent_usd

    async def run(self) -> int:
        options, check = self.options, None
        iteration = 0
        while self.plan.max_iterations is None or iteration < self.plan.max_iterations:
            iteration += 1
            left = self._budget_left()
            if left is not None and left <= 0:
                self.console.print(f"[red]budget of ${self.plan.max_budget_usd:.4f} spent[/red]")
                return EXIT_GAVE_UP
            if iteration > 1 and self.plan.every_seconds:
                self.console.print(f"[dim]next run in {self.plan.every_seconds:g} s[/dim]")
                await asyncio.sleep(self.plan.every_seconds)
            self._header(iteration)
            prompt = feedback_prompt(self.plan, iteration, check)
            result = await self._run_agent(
                prompt, dataclasses.replace(options, max_budget_usd=left)
            )
            # Every later run resumes this session (and must not fork or branch it again).
            options = dataclasses.replace(
                options,
                resume=result.session_id,
                session_id=None,
                continue_conversation=False,
                fork_session=False,
                resume_at=None,
            )
            if self.plan.until is None:
                continue
            check = await run_check(self.plan.until, self._cwd(), self.plan.check_timeout)
            if check.passed:
                self.console.print(f"[green]✓ check passed after {iteration} run(s)[/green]")
                return EXIT_CHECK_PASSED
            if check.exit_code == EXIT_COMMAND_NOT_FOUND:
                # No run of the agent will make a missing command appear: say so now rather
                # than spend every iteration and the budget on it.
                self.console.print(
                    f"[red]the check `{escape(self.plan.until)}` could not run: the shell "
                    f"found no such command (exit 127) in {escape(self._cwd())}. Its output:"
                    f"[/red]\n{escape(check.tail())}\n[red]Fix the --until command (try it "
                    "in that directory yourself) and run the loop again.[/red]"
                )
                return EXIT_USAGE
            self.console.print(f"[yellow]✗ check failed (exit {check.exit_code})[/yellow]")
        if self.plan.until is None:
            return EXIT_CHECK_PASSED
        self.console.print(f"[red]the check still fails after {iteration} run(s)[/red]")
        return EXIT_GAVE_UP

    def _cwd(self) -> str:
        return str(self.options.cwd or os.getcwd())

    def _header(self, iteration: int) -> None:
        limit = f"/{self.plan.max_iterations}" if self.plan.max_iterations else ""
        spent = "unknown" if self.spent_usd is None else f"${self.spent_usd:.4f}"
        self.console.rule(f"[bold]iteration {iteration}{limit}[/bold] [dim]· spent {spent}[/dim]")

    async def _run_agent(self, prompt: str, options: Options) -> ResultMessage:
        result: ResultMessage | None = None
        async for message in query(prompt, options):
            self.renderer.show(message)
            if isinstance(message, ResultMessage):
                result = message
        if result is None:  # pragma: no cover - the loop always ends with a result
            raise LoopwrightError("the agent run produced no result")
        cost = result.total_cost_usd
        self.spent_usd = None if cost is None or self.spent_usd is None else self.spent_usd + cost
        if cost is None and self.plan.max_budget_usd is not None:
            self.console.print(
                f"[yellow]{escape(visible_line(result.session_id))}: cost unknown[/yellow]"
            )
        return result


def plan_from_args(args: argparse.Namespace) -> LoopPlan:
    if args.until is None and args.every is None:
        raise ConfigurationError("say when to stop with --until CMD, or schedule runs with --every")
    if not args.check_timeout > 0:
        raise ConfigurationError(
            f"--check-timeout must be a positive number of seconds, got {args.check_timeout}"
        )
    if args.max_iterations < 0:
        raise ConfigurationError("--max-iterations must be 0 (no limit) or more")
    try:
        every = parse_duration(args.every) if args.every is not None else None
    except ValueError as exc:
        raise ConfigurationError(f"--every: {exc}") from exc
    return LoopPlan(
        prompt=args.loop_prompt,
        until=args.until,
        max_iterations=args.max_iterations or None,
        max_budget_usd=args.max_budget_usd,
        every_seconds=every,
        check_timeout=args.check_timeout,
    )


def loop_command(argv: Sequence[str]) -> int:
    args = loop_parser().parse_args(list(argv))
    try:
        plan = plan_from_args(args)
        outer = OuterLoop(plan, options_from_args(args))
        return asyncio.run(outer.run())
    except ConfigurationError as exc:
        print(f"loopwright loop: {visible(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
    except LoopwrightError as exc:
        print(f"loopwright loop: {visible(str(exc))}", file=sys.stderr)
        return EXIT_GAVE_UP
    except KeyboardInterrupt:
        return 130
