"""A fleet run: tasks from a JSONL file, enqueued as durable sessions and followed.

One task per line::

    {"prompt": "fix the flaky test", "cwd": "/repos/a", "options": {"max_turns": 20}}
    {"id": "b-lint", "prompt": "make lint pass", "options": "myproject.agents:linter"}

``options`` overrides the fleet's base Options field by field (JSON values only), or is
"package.module:attribute" naming Options (or a function returning them) that every
worker rebuilds from its own code (for @tool functions and callbacks). ``id`` names the
session (default: the run id and the line number), so running the same file again follows
the sessions the first run started instead of starting them twice.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from dbos import DBOS

from loopwright.errors import ConfigurationError
from loopwright.messages import ResultMessage
from loopwright.options import Options

from .session import OptionsSource, enqueue_session, storable_options

_OPTION_FIELDS = frozenset(f.name for f in dataclasses.fields(Options))
# DBOS statuses of a session that will not change any more.
_FINAL = frozenset({"SUCCESS", "ERROR", "CANCELLED", "MAX_RECOVERY_ATTEMPTS_EXCEEDED"})
TaskState = Literal["queued", "running", "done", "failed"]


@dataclass(frozen=True, slots=True)
class FleetTask:
    index: int  # line number in the tasks file, from 1
    workflow_id: str
    prompt: str
    options: OptionsSource


@dataclass(frozen=True, slots=True)
class TaskOutcome:
    """A finished task: its session's ResultMessage, or why the workflow itself failed."""

    task: FleetTask
    result: ResultMessage | None
    error: str | None = None

    @property
    def succeeded(self) -> bool:
        return self.result is not None and not self.result.is_error

    def to_json_line(self) -> str:
        record: dict[str, Any] = {
            "task": self.task.index,
            "session_id": self.result.session_id if self.result else self.task.workflow_id,
            "workflow_id": self.task.workflow_id,
            "subtype": self.result.subtype if self.result else "error_during_execution",
            "result": self.result.to_dict() if self.result else None,
        }
        if self.error is not None:
            record["error"] = self.error
        return json.dumps(record)


@dataclass(slots=True)
class Progress:
    """Counts for the progress line; ``cost_usd`` sums finished sessions."""

    total: int
    started_at: float = field(default_factory=time.monotonic)
    states: dict[str, TaskState] = field(default_factory=lambda: dict[str, TaskState]())
    cost_usd: float = 0.0

    def count(self, state: TaskState) -> int:
        return sum(1 for s in self.states.values() if s == state)

    @property
    def finished(self) -> int:
        return self.count("done") + self.count("failed")

    def eta_seconds(self) -> float | None:
        finished = self.finished
        if finished == 0:
            return None
        elapsed = time.monotonic() - self.started_at
        return elapsed / finished * (self.total - finished)


def run_id_for(tasks_file: Path) -> str:
    """The default run id: the file's name and a hash of its contents."""
    digest = hashlib.sha256(tasks_file.read_bytes()).hexdigest()[:8]
    return f"{tasks_file.stem}-{digest}"


def read_tasks(tasks_file: Path, base: Options, run_id: str) -> list[FleetTask]:
    """Every task of the file, validated before anything is enqueued."""
    try:
        lines = tasks_file.read_text().splitlines()
    except OSError as exc:
        raise ConfigurationError(f"cannot read the tasks file {tasks_file}: {exc}") from exc
    tasks: list[FleetTask] = []
    for number, line in enumerate(lines, start=1):
        if line.strip():
            tasks.append(_task(line, number, base, run_id, tasks_file))
    if not tasks:
        raise ConfigurationError(
            f"{tasks_file} has no tasks: write one JSON object per line, e.g. "
            '{"prompt": "fix the tests", "cwd": "/path/to/repo"}'
        )
    seen: set[str] = set()
    for task in tasks:
        if task.workflow_id in seen:
            raise ConfigurationError(
                f"{tasks_file}, line {task.index}: id {task.workflow_id!r} is used twice; "
                "give every task its own id"
            )
        seen.add(task.workflow_id)
    return tasks


