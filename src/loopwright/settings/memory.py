"""Memory files: AGENTS.md and CLAUDE.md, joined into one block for the system prompt.

Order, first to last (later text is read last by the model, so closer files win):
user (``~/.claude/CLAUDE.md``, ``~/.loopwright/AGENTS.md``), then each directory from
the project root down to cwd (``CLAUDE.md``, ``AGENTS.md``, ``.claude/CLAUDE.md``, and
``CLAUDE.local.md`` for the local source). ``@path`` imports expand up to four hops deep;
each file is included once, which also breaks import cycles.

A memory file goes into every request, so it is opened like untrusted input: resolved to
its real target first, and that target held to the Read deny rules, never under ``/proc``,
``/dev`` or ``/sys``, and — for a repository's files and their imports — never one of the
credential files under home, and inside the repository's working directories (a committed
``CLAUDE.md -> ~/.ssh/id_rsa`` is refused). It is then opened ``O_NOFOLLOW | O_NONBLOCK``
(a swap to a symlink or a FIFO fails, never blocks), must be a regular file, and is read up
to :data:`MAX_MEMORY_BYTES`. Each refusal is reported as a notice, never loaded.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

MAX_IMPORT_DEPTH = 4
MAX_MEMORY_BYTES = 512 * 1024
_NEVER_READ = (Path("/proc"), Path("/dev"), Path("/sys"))
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
    ".pgpass",
    ".my.cnf",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".config/git/credentials",
    ".config/loopwright",
    ".loopwright",
    ".claude/projects",
    ".bash_history",
    ".zsh_history",
    ".python_history",
    ".psql_history",
    ".mysql_history",
    ".lesshst",
    ".viminfo",
)


@dataclass(slots=True)
class _Loader:
    home: Path
    # Where a repository's imports must stay (None: anywhere but the secret paths).
    confine_to: Path | None = None
    read_denied: Callable[[Path], bool] | None = None
    # Where a repository's own memory files may really live: its working directories.
    working_dirs: tuple[Path, ...] = ()
    seen: set[Path] = field(default_factory=set[Path])
    sections: list[str] = field(default_factory=list[str])
    files: list[Path] = field(default_factory=list[Path])
    notices: list[str] = field(default_factory=list[str])

    def load(
        self, path: Path, label: str, depth: int = 0, *, from_repository: bool = False
    ) -> None:
        if not os.path.lexists(path):
            return
        try:
            real = path.resolve(strict=True)
        except (OSError, RuntimeError):  # a dangling link, a loop
            self.notices.append(f"memory file {path} was not loaded: it does not resolve")
            return
        if real in self.seen:
            return
        content = self._refusal(real, depth, from_repository) or _read_regular_file(real)
        if isinstance(content, str):
            shown = path if real == path else f"{path} (-> {real})"
            self.notices.append(f"memory file {shown} was not loaded: {content}")
            return
        self.seen.add(real)
        text = _strip_comments(content.decode("utf-8", errors="replace"))
        # Imports come first so the importing file can build on them.
        if depth < MAX_IMPORT_DEPTH:
            for target in _imports(text):
                resolved = self._resolve(target, real.parent)
                self.load(resolved, "import", depth + 1, from_repository=from_repository)
        self.files.append(path)
        self.sections.append(f"Contents of {path} ({label}):\n\n{text.strip()}")

    def _refusal(self, real: Path, depth: int, from_repository: bool) -> str | None:
        """Why the file at ``real`` must not go into the prompt, or None."""
        if any(real.is_relative_to(place) for place in _NEVER_READ):
            return "it is under /proc, /dev or /sys, which memory files never come from"
        if self.read_denied is not None and self.read_denied(real):
            return "a Read deny rule covers it (the prompt is a way out too)"
        if not from_repository:
            return None
        home = self.home.resolve()
        if any(real.is_relative_to(home / secret) for secret in _SECRET_HOME_PATHS):
            return "it is a credential or history file, which a repository never pulls in"
        allowed = self.working_dirs if depth == 0 else (self.confine_to,)
        if depth > 0 and self.confine_to is None:
            return None  # a trusted repository's @import may name a file under home
        if not any(place is not None and real.is_relative_to(place) for place in allowed):
            where = "the working directories" if depth == 0 else "the repository"
            return f"it lies outside {where}; copy the file in instead of linking it"
        return None

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
    working_dirs: Sequence[Path] = (),
) -> tuple[str, tuple[Path, ...], tuple[str, ...]]:
    """(the memory block, the files in it, notices of files refused).

    With ``trust_project=False`` a repository's memory files import only files inside
    the repository; secret files under home are never imported by one; no memory file or
    ``@import`` is a file that ``read_denied`` (the Read deny rules) covers; a repository's
    own memory files must really lie in ``root``, ``cwd`` or ``working_dirs``."""
    places = tuple(dict.fromkeys(p.resolve() for p in (root, cwd, *working_dirs)))
    loader = _Loader(home, None if trust_project else root.resolve(), read_denied, places)
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
    return "\n\n".join(loader.sections), tuple(loader.files), tuple(loader.notices)


def _read_regular_file(real: Path) -> bytes | str:
    """The file's bytes, or why not. ``O_NOFOLLOW``: a link swapped in after resolving is
    refused; ``O_NONBLOCK``: a FIFO cannot hang the start of the session."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(real, flags)
    except OSError as exc:
        return f"it cannot be opened ({exc.strerror or exc})"
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return "it is not a regular file"
        if info.st_size > MAX_MEMORY_BYTES:
            return f"it is larger than {MAX_MEMORY_BYTES // 1024} KiB; shorten it"
        data = os.read(fd, MAX_MEMORY_BYTES + 1)
    except OSError as exc:
        return f"it cannot be read ({exc.strerror or exc})"
    finally:
        os.close(fd)
    if len(data) > MAX_MEMORY_BYTES:  # grew between fstat and read
        return f"it is larger than {MAX_MEMORY_BYTES // 1024} KiB; shorten it"
    return data


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
