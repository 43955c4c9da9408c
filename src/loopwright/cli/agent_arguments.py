"""The flags that configure an agent run, shared by print mode, the REPL and ``loop``."""

from __future__ import annotations

import argparse
import asyncio

from loopwright.cli.session_ids import session_to_resume
from loopwright.errors import ConfigurationError
from loopwright.models.settings import ModelSettings, parse_setting
from loopwright.options import Options

PERMISSION_MODE_CHOICES = ("default", "acceptEdits", "plan", "dontAsk", "bypassPermissions")


def add_agent_arguments(
    parser: argparse.ArgumentParser, *, budget_help: str = "stop once the run has cost this much"
) -> None:
    """Model, limits, tools, permissions and session flags (everything but the prompt)."""
    parser.add_argument("--model", help="anthropic:ID, openai:ID, openai-chat:ID or scripted:FILE")
    parser.add_argument("--max-turns", "--maxTurns", type=int)
    parser.add_argument("--temperature", type=float, help="sampling temperature (0-2)")
    parser.add_argument(
        "--tool-choice", help="auto, any (must call a tool), none, or a tool's name"
    )
    parser.add_argument(
        "--setting",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a model setting (top_p, stop, seed, service_tier, parallel_tool_calls, "
        "reasoning_summary, user, header.NAME); other keys go into the request body "
        "(JSON values allowed)",
    )
    parser.add_argument("--max-budget-usd", "--maxBudgetUsd", type=float, help=budget_help)
    parser.add_argument("--cwd")
    parser.add_argument("--system-prompt", "--systemPrompt")
    parser.add_argument("--append-system-prompt", "--appendSystemPrompt")
    parser.add_argument(
        "--tools",
        help='comma-separated built-in tool names the model sees ("" = none, "default" = all)',
    )
    parser.add_argument(
        "--permission-mode", "--permissionMode", choices=(*PERMISSION_MODE_CHOICES, "auto")
    )
    parser.add_argument(
        "--allowed-tools",
        "--allowedTools",
        help='comma-separated rules to approve, e.g. "Read,Bash(npm test *)"',
    )
    parser.add_argument(
        "--disallowed-tools",
        "--disallowedTools",
        help="comma-separated rules to deny; a bare name removes the tool",
    )
    parser.add_argument(
        "--add-dir", "--addDir", action="append", default=[], help="another working dir"
    )
    parser.add_argument(
        "--include-partial-messages", "--includePartialMessages", action="store_true"
    )
    parser.add_argument(
        "--defer-tools", help="comma-separated rules whose calls wait for approval (approvals)"
    )
    parser.add_argument(
        "--mcp-sampling", action="store_true", help="let MCP servers ask this session's model"
    )
    parser.add_argument(
        "-r",
        "--resume",
        metavar="SESSION_ID",
        nargs="?",
        const="",  # no id: the interactive session opens a picker
        help="continue this session (no id, interactive: pick one of this folder's)",
    )
    parser.add_argument(
        "-c",
        "--continue",
        dest="continue_conversation",
        action="store_true",
        help="continue the most recent session in this directory",
    )
    parser.add_argument(
        "--fork-session", "--forkSession", action="store_true", help="resume into a new session id"
    )
    parser.add_argument("--resume-at", metavar="MESSAGE_UUID", help="branch from this message")
    parser.add_argument("--session-id", "--sessionId", help="use this id for a new session")
    parser.add_argument("--no-session-persistence", action="store_true")
    parser.add_argument("--session-store", help="jsonl (default), sqlite:PATH or postgresql://…")
    parser.add_argument(
        "--strict-settings",
        action="store_true",
        help="a rule that can never match or an unknown settings key is an error, not a warning",
    )
    parser.add_argument(
        "--no-project-settings",
        action="store_true",
        help="read nothing from the checkout: no settings, CLAUDE.md, hooks, agents, .mcp.json",
    )


def split_rules(value: str | None) -> list[str]:
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


def tools_from_flag(value: str | None) -> list[str] | None:
    """``--tools``: absent or "default" = every built-in; "" = none (Claude Code's meaning:
    an SDK's ``tools=[]`` must never hand the model a shell); else the names listed."""
    if value is None or value.strip() == "default":
        return None
    return split_rules(value)


def check_rules(rules: list[str], flag: str) -> None:
    """A malformed rule is a usage error naming the flag, not a traceback at session start."""
    from loopwright.permissions.rules import RuleSyntaxError, parse_rule

    for rule in rules:
        try:
            parse_rule(rule, "allow")
        except RuleSyntaxError as exc:
            raise ConfigurationError(f"{flag}: {exc}") from exc


def check_agent_arguments(args: argparse.Namespace) -> None:
    """Flags that would otherwise be accepted and then silently do nothing (or nonsense)."""
    resuming = args.resume is not None or args.continue_conversation
    for flag, given in (("--fork-session", args.fork_session), ("--resume-at", args.resume_at)):
        if given and not resuming:
            raise ConfigurationError(
                f"{flag} applies to a resumed session; add --resume SESSION_ID or --continue"
            )
    if args.resume == "":
        raise ConfigurationError(
            "--resume without a session id picks one in the interactive session only; "
            "give the id (or a unique prefix): --resume ID (see `loopwright sessions list`)"
        )
    if args.resume is not None and args.continue_conversation:
        raise ConfigurationError("--resume and --continue both pick a session; give only one")
    check_rules(split_rules(args.allowed_tools), "--allowed-tools")
    check_rules(split_rules(args.disallowed_tools), "--disallowed-tools")
    if args.max_turns is not None and args.max_turns < 0:
        raise ConfigurationError(f"--max-turns must be 0 or more, got {args.max_turns}")
    if args.max_budget_usd is not None and not args.max_budget_usd > 0:
        raise ConfigurationError(
            f"--max-budget-usd must be a positive amount of dollars, got {args.max_budget_usd}"
        )


def model_settings_from_args(args: argparse.Namespace) -> ModelSettings | None:
    """--temperature, --tool-choice and every --setting KEY=VALUE, or None if none given."""
    settings = ModelSettings()
    for assignment in args.setting:
        settings = parse_setting(settings, assignment)
    if args.temperature is not None:
        settings = parse_setting(settings, f"temperature={args.temperature}")
    if args.tool_choice is not None:
        settings = parse_setting(settings, f"tool_choice={args.tool_choice}")
    return None if settings == ModelSettings() else settings


def options_from_args(args: argparse.Namespace) -> Options:
    check_agent_arguments(args)
    # --resume takes a unique prefix and --continue must find a session: both become the
    # full id here, so the run opens exactly the session the user meant.
    resume = asyncio.run(
        session_to_resume(args.session_store, args.cwd, args.resume, args.continue_conversation)
    )
    return Options(
        model=args.model,
        model_settings=model_settings_from_args(args),
        cwd=args.cwd,
        max_turns=args.max_turns,
        max_budget_usd=args.max_budget_usd,
        system_prompt=args.system_prompt,
        append_system_prompt=args.append_system_prompt,
        tools=tools_from_flag(args.tools),
        disallowed_tools=split_rules(args.disallowed_tools),
        allowed_tools=split_rules(args.allowed_tools),
        defer_tools=split_rules(args.defer_tools),
        permission_mode="default" if args.permission_mode == "auto" else args.permission_mode,
        add_dirs=args.add_dir,
        include_partial_messages=args.include_partial_messages,
        mcp_sampling=args.mcp_sampling,
        resume=resume,
        fork_session=args.fork_session,
        resume_at=args.resume_at,
        session_id=args.session_id,
        persist_session=not args.no_session_persistence,
        session_store=args.session_store,
        strict_settings=args.strict_settings,
        project_settings=not args.no_project_settings,
    )
