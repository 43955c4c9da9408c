"""Memory files: AGENTS.md and CLAUDE.md, joined into one block for the system prompt.

Order, first to last (later text is read last by the model, so closer files win):
user (``~/.claude/CLAUDE.md``, ``~/.loopwright/AGENTS.md``), then each directory from
the project root down to cwd (``CLAUDE.md``, ``AGENTS.md``, ``.claude/CLAUDE.md``, and
``CLAUDE.local.md`` for the local source). ``@path`` imports expand up to four hops deep;
each file is included once, which also breaks import cycles.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

MAX_IMPORT_DEPTH = 4
_IMPORT = re.compile(r"(?<![\w`@])@((?:~/|/|\.{1,2}/)?[\w.~/+-]*[\w/])")
_FENCE = re.compile(r"^(```|~~~)")
_HTML_COMMENT = re.compile(r"^\s*<!--.*?-->\s*$", re.DOTALL | re.MULTILINE)


# Never pulled into the prompt by a repository's @import, trusted or not.
_SECRET_HOME_PATHS = (
    ".ssh",
    ".aws",
    ".gnupg",
    ".azure",
    ".kube",
    ".netrc",
    ".git-credentials",
    ".password-store",
    ".config/gh",
    ".config/gcloud",
    ".docker/config.json",
    ".claude/.credentials.json",
    ".npmrc",
    ".pypirc",
)


@dataclass(slots=True)
class _Loader:
    home: Path
    # Where a repository's imports must stay (None: anywhere but the secret paths).
    confine_to: Path | None = None
    read_denied: Callable[[Path], bool] | None = None
    seen: set[Path] = field(default_factory=set[Path])
    sections: list[str] = field(default_factory=list[str])
    files: list[Path] = field(default_factory=list[Path])

    def load(
        self, path: Path, label: str, depth: int = 0, *, from_repository: bool = False
    ) -> None:
        try:
            real = path.resolve()
        except OSError:
            return
        if real in self.seen or not real.is_file():
            return
        if depth > 0 and not self._may_import(real, from_repository):
            return  # a committed file must not pull secrets (or anything, untrusted) in
        self.seen.add(real)
        try:
            text = real.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return
        text = _strip_comments(text)
        # Imports come first so the importing file can build on them.
        if depth < MAX_IMPORT_DEPTH:
            for target in _imports(text):
                resolved = self._resolve(target, real.parent)
                self.load(resolved, "import", depth + 1, from_repository=from_repository)
        self.files.append(path)
        self.sections.append(f"Contents of {path} ({label}):\n\n{text.strip()}")

    def _may_import(self, real: Path, from_repository: bool) -> bool:
        if self.read_denied is not None and self.read_denied(real):
            return False  # a Read deny rule covers it: the prompt is a way out too
        if not from_repository:
            return True
        home = self.home.resolve()
        if any(real.is_relative_to(home / secret) for secret in _SECRET_HOME_PATHS):
            return False
        return self.confine_to is None or real.is_relative_to(self.confine_to)

    def _resolve(self, target: str, base: Path) -> Path:
        if target.startswith("~/"):
            return self.home / target[2:]
        return (base / target) if not target.startswith("/") else Path(target)


def load_memory(
    cwd: Path,
    root: Path,
    home: Path,
    sources: Sequence[str],
    *,
    trust_project: bool = True,
    read_denied: Callable[[Path], bool] | None = None,
) -> tuple[str, tuple[Path, ...]]:
    """With ``trust_project=False`` a repository's memory files import only files inside
    the repository; secret files under home are never imported by one; no ``@import``
    pulls in a file that ``read_denied`` (the Read deny rules) covers."""
    loader = _Loader(home, None if trust_project else root.resolve(), read_denied)
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
                loader.load(directory / name, "project instructions", from_repository=True)
        if "local" in sources:
            loader.load(directory / "CLAUDE.local.md", "local instructions", from_repository=True)
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
