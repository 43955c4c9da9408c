"""The permission policy: modes, rules and the evaluation order of SPEC §5.

Order: (PreToolUse hooks, run by the gate) → deny rules → ask rules → mode → allow rules
→ ``can_use_tool``. ``evaluate`` is pure and synchronous; the gate adds hooks and the
callback around it.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from loopwright.permissions.paths.git_config_paths import included_configs
from loopwright.permissions.paths.patterns import PathSpellings, inside_any, spell, tree_has
from loopwright.permissions.paths.protected import (
    PROTECTED_DIR_NAMES,
    PROTECTED_FILE_NAMES,
    is_protected,
)
from loopwright.permissions.rules import PermissionRule, RuleSet
from loopwright.types import (
    PermissionMode,
)

# The shell analyser and the rule matching (commands, matching, read_scope, rule_programs,
# shell.*) are imported where a call is judged: start-up builds the policy, and the first
# request goes out before any tool call.
if TYPE_CHECKING:
    from loopwright.permissions.matching import CallFacts
    from loopwright.permissions.shell.results import SimpleCommand

VerdictBehavior = Literal["allow", "deny", "ask"]


@dataclass(frozen=True, slots=True)
class Verdict:
    """The policy's answer before any callback: allow, deny, or ask someone."""

    behavior: VerdictBehavior
    reason: str
    rule: str | None = None


