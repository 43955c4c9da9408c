"""Protected paths: files whose contents run code on the host later, or widen the agent.

A git config (``core.fsmonitor``, ``core.hooksPath``, aliases) or hook runs on the next
``git status``; ``.claude/settings.json``, ``.loopwright/`` and ``.mcp.json`` configure the
next agent run; shell profiles and ``.envrc`` run on the next shell or ``cd``; hook
managers' configs run on the next commit. A sandboxed command may edit the project freely
but never these.

This module is the one list of those names — the permission policy (``is_protected``)
and the sandbox both read it — and the bubblewrap arguments that make the existing ones
read-only:

- ``.git`` is bound onto itself, so it is a mount point: ``mv .git x`` and ``rmdir .git``
  fail with EBUSY and the directory cannot be swapped for a planted one. Its config,
  hooks, info, modules and ``commondir`` are then bound read-only on top.
- A ``.git`` *file* (a linked worktree or a submodule: ``gitdir: <path>``) is bound
  read-only itself, and the git directory it names (plus that one's ``commondir``, the
  main repository) gets the same read-only config and hooks.
- Files in the project that the config runs or includes (``core.hooksPath``,
  ``core.fsmonitor``, filter drivers, ``!`` aliases…) are bound read-only as well.
- The same holds for the submodules that ``.gitmodules`` lists (the superproject's
  ``git status`` runs git inside each) and for repositories directly inside a working
  dir (a folder of projects). Deeper repositories are not pinned.

Paths that do not exist yet cannot be pre-mounted without creating them on the host (an
empty ``.mcp.json`` would break config loading); quarantine.py catches their creation.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable
from pathlib import Path

from loopwright.permissions.paths.git_config_paths import config_named_paths
from loopwright.tools.untrusted_files import read_repository_text

# Directories anywhere in a path that make it protected (the policy's view) and, at the
# top of a working directory, that the sandbox keeps read-only or quarantines.
PROTECTED_DIR_NAMES: frozenset[str] = frozenset(
    {
        ".git",
        ".claude",
        ".loopwright",
        ".vscode",
        ".idea",
        ".husky",
        ".githooks",
        ".cargo",  # config.toml: build.rustc-wrapper and runners run code
        ".devcontainer",
        ".yarn",
        ".mvn",  # extensions and jvm.config load on the next build
        ".ssh",  # config (ProxyCommand, LocalCommand), authorized_keys, keys
        ".circleci",  # CI: runs on the next push
        ".buildkite",
        ".direnv",  # direnv's per-project library, sourced on cd
    }
)
PROTECTED_FILE_NAMES: frozenset[str] = frozenset(
    {
        ".bashrc",
        ".bash_profile",
        ".bash_login",
        ".bash_logout",
        ".profile",
        ".zshrc",
        ".zprofile",
        ".zshenv",
        ".zlogin",
        ".gitconfig",
        ".gitmodules",
        ".mcp.json",
        ".envrc",
        ".pre-commit-config.yaml",  # local hooks run their entry commands on commit
        "lefthook.yml",
        ".lefthook.yml",
        "lefthook-local.yml",
        ".lefthook-local.yml",
        ".npmrc",  # script-shell / node-options run code on the next npm run
        ".yarnrc",
        ".yarnrc.yml",
        # Shell start-up files of the other common shells.
        ".zlogout",
        ".bash_aliases",
        ".kshrc",
        ".mkshrc",
        ".cshrc",
        ".tcshrc",
        ".login",
        ".logout",
        ".xprofile",
        ".xsessionrc",
        # Tool-version managers and package-manager hooks: run code on the next cd/install.
        "mise.toml",
        ".mise.toml",
        "mise.local.toml",
        ".mise.local.toml",
        ".rtx.toml",
        ".tool-versions",
        ".pnpmfile.cjs",
        ".pnpmfile.mjs",
        "bunfig.toml",
        ".bunfig.toml",
        ".env.mise",
        # Python runs these at every start-up of the interpreter that sees them.
        "sitecustomize.py",
        "usercustomize.py",
        "pyvenv.cfg",
        # CI workflows: run with the repository's secrets on the next push.
        ".gitlab-ci.yml",
        ".travis.yml",
        "azure-pipelines.yml",
        "bitbucket-pipelines.yml",
        "Jenkinsfile",
        ".drone.yml",
        ".woodpecker.yml",
    }
)
# Places named by more than one component (``.config/git``): protected at any depth, the
# files inside them included. Components are fnmatch patterns (``bin/activate*``).
PROTECTED_PATHS: tuple[tuple[str, ...], ...] = (
    (".config", "git"),  # git's XDG config, attributes, ignore
    (".config", "fish"),  # config.fish, conf.d/, functions/
    (".config", "loopwright"),  # loopwright's own env and settings
    (".config", "mise"),
    (".config", "direnv"),
    (".config", "nushell"),
    (".config", "environment.d"),
    (".config", "systemd"),  # user units start programs
    (".config", "autostart"),
    (".config", "zsh"),
    (".github", "workflows"),
    (".github", "actions"),
    (".gitea", "workflows"),
    (".forgejo", "workflows"),
    (".gitlab", "ci"),
    ("bin", "activate*"),  # virtualenv activate scripts (and activate_this.py)
    ("Scripts", "activate*"),
    ("bin", "Activate.ps1"),
    ("site-packages", "*.pth"),  # .pth lines starting with ``import`` run at start-up
    ("dist-packages", "*.pth"),
    (".local", "bin"),  # first on PATH in many profiles: a planted ``git`` runs there
)
# Inside a git directory: what git reads as configuration or runs as code.
GIT_DIR_PROTECTED: tuple[str, ...] = (
    "config",
    "config.worktree",
    "hooks",
    "info",
    "modules",  # submodules' own config and hooks
    "commondir",  # a linked worktree's pointer to the main repository's config
)


def top_level_names() -> list[str]:
    """Every protected name at the top of a working dir, ``.git`` first (and the literal
    multi-component places, such as ``.config/git``, as relative paths)."""
    names = sorted((PROTECTED_DIR_NAMES | PROTECTED_FILE_NAMES) - {".git"})
    nested = ["/".join(p) for p in PROTECTED_PATHS if not any(_is_glob(c) for c in p)]
    return [".git", *names, *nested]


def is_protected(path: str) -> bool:
    """Whether ``path`` (as written or resolved; relative or absolute) is, or lies inside,
    a file that runs code later or widens the agent — wherever it sits: in a project, in
    HOME (a working dir may be HOME itself), or anywhere else."""
    parts = [p for p in path.replace("\\", "/").split("/") if p]
    if not parts:
        return False
    if parts[-1] in PROTECTED_FILE_NAMES or any(p in PROTECTED_DIR_NAMES for p in parts):
        return True
    return any(_window_matches(parts, pattern) for pattern in PROTECTED_PATHS)


def _window_matches(parts: list[str], pattern: tuple[str, ...]) -> bool:
    width = len(pattern)
    for start in range(len(parts) - width + 1):
        if all(_component(parts[start + i], pattern[i]) for i in range(width)):
            return True
    return False


def _component(name: str, pattern: str) -> bool:
    return fnmatch.fnmatchcase(name, pattern) if _is_glob(pattern) else name == pattern


def _is_glob(pattern: str) -> bool:
    return any(ch in pattern for ch in "*?[")


def protected_bind_args(working_dir: Path) -> list[str]:
    """bwrap arguments that pin the protected paths of one (writable) working dir."""
    args: list[str] = []
    for repository in repository_dirs(working_dir):
        args += _git_pins(repository)
    if is_bare_repository(working_dir):
        args += _ro_binds(working_dir / name for name in GIT_DIR_PROTECTED)
    args += _ro_binds(working_dir / name for name in top_level_names()[1:])
    return args


def is_bare_repository(directory: Path) -> bool:
    """A git directory used as a working dir (``repo.git``): its config sits on top."""
    return (
        (directory / "HEAD").is_file()
        and (directory / "config").is_file()
        and (directory / "objects").is_dir()
    )


def repository_dirs(working_dir: Path) -> list[Path]:
    """Where a ``.git`` is pinned: the working dir, the submodules ``.gitmodules`` lists
    (the superproject's ``git status`` runs git inside each), and the direct children
    that hold a repository (a working dir that is a folder of projects)."""
    found = [working_dir, *submodule_dirs(working_dir)]
    try:
        # scandir's d_type spares a stat per entry: this runs before every command.
        with os.scandir(working_dir) as entries:
            children = [e.path for e in entries if e.is_dir(follow_symlinks=False)]
    except OSError:
        children = []
    for child in sorted(children):
        if os.path.lexists(os.path.join(child, ".git")):
            found.append(Path(child))
    return list(dict.fromkeys(found))


def _git_pins(repository: Path) -> list[str]:
    args: list[str] = []
    dot_git = repository / ".git"
    if dot_git.is_dir() and not dot_git.is_symlink():
        args += ["--bind", str(dot_git), str(dot_git)]  # a mount point cannot be renamed
    elif dot_git.is_file() and not dot_git.is_symlink():
        args += ["--ro-bind", str(dot_git), str(dot_git)]
    for git_dir in git_dirs(repository):
        args += _ro_binds(git_dir / name for name in GIT_DIR_PROTECTED)
        args += _ro_binds(config_named_paths(repository, git_dir))
        worktrees = git_dir / "worktrees"
        if worktrees.is_dir():
            for entry in sorted(worktrees.iterdir()):
                args += _ro_binds((entry / "commondir", entry / "config.worktree"))
    return args


def submodule_dirs(working_dir: Path) -> list[Path]:
    """The submodule directories ``.gitmodules`` lists (only those inside ``working_dir``)."""
    try:
        text = read_repository_text(working_dir / ".gitmodules")
    except OSError:
        return []
    found: list[Path] = []
    for line in text.splitlines():
        key, _, value = line.partition("=")
        if key.strip() != "path" or not value.strip():
            continue
        candidate = Path(os.path.normpath(working_dir / value.strip().strip('"')))
        if candidate != working_dir and candidate.is_relative_to(working_dir):
            found.append(candidate)
    return found


def git_dirs(working_dir: Path) -> list[Path]:
    """The git directories whose config git reads for this working dir: ``.git`` itself,
    or the one a gitfile names, and the main repository its ``commondir`` points to."""
    dot_git = working_dir / ".git"
    if dot_git.is_dir():
        first = dot_git.resolve()
    elif dot_git.is_file():
        named = _gitfile_target(dot_git)
        if named is None:
            return []
        first = named
    else:
        return []
    found = [first]
    common = _commondir(first)
    if common is not None and common != first:
        found.append(common)
    return found


def _gitfile_target(gitfile: Path) -> Path | None:
    try:
        text = read_repository_text(gitfile)
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("gitdir:"):
            target = (gitfile.parent / line[len("gitdir:") :].strip()).resolve()
            return target if target.is_dir() else None
    return None


def _commondir(git_dir: Path) -> Path | None:
    try:
        text = read_repository_text(git_dir / "commondir").strip()
    except OSError:
        return None
    target = (git_dir / text).resolve()
    return target if text and target.is_dir() else None


def _ro_binds(paths: Iterable[Path]) -> list[str]:
    """Read-only binds of the paths that exist. A symlink is pinned at its target: bwrap
    cannot mount onto a symlink whose target lies outside the sandbox's view, and the
    link itself, if replaced, is caught by the quarantine check."""
    args: list[str] = []
    for path in paths:
        if path.exists():
            real = path.resolve() if path.is_symlink() else path
            args += ["--ro-bind", str(real), str(real)]
    return args
