"""What a tool call touches (its "facts") and whether a rule matches it.

Facts are computed once per call: the shell analysis for Bash, both spellings of the
path for file tools, the host for WebFetch. Rules are then cheap to try.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from loopwright.permissions.commands import expand_glob
from loopwright.permissions.paths.patterns import (
    PathSpellings,
    inside_any,
    rule_matches_path,
    spell,
)
from loopwright.permissions.rule_programs import unknown_program_rule
from loopwright.permissions.rules import (
    EDIT_TOOLS,
    READ_TOOLS,
    PermissionRule,
    command_pattern_regex,
    domain_matches,
)
from loopwright.permissions.shell.analysis import analyze
from loopwright.permissions.shell.normalise import normalise
from loopwright.permissions.shell.readonly_use import read_only_use
from loopwright.permissions.shell.results import ShellAnalysis, SimpleCommand
from loopwright.permissions.shell.runs_programs import runner_option

ToolKind = Literal["read", "edit", "shell", "web_fetch", "agent", "mcp", "free", "other"]

# Tools that never need a permission decision of their own (deny rules still apply).
FREE_TOOLS = frozenset(
    {
        "TodoWrite",
        "Skill",
        "ToolSearch",
        "BashOutput",
        "KillShell",
        "AskUserQuestion",
        "EnterPlanMode",
        "TaskOutput",
        "TaskStop",
        "StructuredOutput",
    }
)
AGENT_TOOLS = frozenset({"Agent", "Task"})
# Fields that carry a tool's main content: never matchable by a ``param:value`` rule,
# because e.g. ``Bash(command:rm *)`` would be bypassed by a compound command.
_PRIMARY_FIELDS = frozenset({"command", "file_path", "path", "url", "notebook_path", "pattern"})
_PARAM_RULE = re.compile(r"^\s*([A-Za-z_][\w]*)\s*:\s*(.*)$", re.DOTALL)
# Bash commands that read files: Read deny rules apply to their arguments.
_FILE_READERS = frozenset(
    {
        "cat",
        "head",
        "tail",
        "less",
        "more",
        "grep",
        "rg",
        "sed",
        "awk",
        "nl",
        "strings",
        "xxd",
        "od",
        "base64",
        "cp",
        "diff",
        "sort",
        "uniq",
        "cut",
        "date",
        "cmp",
        "tac",
        "rev",
        "paste",
        "comm",
        "join",
        "fold",
        "fmt",
        "expand",
        "column",
        "jq",
        "yq",
        "iconv",
        "dd",
        "file",
        "md5sum",
        "sha256sum",
        "wc",
        "look",
        "split",
        "csplit",
        "pr",
        "ed",
        "vim",
        "vi",
        "nano",
        "emacs",
        "python",
        "python3",
        "node",
        "perl",
        "ruby",
        "php",
        "scp",
        "curl",
        "wget",
        "git",
        # Moving, linking or archiving a file exposes its content under another name.
        "mv",
        "ln",
        "tar",
        "zip",
        "gzip",
        "rsync",
        "install",
    }
)
# Bash commands that create or change the files they name: Edit deny rules apply to their
# arguments (these include the ones acceptEdits approves on its own).
_FILE_WRITERS = frozenset(
    {"mkdir", "touch", "mv", "cp", "tee", "ln", "rm", "rmdir", "truncate", "install", "rsync"}
    # In-place editors and tools that take their output file as an argument or value.
    | {"sed", "perl", "awk", "gawk", "patch", "chmod", "chown", "chgrp", "dd", "unlink"}
    | {"shred", "split", "csplit", "git", "tar", "unzip", "zip", "sort", "uniq", "curl", "wget"}
)


def tool_kind(name: str) -> ToolKind:
    if name in READ_TOOLS:
        return "read"
    if name in EDIT_TOOLS:
        return "edit"
    if name == "Bash":
        return "shell"
    if name == "WebFetch":
        return "web_fetch"
    if name in AGENT_TOOLS:
        return "agent"
    if name.startswith("mcp__"):
        return "mcp"
    if name in FREE_TOOLS:
        return "free"
    return "other"


@dataclass(frozen=True, slots=True)
class CallFacts:
    """Everything rule matching needs to know about one call."""

    name: str
    kind: ToolKind
    input: dict[str, Any]
    cwd: Path
    home: Path
    working_dirs: tuple[Path, ...]
    path: PathSpellings | None = None
    shell: ShellAnalysis | None = None
    host: str | None = None

    @property
    def inside_working_dirs(self) -> bool:
        return self.path is not None and inside_any(self.path, self.working_dirs)


def call_facts(
    name: str, input: dict[str, Any], cwd: Path, home: Path, working_dirs: tuple[Path, ...]
) -> CallFacts:
    kind = tool_kind(name)
    dirs = working_dirs or (cwd,)
    match kind:
        case "read" | "edit":
            raw = _file_target(name, input)
            path = spell(raw, cwd, home) if raw is not None else None
            return CallFacts(name, kind, input, cwd, home, dirs, path=path)
        case "shell":
            analysis = analyze(str(input.get("command", "")), cwd, dirs, home=home)
            return CallFacts(name, kind, input, cwd, home, dirs, shell=analysis)
        case "web_fetch":
            return CallFacts(name, kind, input, cwd, home, dirs, host=_host(input.get("url")))
        case "agent" | "mcp" | "free" | "other":
            return CallFacts(name, kind, input, cwd, home, dirs)


def _file_target(name: str, input: dict[str, Any]) -> str | None:
    for key in ("file_path", "notebook_path", "path"):
        value = input.get(key)
        if isinstance(value, str) and value:
            target = value
            break
    else:
        target = "." if name in ("Glob", "Grep", "LS") else None
    pattern = input.get("pattern")
    # Glob walks from the pattern's literal directory prefix: ``../../etc/*``, ``/etc/*``
    # or ``src/link-out/**`` (a symlink) list where they point, not under ``path``.
    if name == "Glob" and isinstance(pattern, str) and target is not None:
        prefix = re.split(r"[*?\[{]", pattern, maxsplit=1)[0]
        target = os.path.join(target, os.path.dirname(prefix) or ".")
    return target


def _host(url: Any) -> str | None:
    if not isinstance(url, str):
        return None
    try:
        return urlsplit(url).hostname
    except ValueError:
        return None


# --------------------------------------------------------------------------- matching


def rule_names_tool(rule: PermissionRule, name: str) -> bool:
    """Read rules cover Glob/Grep; Edit rules cover Write; Agent covers Task."""
    if rule.matches_tool_name(name):
        return True
    # Edit rules cover every tool that edits files, Read rules every tool that reads them,
    # with or without a path (a bare "Edit" deny must not leave Write open).
    if rule.tool == "Read" and name in READ_TOOLS:
        return True
    if rule.tool == "Edit" and name in EDIT_TOOLS:
        return True
    return rule.tool in AGENT_TOOLS and name in AGENT_TOOLS


def names_mcp_server(rule: PermissionRule, facts: CallFacts) -> bool:
    """``mcp__docs`` (or ``mcp__docs__*``) also covers the resource tools on server docs; a
    listing of every server is covered by any server's rule (deny/ask stop it whole)."""
    if facts.name not in ("ListMcpResources", "ReadMcpResource") or rule.specifier is not None:
        return False
    server = facts.input.get("server")
    if not isinstance(server, str) or not server:
        server_rule = "__" not in rule.tool[5:] or rule.tool.endswith("__*")
        return rule.behavior != "allow" and rule.tool.startswith("mcp__") and server_rule
    return rule.matches_tool_name(f"mcp__{server}__resources")