@dataclass(slots=True)
class PermissionPolicy:
    """Rules plus a mode. ``working_dirs`` are fixed at session start (cwd + add_dirs)."""

    rules: RuleSet = field(default_factory=RuleSet)
    mode: PermissionMode = "default"
    working_dirs: tuple[Path, ...] = ()
    home: Path = field(default_factory=Path.home)
    # Further modes every call must also satisfy (a subagent's parent's): see modes.py.
    also_modes: tuple[PermissionMode, ...] = ()

    def facts(self, name: str, input: dict[str, Any], cwd: Path) -> CallFacts:
        from loopwright.permissions.matching import call_facts  # start-up: see the imports

        return call_facts(name, input, cwd, self.home, self.working_dirs or (cwd,))

    def denied_by_rule(self, name: str, input: dict[str, Any], cwd: Path) -> Verdict | None:
        """Deny rules alone: used again on input that a hook or callback rewrote."""
        facts = self.facts(name, input, cwd)
        rule = _first(self.rules.deny, facts)
        if rule is None:
            return None
        return Verdict("deny", _denied_by(rule.text), rule.text)

    def evaluate(
        self,
        name: str,
        input: dict[str, Any],
        cwd: Path,
        *,
        hook_decision: Literal["allow", "ask"] | None = None,
    ) -> Verdict:
        verdict = self._evaluate_in_mode(name, input, cwd, hook_decision)
        for mode in self.also_modes:
            if mode != self.mode:
                other = dataclasses.replace(self, mode=mode, also_modes=())
                verdict = _stricter(
                    verdict, other._evaluate_in_mode(name, input, cwd, hook_decision)
                )
        if verdict.behavior == "ask" and "dontAsk" in (self.mode, *self.also_modes):
            return Verdict(
                "deny", f"{verdict.reason}; dontAsk mode denies anything not pre-approved"
            )
        return verdict

    def _evaluate_in_mode(
        self,
        name: str,
        input: dict[str, Any],
        cwd: Path,
        hook_decision: Literal["allow", "ask"] | None,
    ) -> Verdict:
        facts = self.facts(name, input, cwd)
        if (rule := _first(self.rules.deny, facts)) is not None:
            return Verdict("deny", _denied_by(rule.text), rule.text)
        if (rule := _first(self.rules.ask, facts)) is not None:
            return self._ask(f"matches ask rule {rule.text}", rule.text)
        if (doubt := self._rule_could_match(facts)) is not None:
            # Code or paths the analyser cannot see: a deny rule might cover them, so no
            # mode (bypassPermissions included) approves them unasked.
            return self._ask(doubt)
        if (tree := self._denied_tree(facts)) is not None:
            # A tree walk would print files a Read deny rule covers: no rule or mode
            # approves that on its own.
            return self._ask(f"it reads through {tree}")
        if (target := critical_removal(facts)) is not None:
            # No hook, mode or allow rule approves wiping /, home or a working dir.
            return self._ask(f"it removes the critical path {target}")
        if hook_decision == "ask":
            return self._ask("a PreToolUse hook asked for confirmation")
        if hook_decision == "allow":
            return Verdict("allow", "approved by a PreToolUse hook")
        if self.mode != "bypassPermissions" and (target := protected_write(facts)) is not None:
            # Agent, repository and shell configuration run code later: no allow rule or
            # mode short of bypassPermissions changes them without asking.
            return self._ask(f"it changes the protected path {target}")
        if (verdict := self._mode_step(facts)) is not None:
            return verdict
        if (verdict := self._allow_step(facts)) is not None:
            return verdict
        return self._ask(_unresolved_reason(facts))

    def _rule_could_match(self, facts: CallFacts) -> str | None:
        from loopwright.permissions.matching import unknown_files  # start-up
        from loopwright.permissions.rule_programs import rule_program  # start-up

        if facts.shell is None:
            return None
        restrictive = [r for r in (*self.rules.deny, *self.rules.ask) if _covers_shell(r)]
        if not restrictive:
            return None
        if facts.shell.hidden:
            return (
                f"it runs code the analyser cannot see ({facts.shell.hidden[0]}), which the "
                f"rule {restrictive[0].text} could match; spell the command out"
            )
        for rule in restrictive:
            program = rule_program(rule.specifier or "") if rule.tool == "Bash" else None
            if program is not None and program in facts.shell.open_programs:
                return (
                    f"the arguments of {program} are not known before the command runs, and "
                    f"the rule {rule.text} could match them; spell them out"
                )
            if rule.tool in ("Read", "Edit") and (where := unknown_files(facts, rule.tool)):
                return (
                    f"the command touches {where}, which cannot be resolved before it runs, "
                    f"and the rule {rule.text} could match it; name the file plainly"
                )
        return None

    def _denied_tree(self, facts: CallFacts) -> str | None:
        from loopwright.permissions.paths.read_scope import denied_tree_read  # start-up

        if facts.shell is None:
            return None
        session_cwd = facts.working_dirs[0] if facts.working_dirs else facts.cwd
        for rule_cwd in dict.fromkeys((session_cwd, facts.cwd)):
            found = denied_tree_read(
                facts.shell.commands, self.rules.deny, facts.cwd, facts.home, rule_cwd
            )
            if found is not None:
                return found
        return None

    def _ask(self, reason: str, rule: str | None = None) -> Verdict:
        if self.mode == "dontAsk":
            return Verdict("deny", f"{reason}; dontAsk mode denies anything not pre-approved")
        return Verdict("ask", reason, rule)

    def _mode_step(self, facts: CallFacts) -> Verdict | None:
        from loopwright.permissions.commands import shell_is_read_only  # start-up

        match self.mode:
            case "bypassPermissions":
                return Verdict("allow", "bypassPermissions mode")
            case "acceptEdits":
                if self._is_accepted_edit(facts):
                    return Verdict("allow", "acceptEdits mode: file change inside working dirs")
                return None
            case "plan":
                if facts.kind == "edit":
                    return Verdict("ask", "plan mode: file edits are never auto-approved")
                if facts.shell is not None and not shell_is_read_only(facts.shell):
                    return Verdict("ask", "plan mode: this shell command may change files")
                return None
            case "default" | "dontAsk":
                return None

    def _is_accepted_edit(self, facts: CallFacts) -> bool:
        from loopwright.permissions.commands import ACCEPT_EDITS_COMMANDS, args_inside  # start-up

        if facts.kind == "edit":
            return facts.inside_working_dirs and not any(
                is_protected(p) for p in (facts.path.both if facts.path else ())
            )
        if facts.shell is None or not facts.shell.safe or not facts.shell.commands:
            return False
        if any(_protected_path(t, facts.cwd, facts) for t in facts.shell.redirect_targets):
            return False
        for command in facts.shell.commands:
            if command.name in ACCEPT_EDITS_COMMANDS:
                if _touches_protected(command, facts) or not args_inside(
                    command, facts.cwd, facts.home, facts.working_dirs, every_arg=True
                ):
                    return False
                if not _lands_inside(command, facts):
                    return False
            elif not self._builtin_shell_ok(command, facts, redirects_ok=True):
                return False
        return True

    def _allow_step(self, facts: CallFacts) -> Verdict | None:
        from loopwright.permissions.matching import allow_match  # start-up: see the imports

        applicable = [r for r in self.rules.allow if allow_match(r, facts)]
        if applicable:
            return Verdict("allow", f"allowed by rule {applicable[0].text}", applicable[0].text)
        match facts.kind:
            case "shell":
                return self._shell_allow(facts)
            case "read":
                if facts.inside_working_dirs:
                    return Verdict("allow", "read inside the working directories")
                return None
            case "free" | "agent":
                return Verdict("allow", "this tool needs no permission")
            case "edit" | "web_fetch" | "mcp" | "other":
                return None

    def _shell_allow(self, facts: CallFacts) -> Verdict | None:
        from loopwright.permissions.matching import command_allowed  # start-up

        assert facts.shell is not None
        bash_rules = [r for r in self.rules.allow if r.matches_tool_name("Bash")]
        if any(r.specifier is None for r in bash_rules):
            return Verdict("allow", "allowed by rule Bash")
        if not facts.shell.safe:
            return None
        for command in facts.shell.commands:
            if not (command_allowed(command, bash_rules) or self._builtin_shell_ok(command, facts)):
                return None
        return Verdict("allow", "every subcommand is allowed")

    def _builtin_shell_ok(
        self, command: SimpleCommand, facts: CallFacts, *, redirects_ok: bool = False
    ) -> bool:
        """Read-only commands on paths inside the working dirs need no rule — unless the
        line redirects output into a file, which is a write (acceptEdits accepts it)."""
        from loopwright.permissions.commands import command_read_only_use, use_inside  # start-up

        assert facts.shell is not None
        if facts.shell.redirect_targets and not redirects_ok:
            return False
        use = command_read_only_use(command)
        return use is not None and use_inside(
            command, use, facts.cwd, facts.home, facts.working_dirs
        )


