"""Environment that pins git's repository discovery for the commands the model runs.

A repository planted or shipped in the tree — a bare one (``HEAD``, ``config`` with
``core.fsmonitor``, ``objects/``) in any directory — would otherwise be used by the next
``git status`` run there, and its config runs programs. ``safe.bareRepository=explicit``
makes git use a bare repository only when ``--git-dir``/``GIT_DIR`` names it, and
``GIT_CEILING_DIRECTORIES`` stops the upward search above the repository the session
started in, so git never walks out of it into a parent's (or HOME's) repository.

The setting travels in ``GIT_CONFIG_PARAMETERS`` (what ``git -c`` uses, so it counts as
command-line configuration, which ``safe.bareRepository`` requires), appended to any the
environment already holds. ``GIT_CONFIG_KEY_<n>`` would not survive the sandbox, whose
environment filter drops every name containing ``KEY``.
"""

from __future__ import annotations

import os
from pathlib import Path


def pinned_git_env(env: dict[str, str], session_dir: Path) -> dict[str, str]:
    """The entries to add to ``env`` for a shell started for a session in ``session_dir``."""
    added: dict[str, str] = {}
    existing_parameters = env.get("GIT_CONFIG_PARAMETERS", "").strip()
    pin = "'safe.bareRepository'='explicit'"
    added["GIT_CONFIG_PARAMETERS"] = f"{existing_parameters} {pin}".strip()
    ceiling = str(_repository_top(session_dir).parent)
    existing = env.get("GIT_CEILING_DIRECTORIES", "")
    added["GIT_CEILING_DIRECTORIES"] = f"{existing}:{ceiling}" if existing else ceiling
    return added


def _repository_top(directory: Path) -> Path:
    """The nearest directory at or above ``directory`` that holds ``.git`` (or itself)."""
    current = directory.resolve()
    for candidate in (current, *current.parents):
        if os.path.lexists(candidate / ".git"):
            return candidate
    return current
