"""File checkpoints: the files tools change are snapshotted per user message and can be
rewound.

With ``Options(enable_file_checkpointing=True)`` each prompt opens a checkpoint named by
the prompt's uuid; before a file-editing tool (Write, Edit, NotebookEdit) runs, the file's
content is kept the first time it is touched under that checkpoint (or the fact that it did
not exist). ``Client.rewind_files(user_message_uuid)`` puts every file changed at or after
that prompt back as it was just before it. Changes made by shell commands are not tracked.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from loopwright.errors import LoopwrightError

EDITING_TOOLS = {"Write": "file_path", "Edit": "file_path", "NotebookEdit": "notebook_path"}


@dataclass
class FileCheckpoints:
    """Per prompt (by uuid, oldest first): each touched path and its earlier content."""

    snapshots: dict[str, dict[Path, bytes | None]] = field(
        default_factory=dict[str, dict[Path, "bytes | None"]]
    )

    def begin(self, message_uuid: str) -> None:
        self.snapshots.setdefault(message_uuid, {})

    def before_tool(self, name: str, input: dict[str, Any], cwd: Path) -> None:
        """Keep what ``name`` is about to change, if it is a file-editing tool."""
        key = EDITING_TOOLS.get(name)
        raw = input.get(key) if key is not None else None
        if not isinstance(raw, str) or not raw or not self.snapshots:
            return
        path = (cwd / raw).resolve()
        current = self.snapshots[next(reversed(self.snapshots))]
        if path not in current:
            current[path] = path.read_bytes() if path.is_file() else None

    def rewind(self, message_uuid: str) -> list[Path]:
        """Restore every file changed at or after ``message_uuid``; the paths restored."""
        if message_uuid not in self.snapshots:
            known = ", ".join(self.snapshots) or "none yet"
            raise LoopwrightError(
                f"no file checkpoint for user message {message_uuid!r} (checkpoints: {known}); "
                "pass the uuid of a UserMessage prompt of this session, with "
                "enable_file_checkpointing=True"
            )
        order = list(self.snapshots)
        later = order[order.index(message_uuid) :]
        earliest: dict[Path, bytes | None] = {}
        for uuid in reversed(later):  # the oldest snapshot of each path wins
            earliest.update(self.snapshots[uuid])
        for path, content in earliest.items():
            if content is None:
                path.unlink(missing_ok=True)
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(content)
        for uuid in later:
            self.snapshots[uuid] = {}
        return sorted(earliest)