# Files that configure the agent, the repository or the shell: editing them can grant
# permissions or run code later, so no allow rule or mode short of bypassPermissions changes
# them unasked. One list, shared with the sandbox (which pins and quarantines them).
_PROTECTED_PARTS = PROTECTED_DIR_NAMES
_PROTECTED_NAMES = PROTECTED_FILE_NAMES


_CRITICAL_SYSTEM_DIRS = frozenset(
    {"/", "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib64", "/opt", "/proc", "/root"}
    | {"/sbin", "/srv", "/sys", "/usr", "/var", "/tmp", "/Users", "/System", "/Applications"}
)


def critical_removal(facts: CallFacts) -> str | None:
    """The critical path an ``rm``/``rmdir`` in the command would remove: the filesystem
    root, a system directory, home, a working directory or one of their ancestors — or a
    target the shell still has to expand ($HOME, ~user), which might be any of them."""
    from loopwright.permissions.shell.results import SimpleCommand  # start-up

    if facts.shell is None:
        return None
    critical = {*_CRITICAL_SYSTEM_DIRS, str(facts.home), os.path.realpath(facts.home)}
    for directory in (*facts.working_dirs, facts.cwd):
        for spelling in (str(directory), os.path.realpath(directory)):
            critical.update(str(p) for p in (Path(spelling), *Path(spelling).parents))
    # Parsed commands, plus every text deny rules see (inside sh -c, eval, substitutions,
    # or split crudely when the parser gave up).
    nested = (
        SimpleCommand(tuple(t.strip("'\"") for t in text.split()), ())
        for text in facts.shell.deny_texts
        if not any(op in text for op in ("&&", "||", ";", "|", "&", "\n"))
    )
    for command in (*facts.shell.commands, *nested):
        if os.path.basename(command.name) not in ("rm", "rmdir"):
            continue
        for word in command.words[1:]:
            if word.startswith("-") and word != "-":
                continue
            if _critical_target(word, command, facts, critical):
                return word
    return None