def restrictive_match(rule: PermissionRule, facts: CallFacts) -> bool:
    """Deny/ask matching: true if the rule matches any part of the call."""
    if names_mcp_server(rule, facts):
        return True
    reads_block_edits = (
        rule.behavior == "deny" and rule.tool == "Read" and facts.kind == "edit"
    )  # a file you may not read, you may not overwrite either
    if not (rule_names_tool(rule, facts.name) or (reads_block_edits and rule.specifier)):
        return _matches_shell_files(rule, facts)
    if rule.specifier is None:
        return True
    param = _param_rule(rule, facts)
    if param is not None:
        return param
    match facts.kind:
        case "shell":
            assert facts.shell is not None
            regex = command_pattern_regex(rule.specifier)
            if any(regex.fullmatch(text) for text in facts.shell.deny_texts):
                return True
            program = unknown_program_rule(rule.specifier)
            return program is not None and program in facts.shell.programs
        case "read" | "edit":
            if facts.path is None:
                return False
            return path_rule_matches(rule, facts.path, facts)
        case _:
            return _specifier_matches(rule, facts)


def _matches_shell_files(rule: PermissionRule, facts: CallFacts) -> bool:
    """Read/Edit deny rules also cover files that Bash commands visibly read or write:
    as written, as their globs expand, and from every directory a ``cd`` may lead to."""
    if facts.shell is None or rule.specifier is None or rule.tool not in ("Read", "Edit"):
        return False
    bases = [facts.cwd]
    targets: list[str] = list(facts.shell.redirect_targets)
    if rule.tool == "Read":
        targets.extend(facts.shell.input_sources)
    for command in facts.shell.all_commands:
        bases.extend(command.cd_dirs)
        if rule.tool == "Read":
            targets.extend(_files_read(command))
        elif os.path.basename(command.name) in _FILE_WRITERS:
            targets.extend(_argument_paths(command))
    for base in dict.fromkeys(bases):
        for target in targets:
            expanded = expand_glob(target, base) if any(c in target for c in "*?[") else []
            for path in (target, *expanded):
                spelled = spell(path, base, facts.home)
                if path_rule_matches(rule, spelled, facts):
                    return True
    return False