def _task(line: str, number: int, base: Options, run_id: str, source: Path) -> FleetTask:
    where = f"{source}, line {number}"
    try:
        data: Any = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ConfigurationError(
            f"{where}: not JSON ({exc.msg}); write one object per line"
        ) from exc
    if not isinstance(data, dict):
        raise ConfigurationError(f"{where}: a task is a JSON object with a 'prompt'")
    unknown = set(data) - {"prompt", "cwd", "options", "id"}
    if unknown:
        raise ConfigurationError(
            f"{where}: unknown key(s) {sorted(unknown)}; a task has prompt, cwd, options, id"
        )
    prompt = data.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        raise ConfigurationError(f'{where}: "prompt" must be a non-empty string')
    task_id = data.get("id", f"{run_id}-{number:05d}")
    if not isinstance(task_id, str) or not task_id:
        raise ConfigurationError(f'{where}: "id" must be a non-empty string')
    options = _task_options(data, base, where)
    return FleetTask(number, task_id, prompt, storable_options(options))


def _task_options(data: dict[str, Any], base: Options, where: str) -> OptionsSource:
    overrides = data.get("options", {})
    cwd = data.get("cwd")
    if cwd is not None and not isinstance(cwd, str):
        raise ConfigurationError(f'{where}: "cwd" must be a path string')
    if isinstance(overrides, str):
        if cwd is not None:
            raise ConfigurationError(
                f'{where}: "cwd" cannot change options given by reference ({overrides}); '
                "set cwd in the Options that reference builds"
            )
        return overrides
    if not isinstance(overrides, dict):
        raise ConfigurationError(
            f'{where}: "options" must be an object of Options fields or a '
            '"package.module:attribute" reference'
        )
    unknown = sorted(set(overrides) - _OPTION_FIELDS)
    if unknown:
        raise ConfigurationError(
            f"{where}: {unknown} are not Options fields; see loopwright.Options for the names"
        )
    if cwd is not None:
        overrides = {**overrides, "cwd": cwd}
    try:
        return dataclasses.replace(base, **overrides)
    except (TypeError, ValueError) as exc:
        raise ConfigurationError(f"{where}: bad options ({exc})") from exc


async def enqueue_tasks(tasks: Iterable[FleetTask]) -> None:
    for task in tasks:
        await enqueue_session(task.prompt, task.options, workflow_id=task.workflow_id)


async def poll(
    tasks: Sequence[FleetTask], progress: Progress, reported: set[str]
) -> list[TaskOutcome]:
    """Update ``progress`` from the database; the outcomes finished since the last poll
    (those not in ``reported``, which is updated)."""
    by_id = {task.workflow_id: task for task in tasks}
    outcomes: list[TaskOutcome] = []
    statuses = await DBOS.list_workflows_async(
        workflow_ids=list(by_id), load_input=False, load_output=True
    )
    for status in statuses:
        state = _state(status.status, status.output)
        progress.states[status.workflow_id] = state
        if status.status in _FINAL and status.workflow_id not in reported:
            reported.add(status.workflow_id)
            outcome = _outcome(by_id[status.workflow_id], status.output, status.error)
            if outcome.result is not None and outcome.result.total_cost_usd:
                progress.cost_usd += outcome.result.total_cost_usd
            outcomes.append(outcome)
    return outcomes


def _state(status: str, output: Any) -> TaskState:
    if status == "ENQUEUED":
        return "queued"
    if status == "PENDING":
        return "running"
    if status == "SUCCESS" and isinstance(output, dict) and not output.get("is_error"):
        return "done"
    return "failed"


def _outcome(task: FleetTask, output: Any, error: Exception | None) -> TaskOutcome:
    if isinstance(output, dict):
        return TaskOutcome(task, ResultMessage.from_dict(output))
    reason = f"{type(error).__name__}: {error}" if error is not None else "no result recorded"
    return TaskOutcome(task, None, reason)