def _critical_target(
    word: str, command: SimpleCommand, facts: CallFacts, critical: set[str]
) -> bool:
    unexpanded = word.startswith("~") and word != "~" and not word.startswith("~/")
    if unexpanded or any(ch in word for ch in "$`"):
        return True
    if not command.cwd_known and not word.startswith("/"):
        return True
    for base in (facts.cwd, *command.cd_dirs):
        spelled = spell(word, base, facts.home)
        if any((p.rstrip("/") or "/") in critical for p in spelled.both):
            return True
    return False


def protected_write(facts: CallFacts) -> str | None:
    """The protected path an edit or a shell command would create, change, move or
    remove: an edit's target, a redirect target, or a path argument of any command that is
    not known to only read."""
    from loopwright.permissions.commands import is_read_only  # start-up: see the imports

    if facts.kind == "edit" and facts.path is not None:
        hit = [p for p in facts.path.both if is_protected(p) or _git_included(p, facts)]
        return hit[0] if hit else None
    if facts.shell is None:
        return None
    for target in facts.shell.redirect_targets:
        if _protected_path(target, facts.cwd, facts):
            return target
    for command in facts.shell.commands:
        if not command.words or is_read_only(command):
            continue
        if (git_write := git_config_write(command.words)) is not None:
            return git_write
        if _touches_protected(command, facts):
            return next((w for w in command.words[1:] if is_protected(w)), command.text)
    return None


# git subcommands that write a repository's config or hooks (or make a new repository,
# whose template can plant hooks): .git changes, so they ask like any protected write.
_GIT_CONFIG_WRITERS = frozenset(
    {"init", "clone", "remote", "config", "maintenance", "worktree", "submodule", "lfs"}
)
_GIT_UPSTREAM_FLAGS = ("-u", "--set-upstream", "--set-upstream-to", "--track", "-t")


def git_config_write(words: Sequence[str]) -> str | None:
    """The protected path a git command would rewrite, if it is one that writes config."""
    if os.path.basename(words[0]) != "git":
        return None
    rest = [w for w in words[1:] if not w.startswith("-")]
    sub = rest[0] if rest else ""
    if sub in _GIT_CONFIG_WRITERS:
        return f".git/config (git {sub})"
    if sub in ("branch", "push", "checkout", "switch") and any(
        w == f or w.startswith(f + "=") for w in words[2:] for f in _GIT_UPSTREAM_FLAGS
    ):
        return f".git/config (git {sub} sets an upstream)"
    return None


def _landings(command: SimpleCommand, facts: CallFacts) -> list[PathSpellings] | None:
    """Every file the command writes, from every directory a ``cd`` may have led to, as
    written and where it really lands (each symlink on the way followed)."""
    from loopwright.permissions.shell.writes import created_paths  # start-up

    found: list[PathSpellings] = []
    for base in (facts.cwd, *command.cd_dirs):
        created = created_paths(command.words, base)
        if created is None:
            return None
        found += [spell(path, base, facts.home) for path in created]
    return found


def _lands_inside(command: SimpleCommand, facts: CallFacts) -> bool:
    """acceptEdits: every file written is a real target inside the working dirs."""
    landings = _landings(command, facts)
    return landings is not None and all(
        inside_any(landing, facts.working_dirs)
        and not any(is_protected(p) or _git_included(p, facts) for p in landing.both)
        for landing in landings
    )


