"""Environment that pins git's repository discovery for the commands the model runs.

A repository planted or shipped in the tree — a bare one (``HEAD``, ``config`` with
``core.fsmonitor``, ``objects/``) in any directory — would otherwise be used by the next
``git status`` run there, and its config runs programs. ``safe.bareRepository=explicit``
makes git use a bare repository only when ``--git-dir``/``GIT_DIR`` names it, and
``GIT_CEILING_DIRECTORIES`` stops the upward search above the repository the session
started in, so git never walks out of it into a parent's (or HOME's) repository.

The setting is passed with ``GIT_CONFIG_COUNT``/``KEY``/``VALUE``, appended after any the
user's environment already holds.
"""

from __future__ import annotations

import os
from pathlib import Path


def pinned_git_env(env: dict[str, str], session_dir: Path) -> dict[str, str]:
    """The entries to add to ``env`` for a shell started for a session in ``session_dir``."""
    added: dict[str, str] = {}
    try:
        count = int(env.get("GIT_CONFIG_COUNT", "0") or "0")
    except ValueError:
        count = 0
    added["GIT_CONFIG_COUNT"] = str(count + 1)
    added[f"GIT_CONFIG_KEY_{count}"] = "safe.bareRepository"
    added[f"GIT_CONFIG_VALUE_{count}"] = "explicit"
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
