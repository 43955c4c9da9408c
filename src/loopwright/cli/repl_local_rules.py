""" "Always allow" written down: the rule goes into the checkout's local settings file.

``.claude/settings.local.json`` when the project uses Claude Code's layout (a ``.claude``
directory or a ``CLAUDE.md``), else ``.loopwright/settings.local.json`` — both are read
as the "local" setting source. The file is merged into (other keys kept), written whole
through a temporary file so it is never half-written, and kept 0600: it is the user's own.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

from loopwright.errors import ConfigurationError
from loopwright.private_files import FILE_MODE
from loopwright.settings.load import find_project_root


def local_settings_path(cwd: str | Path) -> Path:
    root = find_project_root(Path(cwd).resolve())
    if (root / ".claude").is_dir() or (root / "CLAUDE.md").is_file():
        return root / ".claude" / "settings.local.json"
    return root / ".loopwright" / "settings.local.json"


def _existing(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data: object = json.loads(path.read_text(encoding="utf-8") or "{}")
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigurationError(
            f"{path} is not valid JSON ({exc}); fix or remove it, then allow again"
        ) from exc
    if not isinstance(data, dict):
        raise ConfigurationError(f"{path} does not hold a JSON object; fix or remove it")
    return cast(dict[str, Any], data)


def add_allow_rules(path: Path, rules: Sequence[str]) -> list[str]:
    """Add ``rules`` to ``permissions.allow`` in ``path``; returns the ones newly added."""
    data = _existing(path)
    permissions = data.setdefault("permissions", {})
    if not isinstance(permissions, dict):
        raise ConfigurationError(f"{path}: 'permissions' is not an object; fix or remove it")
    allow = cast(dict[str, Any], permissions).setdefault("allow", [])
    if not isinstance(allow, list):
        raise ConfigurationError(f"{path}: 'permissions.allow' is not a list; fix it")
    allow_list = cast(list[Any], allow)
    added = [rule for rule in rules if rule not in allow_list]
    allow_list.extend(added)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, FILE_MODE)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    os.chmod(temporary, FILE_MODE)
    os.replace(temporary, path)
    return added
