"""Memory files: AGENTS.md and CLAUDE.md, joined into one block for the system prompt.

Order, first to last (later text is read last by the model, so closer files win):
user (``~/.claude/CLAUDE.md``, ``~/.loopwright/AGENTS.md``), then each directory from
the project root down to cwd (``CLAUDE.md``, ``AGENTS.md``, ``.claude/CLAUDE.md``, and
``CLAUDE.local.md`` for the local source). ``@path`` imports expand up to four hops deep;
each file is included once, which also breaks import cycles.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

MAX_IMPORT_DEPTH = 4
_IMPORT = re.compile(r"(?<![\w`@])@((?:~/|/|\.{1,2}/)?[\w.~/+-]*[\w/])")
_FENCE = re.compile(r"^(```|~~~)")
_HTML_COMMENT = re.compile(r"^\s*<!--.*?-->\s*$", re.DOTALL | re.MULTILINE)


@dataclass(slots=True)
class _Loader:
    home: Path
    seen: set[Path] = field(default_factory=set[Path])
    sections: list[str] = field(default_factory=list[str])
    files: list[Path] = field(default_factory=list[Path])

    def load(self, path: Path, label: str, depth: int = 0) -> None:
        try:
            real = path.resolve()
        except OSError:
            return
        if real in self.seen or not real.is_file():
            return
        self.seen.add(real)
        try:
            text = real.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return
        text = _strip_comments(text)
        # Imports come first so the importing file can build on them.
        if depth < MAX_IMPORT_DEPTH:
            for target in _imports(text):
                self.load(self._resolve(target, real.parent), "import", depth + 1)
        self.files.append(path)
        self.sections.append(f"Contents of {path} ({label}):\n\n{text.strip()}")

    def _resolve(self, target: str, base: Path) -> Path:
        if target.startswith("~/"):
            return self.home / target[2:]
        return (base / target) if not target.startswith("/") else Path(target)


def load_memory(
    cwd: Path, root: Path, home: Path, sources: Sequence[str]
) -> tuple[str, tuple[Path, ...]]:
    loader = _Loader(home)
    if "user" in sources:
        loader.load(home / ".claude" / "CLAUDE.md", "user instructions")
        loader.load(home / ".loopwright" / "AGENTS.md", "user instructions")
    directories = [root]
    if cwd != root and cwd.is_relative_to(root):
        parts = cwd.relative_to(root).parts
        directories += [root.joinpath(*parts[: i + 1]) for i in range(len(parts))]
    for directory in directories:
        if "project" in sources:
            for name in ("CLAUDE.md", "AGENTS.md", ".claude/CLAUDE.md", ".loopwright/AGENTS.md"):
                loader.load(directory / name, "project instructions")
        if "local" in sources:
            loader.load(directory / "CLAUDE.local.md", "local instructions")
    return "\n\n".join(loader.sections), tuple(loader.files)


def _imports(text: str) -> list[str]:
    """``@path`` references outside code fences and inline code spans."""
    found: list[str] = []
    in_fence = False
    for line in text.splitlines():
        if _FENCE.match(line.strip()):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        without_code = re.sub(r"`[^`]*`", "", line)
        found.extend(m.group(1) for m in _IMPORT.finditer(without_code))
    return found


def _strip_comments(text: str) -> str:
    """Drop block-level HTML comments (notes for maintainers) outside code fences."""
    out: list[str] = []
    in_fence = False
    for chunk in re.split(r"(^(?:```|~~~).*$)", text, flags=re.MULTILINE):
        if _FENCE.match(chunk):
            in_fence = not in_fence
            out.append(chunk)
        else:
            out.append(chunk if in_fence else _HTML_COMMENT.sub("", chunk))
    return "".join(out)
