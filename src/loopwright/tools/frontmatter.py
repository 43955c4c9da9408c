"""YAML frontmatter of Markdown files (skills, agent definitions): ``---`` fenced."""

from __future__ import annotations

from typing import Any, cast

from loopwright.errors import SettingsError


def parse_frontmatter(text: str, source: str) -> tuple[dict[str, Any], str]:
    """Split ``---``-fenced YAML frontmatter from the body; no fence means no frontmatter."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        return {}, text
    for index in range(1, len(lines)):
        if lines[index].strip() == "---":
            header = "".join(lines[1:index])
            body = "".join(lines[index + 1 :])
            break
    else:
        raise SettingsError(f"{source}: the frontmatter opened with '---' is never closed")
    import yaml  # only when an agent or skill file has frontmatter

    try:
        data = yaml.safe_load(header) if header.strip() else {}
    except yaml.YAMLError as exc:
        raise SettingsError(f"{source}: the frontmatter is not valid YAML ({exc})") from exc
    if not isinstance(data, dict):
        raise SettingsError(f"{source}: the frontmatter must be 'key: value' lines")
    return cast(dict[str, Any], data), body.strip("\n")