def _touches_protected(command: SimpleCommand, facts: CallFacts) -> bool:
    """Any argument, as written or as its glob expands, names a protected file — or is a
    directory holding one (``cp -r template/. .`` would plant its ``.claude/``) — or a
    file it writes lands on one (a shipped ``d/a.txt -> ~/.bashrc``, an archive member)."""
    from loopwright.permissions.commands import arg_paths  # start-up: see the imports
    from loopwright.permissions.shell.writes import WRITERS  # start-up

    if any(is_protected(w) for w in command.words[1:]):
        return True
    if os.path.basename(command.name) in WRITERS:
        landings = _landings(command, facts)
        if landings is None or any(
            is_protected(p) or _git_included(p, facts) for x in landings for p in x.both
        ):
            return True
    for base in (facts.cwd, *command.cd_dirs):
        paths = arg_paths(command, base, every_arg=True)
        if paths is None or any(_protected_path(p, base, facts) for p in paths):
            return True
        if any(_holds_protected(os.path.join(base, p)) for p in _copied_sources(command)):
            return True
    return False


_TREE_SCAN_LIMIT = 5_000
_TREE_COPIERS = frozenset({"cp", "mv", "rsync", "scp", "install", "ln"})


def _copied_sources(command: SimpleCommand) -> list[str]:
    """The operands a copy or move takes from (all but the destination)."""
    if os.path.basename(command.name) not in _TREE_COPIERS:
        return []
    operands = [w for w in command.words[1:] if not w.startswith("-")]
    return operands[:-1]


def _holds_protected(path: str) -> bool:
    """A directory with a protected name somewhere inside (bounded; too big counts)."""
    if not os.path.isdir(path) or os.path.islink(path):
        return False
    # Judged relative to the tree: the tree's own location does not count.
    return tree_has(
        path, lambda inner: is_protected(os.path.relpath(inner, path)), _TREE_SCAN_LIMIT
    )


def _protected_path(path: str, base: Path, facts: CallFacts) -> bool:
    """Protected as written or where it really leads (a symlink a repository shipped)."""
    spelled = spell(path, base, facts.home).both
    return any(is_protected(p) for p in (path, *spelled)) or any(
        _git_included(p, facts) for p in spelled
    )


def _git_included(path: str, facts: CallFacts) -> bool:
    """A file that a git config includes (``include.path``): configuration as well."""
    included = included_configs(facts.home, facts.working_dirs)
    return any(os.path.realpath(str(c)) == os.path.realpath(path) for c in included)


_STRICTNESS: dict[VerdictBehavior, int] = {"allow": 0, "ask": 1, "deny": 2}


def _stricter(first: Verdict, second: Verdict) -> Verdict:
    return second if _STRICTNESS[second.behavior] > _STRICTNESS[first.behavior] else first


def _covers_shell(rule: PermissionRule) -> bool:
    """Deny/ask rules that a hidden command could match: Bash ones, and the file rules
    that the policy applies to what shell commands read and write."""
    if rule.specifier is None:
        return False
    return rule.matches_tool_name("Bash") or rule.tool in ("Read", "Edit")


def _first(rules: Sequence[PermissionRule], facts: CallFacts) -> PermissionRule | None:
    from loopwright.permissions.matching import restrictive_match  # start-up

    for rule in rules:
        if restrictive_match(rule, facts):
            return rule
    return None


def _unresolved_reason(facts: CallFacts) -> str:
    match facts.kind:
        case "shell":
            assert facts.shell is not None
            if facts.shell.unsafe:
                return "the command cannot be auto-approved: " + "; ".join(facts.shell.unsafe)
            return "no allow rule matches every subcommand"
        case "read" | "edit":
            if facts.path is not None and not facts.inside_working_dirs:
                return f"{facts.path.lexical} is outside the working directories"
            return f"no allow rule covers {facts.name} on this path"
        case _:
            return f"no allow rule matches {facts.name}"


def _denied_by(rule: str) -> str:
    # A deny rule is the user's standing choice: retrying the same call cannot succeed.
    return f"denied by rule {rule}; do not retry it: do the task another way, or ask the user"