def unknown_files(facts: CallFacts, tool: str) -> str | None:
    """A file the command reads (``tool`` Read) or writes (Edit) whose path cannot be known
    before it runs: an expansion, ``~user``, a relative path after a ``cd`` we cannot
    follow, or arguments that xargs takes from stdin."""
    if facts.shell is None:
        return None
    shell = facts.shell
    loose = list(shell.redirect_targets) + (list(shell.input_sources) if tool == "Read" else [])
    if (found := next((t for t in loose if _unknowable(t, True)), None)) is not None:
        return found
    for command in shell.all_commands:
        name = os.path.basename(command.name)
        if tool == "Read":
            paths = _files_read(command)
            touches = bool(paths) or name in _FILE_READERS
        else:
            paths = _argument_paths(command) if name in _FILE_WRITERS else []
            touches = name in _FILE_WRITERS
        if touches and command.args_from_stdin:
            return f"the files xargs hands to {name}"
        for path in paths:
            if _unknowable(path, command.cwd_known):
                return path
    return None


def _unknowable(path: str, cwd_known: bool) -> bool:
    if any(ch in path for ch in "$`") or (path.startswith("~") and not path.startswith("~/")):
        return path != "~"
    return not cwd_known and not path.startswith(("/", "~"))


def _files_read(command: SimpleCommand) -> list[str]:
    """Files whose contents a command may print: exactly, for programs whose options we
    know; every non-option word (and every option's glued value) for known readers."""
    use = read_only_use(command.words)
    if use is not None:
        return [*use.content, *use.trees]
    if os.path.basename(command.name) not in _FILE_READERS:
        return []
    return _argument_paths(command)


def _argument_paths(command: SimpleCommand) -> list[str]:
    """Every word that may name a file: operands, ``--opt=value`` and ``-fVALUE`` values,
    and ``name=value`` operands (``dd of=x``)."""
    found: list[str] = []
    for word in command.words[1:]:
        if "=" in word and not word.startswith("-"):
            found.append(word.split("=", 1)[1])
        if not word.startswith("-"):
            found.append(word)
        elif "=" in word:
            found.append(word.split("=", 1)[1])
        elif not word.startswith("--") and len(word) > 2:
            found.append(word[2:])
    return found


