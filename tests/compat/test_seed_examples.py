"""The seed documents' examples, unchanged but for the import line, run as real scripts.

Each runs in a fresh process with LOOPWRIGHT_MODEL pointing at the scripted model next to
it, inside a temporary copy of the small project the examples talk about.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

SEEDS = Path(__file__).resolve().parents[2] / "examples" / "seeds"
SEED_DOCUMENTS = Path("/work/shared/seeds")


def run_example(
    name: str, cwd: Path, script: Path | None = None
) -> subprocess.CompletedProcess[str]:
    home = cwd.parent / f"{cwd.name}-home"
    home.mkdir(exist_ok=True)
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "LOOPWRIGHT_HOME": str(home / ".loopwright"),
        "LOOPWRIGHT_MODEL": f"scripted:{script or SEEDS / (name + '.yaml')}",
        "PYTHONIOENCODING": "utf-8",
    }
    return subprocess.run(
        [sys.executable, str(SEEDS / f"{name}.py")],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    copy = tmp_path / "auth_project"
    shutil.copytree(SEEDS / "auth_project", copy)
    return copy


def test_check_message_types_prints_each_turn_and_the_summary(project: Path) -> None:
    done = run_example("002_check_message_types", project)

    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "Turn completed: 2 content blocks",
        "Turn completed: 1 content blocks",
        "Turn completed: 1 content blocks",
        "This project is a small password-checking module (auth.py) with unit tests "
        "(test_auth.py).",
    ]


def test_put_it_all_together_fixes_the_auth_bug_and_prints_the_cost(project: Path) -> None:
    done = run_example("002_put_it_all_together", project)

    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("Done: check_password in auth.py returned the negated comparison")
    assert lines[1] == "Cost: $0.0000"
    tests = subprocess.run(
        [sys.executable, "-m", "unittest", "-q", "test_auth"], cwd=project, capture_output=True
    )
    assert tests.returncode == 0


def test_put_it_all_together_reports_the_turn_limit_then_the_raised_error(
    project: Path, tmp_path: Path
) -> None:
    # max_turns=30 in the example: a model that never stops hits it on the 31st call.
    endless = [{"tool_call": {"name": "Glob", "input": {"pattern": "*.py"}}}] * 31
    script = tmp_path / "endless.yaml"
    script.write_text(yaml.safe_dump(endless))

    done = run_example("002_put_it_all_together", project, script)

    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("Hit turn limit. Resume session ")
    assert lines[0].endswith(" to continue.")
    assert lines[1] == "Cost: $0.0000"
    assert lines[2].startswith("Session ended with an error: agent run ended with error_max_turns")


def test_claude_agent_sdk_weather_client_prints_the_answer(tmp_path: Path) -> None:
    done = run_example("004_claude_agent_sdk_weather", tmp_path)

    assert done.returncode == 0, done.stderr
    assert done.stdout == "東京も大阪も晴れで、気温はどちらも 24 度です。\n"


def test_openai_agents_weather_runner_prints_the_final_output(tmp_path: Path) -> None:
    done = run_example("004_openai_agents_weather", tmp_path)

    assert done.returncode == 0, done.stderr
    assert done.stdout == "現在、東京も大阪も晴れで、気温はどちらも 24 度です。\n"


@pytest.mark.parametrize(
    ("example", "seed", "old_import", "new_import"),
    [
        (
            "002_check_message_types",
            "002_2181a4aae96f5f00.txt",
            "from claude_agent_sdk import",
            "from loopwright.compat.claude_agent_sdk import",
        ),
        (
            "002_put_it_all_together",
            "002_2181a4aae96f5f00.txt",
            "from claude_agent_sdk import",
            "from loopwright.compat.claude_agent_sdk import",
        ),
        (
            "004_claude_agent_sdk_weather",
            "004_558bf8d472d79a17.txt",
            "from claude_agent_sdk import",
            "from loopwright.compat.claude_agent_sdk import",
        ),
        (
            "004_openai_agents_weather",
            "004_558bf8d472d79a17.txt",
            "from agents import",
            "from loopwright.compat.openai_agents import",
        ),
    ],
)
def test_example_differs_from_its_seed_only_in_the_import(
    example: str, seed: str, old_import: str, new_import: str
) -> None:
    seed_file = SEED_DOCUMENTS / seed
    if not seed_file.exists():
        pytest.skip(f"the seed documents are not available here ({seed_file})")
    source = (SEEDS / f"{example}.py").read_text(encoding="utf-8")
    assert source.count(new_import) == 1
    original = source.replace(new_import, old_import)
    assert _appears_in(original.splitlines(), seed_file.read_text(encoding="utf-8").splitlines())


def _appears_in(code: list[str], document: list[str]) -> bool:
    """Whether ``code`` is a block of ``document``, once the block's indentation (the seed
    prints code inside indented markup) is removed."""
    for start, line in enumerate(document):
        if line.strip() != code[0].strip():
            continue
        indent = len(line) - len(line.lstrip())
        block = [row[indent:] if row.strip() else "" for row in document[start : start + len(code)]]
        if block == code:
            return True
    return False
