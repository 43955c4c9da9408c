"""``/help COMMAND``: what one slash command does, in more words than the list has."""

from __future__ import annotations

COMMAND_HELP: dict[str, str] = {
    "compact": "/compact [focus] — replace the conversation so far by a summary (optionally "
    "saying what to keep), to free the context window. The transcript keeps everything.",
    "cost": "/cost — tokens in and out, cache use, cost, turns and API time of this session, "
    "subagents included, and how full the context window is.",
    "model": "/model [spec] — with no argument, the model in use; with one (anthropic:ID, "
    "openai:ID, scripted:FILE …), switch to it for the next requests.",
    "clear": "/clear — start a new conversation with an empty context: a new session id. The "
    "previous session stays on disk; /resume brings it back.",
    "resume": "/resume — list this folder's recent sessions (first prompt, age, cost) and "
    "continue the one whose number you type; the conversation so far is shown first.",
    "permissions": "/permissions — the permission mode, the allow / ask / deny rules in force "
    "with where each came from, and what “always” allowed in this session. “Always” "
    "also writes the rule to .claude/settings.local.json (or "
    ".loopwright/settings.local.json), so later sessions allow it too.",
    "mcp": "/mcp — each MCP server of the session (.mcp.json, settings, options) with its "
    "status (connected / failed) and how many tools it gives.",
    "agents": "/agents — the subagents the Agent tool can start (.claude/agents/*.md, "
    "~/.claude/agents, Options(agents=...)).",
    "memory": "/memory — the memory files read into the system prompt (AGENTS.md, "
    "CLAUDE.md, their imports); edit them to change what every session knows.",
    "init": "/init — write a starter AGENTS.md (CLAUDE.md in a project that uses .claude/) at "
    "the project root after asking; an existing file is never overwritten.",
    "status": "/status — session id, model, folder, permission mode, whether the checkout "
    "is trusted, and how many tools, MCP servers, subagents and skills are on.",
    "help": "/help [command] — the list of commands, or this text for one of them.",
    "exit": "/exit (or /quit, Ctrl-D, Ctrl-C on an empty line) — end the session. It can be "
    "continued later: loopwright --continue, or --resume to pick one.",
}
COMMAND_HELP["quit"] = COMMAND_HELP["exit"]


def command_help(name: str) -> str | None:
    return COMMAND_HELP.get(name.lstrip("/").lower())