def path_rule_matches(rule: PermissionRule, spellings: PathSpellings, facts: CallFacts) -> bool:
    """``path`` / ``./path`` rules are relative to the session's original cwd (the first
    working dir), not to wherever a ``cd`` has since moved the shell; deny and ask rules
    are tried against the current directory as well."""
    session_cwd = facts.working_dirs[0] if facts.working_dirs else facts.cwd
    if rule.behavior == "allow":
        return rule_matches_path(rule, spellings, session_cwd, facts.home)
    return any(
        rule_matches_path(rule, spellings, anchor, facts.home)
        for anchor in dict.fromkeys((session_cwd, facts.cwd))
    )


def allow_match(rule: PermissionRule, facts: CallFacts) -> bool:
    """Allow matching for non-shell tools: the rule must cover the whole call."""
    if names_mcp_server(rule, facts):
        return True
    if not rule_names_tool(rule, facts.name):
        return False
    if rule.specifier is None:
        return True
    match facts.kind:
        case "read" | "edit":
            if facts.path is None:
                return False
            return path_rule_matches(rule, facts.path, facts)
        case "shell":
            return False  # shell allow rules are judged per subcommand by the policy
        case _:
            return _specifier_matches(rule, facts)


def command_allowed(command: SimpleCommand, rules: Sequence[PermissionRule]) -> bool:
    """Some rule matches the command — and if the command runs another program through an
    option (``git -c``, ``tar --to-command``, ``sed s/x/y/e``) or acts elsewhere through a
    global option (``git -C``, ``kubectl -n``, ``terraform -chdir``), the rule spells that
    option out: a ``*`` never approves it. Harmless global options (``git --no-pager``)
    are set aside, so ``Bash(git status)`` covers ``git --no-pager status``."""
    runner = runner_option(command.words)
    normalised = normalise(command.words)
    where = normalised.where if normalised is not None else ()
    spellings = list(command.spellings)
    if normalised is not None and not where and not normalised.hidden:
        spellings += [" ".join(form) for form in normalised.forms[:1]]
    return any(
        rule.specifier is not None
        and (runner is None or runner in rule.specifier)
        and all(option in rule.specifier for option in where)
        and any(command_pattern_regex(rule.specifier).fullmatch(t) for t in spellings)
        for rule in rules
    )


def _specifier_matches(rule: PermissionRule, facts: CallFacts) -> bool:
    assert rule.specifier is not None
    spec = rule.specifier
    match facts.kind:
        case "web_fetch":
            return (
                facts.host is not None
                and spec.startswith("domain:")
                and domain_matches(spec[len("domain:") :].strip(), facts.host)
            )
        case "agent":
            agent = _first_str(facts.input, ("subagent_type", "agent_type", "agent", "name"))
            return agent is not None and _wildcard(spec, agent)
        case "mcp":
            return False
        case _:
            name = _first_str(facts.input, ("skill", "name", "command"))
            return name is not None and _wildcard(spec, name)


def _param_rule(rule: PermissionRule, facts: CallFacts) -> bool | None:
    """``Tool(param:value)`` for deny/ask rules; None when the specifier is not one."""
    assert rule.specifier is not None
    if facts.kind == "web_fetch" or (rule.specifier.endswith(":*") and facts.kind == "shell"):
        return None
    match = _PARAM_RULE.match(rule.specifier)
    if match is None or match.group(1) in _PRIMARY_FIELDS:
        return None
    key, expected = match.group(1), match.group(2).strip()
    if facts.kind == "shell" and key not in facts.input:
        return None
    value = facts.input.get(key)
    if value is None or isinstance(value, dict | list):
        return False
    text = str(value).lower() if isinstance(value, bool) else str(value)
    return _wildcard(expected, text)


def _wildcard(pattern: str, value: str) -> bool:
    regex = ".*".join(re.escape(part) for part in pattern.split("*"))
    return re.fullmatch(regex, value, re.DOTALL) is not None


def _first_str(data: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = data.get(key)
        if isinstance(value, str):
            return value
    return None
