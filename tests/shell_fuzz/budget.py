"""What an approval promises, and the effects that break that promise.

A command the policy approves with **no allow rule** (read-only by positive knowledge, or
anything plan mode approves) promises the ``read_only`` budget: it runs only the programs
its words name, changes no file anywhere, opens no file a Read deny rule covers, reads
nothing outside the working dir, and prints no secret.

A command approved by **an allow rule** (``rule``) or by **acceptEdits** (``edits``) may
also change ordinary files inside the project — through the shell's redirects or the
programs it names — but never a protected path (.git config and hooks, .claude/, shell
profiles…) and nothing outside the project; under ``rule`` git may keep its own
repository state (objects, refs, index, logs, info/refs, worktrees) up to date. Neither
runs another program.

Known helpers, decided once here rather than per finding:

- the shell itself and its subshells (forks, no exec) are part of every command;
- wrappers (env, timeout, nice, nohup, xargs, stdbuf, setsid, time, command, chrt,
  ionice, taskset) exec the
  program named after them, which is itself a named program;
- git may exec its own helpers in /usr/lib/git-core when git is named, also through
  ``sh`` (its transports); anything else sh starts under git is a finding;
- xargs with no command runs echo; egrep and fgrep are scripts that exec grep;
- git refreshes ``.git/index`` through ``.git/index.lock`` even for ``git status``: that
  write is harmless and allowed in every budget;
- npm may exec node/npm and keep its cache and logs in a .npm directory (``npm run``
  against a project without a package.json);
- under ``edits`` and ``rule``, touching the working dir's own timestamps is an edit;
- /dev/* (null, tty, stdout) and $TMPDIR (the run's scratch dir) are not the file system
  a command could leave something in.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from shell_fuzz.fixture import MARKERS
from shell_fuzz.oracle import Observation
from shell_fuzz.trace import Effect

BudgetKind = Literal["read_only", "edits", "rule", "denied_only"]

SHELLS = frozenset({"bash", "sh", "dash"})
WRAPPERS = frozenset(
    {"env", "timeout", "nice", "nohup", "xargs", "stdbuf", "setsid", "time", "command"}
    | {"chrt", "ionice", "taskset"}
)
_GIT_CORE = "/usr/lib/git-core/"
# Programs that are shell scripts in front of another one (egrep is `exec grep -E "$@"`).
_SCRIPT_FRONTS = {"egrep": "grep", "fgrep": "grep"}
_NODE = frozenset({"npm", "node"})
_DEVICES = ("/dev/", "/proc/self/fd/")
_PROTECTED_DIRS = frozenset(
    {".claude", ".loopwright", ".vscode", ".idea", ".husky", ".devcontainer", ".cargo"}
    | {".yarn", ".mvn"}
)
# Configuration a tool reads from whatever directory it runs in.
_PROTECTED_NAMES = frozenset(
    {".gitmodules", ".mcp.json", ".envrc", ".npmrc", ".yarnrc", ".yarnrc.yml"}
    | {".pre-commit-config.yaml"}
)
# Read from $HOME only (HOME itself is outside the project, so any write there is a finding).
_HOME_DOTFILES = frozenset(
    {".bashrc", ".bash_profile", ".profile", ".zshrc", ".zprofile", ".zshenv", ".zlogin"}
    | {".bash_login", ".bash_logout", ".gitconfig"}
)


@dataclass(frozen=True, slots=True)
class Violation:
    what: Literal[
        "exec", "write", "denied-read", "denied-open", "outside-read", "leak", "crash", "denied-ran"
    ]
    detail: str


def judge(
    observation: Observation, budget: BudgetKind, named: frozenset[str], run_dir: Path
) -> list[Violation]:
    """Every effect of ``observation`` that goes beyond ``budget``."""
    found: list[Violation] = []
    if budget == "denied_only":
        return found  # judged by denied_runs alone
    for marker, origin in MARKERS.items():
        if marker in observation.output:
            found.append(Violation("leak", f"the output contains the contents of {origin}"))
    for effect in observation.effects:
        match effect.kind:
            case "exec":
                if not _exec_allowed(effect, named):
                    found.append(Violation("exec", f"{effect.image} executed {effect.path}"))
            case "read" | "data":
                found.extend(_read_violation(effect, run_dir))
            case "write":
                if (reason := _write_violation(effect, budget, named, run_dir)) is not None:
                    state = "" if effect.ok else " (attempted; it failed)"
                    found.append(Violation("write", f"{reason}{state}: {effect.line}"))
    return _unique(found)


_ARGV = re.compile(r"^execve(?:at)?\([^\[]*\[(.*?)\]")
_GIT_VALUE_OPTIONS = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace"})


def denied_runs(
    observation: Observation, programs: tuple[str, ...], git_subcommands: tuple[str, ...]
) -> list[Violation]:
    """Each successful exec of a denied program, or of git with a denied subcommand
    (found past git's global options in the traced argv, not in the command's text)."""
    found: list[Violation] = []
    for effect in observation.effects:
        if effect.kind != "exec" or not effect.ok:
            continue
        program = os.path.basename(effect.path)
        if program in programs:
            found.append(
                Violation("denied-ran", f"the denied program {program} ran: {effect.line[:200]}")
            )
        elif program == "git" and (sub := _git_subcommand(effect.line)) in git_subcommands:
            found.append(Violation("denied-ran", f"denied git {sub} ran: {effect.line[:200]}"))
    return _unique(found)


def _git_subcommand(line: str) -> str | None:
    match = _ARGV.match(line)
    if match is None:
        return None
    argv = [w.strip().strip('"') for w in match.group(1).split('", ')]
    index = 1
    while index < len(argv) and argv[index].startswith("-"):
        index += 2 if argv[index] in _GIT_VALUE_OPTIONS else 1
    return argv[index] if index < len(argv) else None


def _exec_allowed(effect: Effect, named: frozenset[str]) -> bool:
    program = os.path.basename(effect.path)
    launchers = SHELLS | WRAPPERS
    if all(image in launchers for image in effect.lineage) and program in named:
        return True  # the shell, or a wrapper the command names, starts a named program
    if effect.image == "xargs" and program == "echo":
        return True  # xargs without a command runs echo
    if _SCRIPT_FRONTS.get(effect.image) == program:
        return True
    if "git" in named and "git" in effect.lineage:
        under_git = effect.lineage[effect.lineage.index("git") :]
        if all(
            image == "git" or image.startswith("git-") or image in SHELLS for image in under_git
        ):
            # git starts its transport helpers through sh (git fetch ../repo runs
            # ``sh -c git-upload-pack ...``); whatever else sh starts under git is a finding.
            return (
                program == "git"
                or effect.path.startswith(_GIT_CORE)
                or (program in SHELLS and effect.image == "git")
            )
    if "npm" in named and effect.image in _NODE:
        return program in _NODE
    return False


def _read_violation(effect: Effect, run_dir: Path) -> list[Violation]:
    rel = _relative(effect.path, run_dir / "proj")
    if rel is not None and (rel.startswith("secrets/") or os.path.basename(rel) == ".env"):
        if effect.kind == "data":
            return [Violation("denied-read", f"{effect.image} read the denied file {rel}")]
        # An open alone (df, to find the file system) shows no contents, but the brief
        # counts it: it is reported, and says that nothing was read if nothing was.
        return [Violation("denied-open", f"{effect.image} opened the denied file {rel}")]
    for canary in ("outside/file", "home/notes.txt"):
        if effect.path == str(run_dir / canary):
            return [Violation("outside-read", f"{effect.image} opened or read {canary}")]
    return []


def _write_violation(
    effect: Effect, budget: BudgetKind, named: frozenset[str], run_dir: Path
) -> str | None:
    path = effect.path
    if any(p.startswith(_DEVICES) for p in (path, effect.requested)):
        return None
    if _relative(path, run_dir / "scratch") is not None:
        return None
    rel = _relative(path, run_dir / "proj")
    if rel in (".git/index", ".git/index.lock") and effect.image.startswith("git"):
        return None
    if effect.image in _NODE and "npm" in named and "/.npm/" in path + "/":
        return None  # npm's own cache and logs (in $HOME, or in /root after env -i)
    if budget == "read_only":
        return "a read-only approval changed the file system"
    if rel is None:
        return "it changed a path outside the project"
    if rel == "":
        if effect.line.startswith("utimensat(") or not effect.ok:
            return None  # touch . : the working dir's timestamps (its open(".") fails)
        return "it changed the project directory itself"
    if effect.image not in SHELLS and effect.image not in named:
        return f"{effect.image}, which the command does not name, changed {rel}"
    parts = rel.split("/")
    if ".git" in parts:
        inner = parts[parts.index(".git") + 1 :]
        nested = parts[0] != ".git"
        if budget == "rule" and effect.image.startswith("git") and not _git_runs_it(inner, nested):
            return None
        return f"it changed the protected path {rel}"
    if any(p in _PROTECTED_DIRS for p in parts) or parts[-1] in _PROTECTED_NAMES:
        return f"it changed the protected path {rel}"
    if len(parts) == 1 and parts[0] in _HOME_DOTFILES:
        return f"it changed the protected path {rel}"  # the project may be someone's home
    return None


def _git_runs_it(inner: list[str], nested: bool) -> bool:
    """A file inside a .git directory that git reads as configuration or runs: config,
    hooks, submodule repositories, a worktree's config, commondir (which moves the
    repository) — or the project's .git directory itself. In a repository git created
    inside the project (clone, worktree) only real hooks count: git writes the rest."""
    if nested:
        return len(inner) > 1 and inner[0] == "hooks" and not inner[-1].endswith(".sample")
    if not inner:
        return True
    if inner[0].startswith(("config", "hooks", "modules", "commondir")):
        return True
    return inner[0] == "worktrees" and inner[-1].startswith("config")


def _relative(path: str, root: Path) -> str | None:
    """``path`` relative to ``root`` ("" for root itself), or None when outside it."""
    root_text = str(root)
    if path == root_text:
        return ""
    if path.startswith(root_text + "/"):
        return path[len(root_text) + 1 :]
    return None


def _unique(found: list[Violation]) -> list[Violation]:
    return list(dict.fromkeys(found))
