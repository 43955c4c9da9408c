"""The shell fuzzer: its oracle catches what it must, passes what it must, and a short
deterministic run (the seeded bypass classes plus grammar commands) finds nothing new.

The long run is ``make fuzz``; see tests/shell_fuzz/ for the design.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from permissions.test_fuzz_regressions import OPEN_BYPASSES, OPEN_CRASH_TEXT
from shell_fuzz.budget import BudgetKind, denied_runs, judge
from shell_fuzz.campaign import Campaign, Finding, Report
from shell_fuzz.grammar import Grammar
from shell_fuzz.oracle import Sandbox, find_tools
from shell_fuzz.seeds import seed_candidates
from system_deps import missing_system_dependency

BOUNDED_SEED = 20261201
BOUNDED_COMMANDS = 200
BOUNDED_SECONDS = 20.0


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Campaign]:
    tools = find_tools()
    if isinstance(tools, str):
        missing_system_dependency(tools)  # skipped here, a failure in CI (which installs it)
    work: Path = tmp_path_factory.mktemp("shell-fuzz")
    yield Campaign.create(Sandbox(*tools, run_dir=work / "run"), work)


def _violations(campaign: Campaign, command: str, named: set[str], budget: BudgetKind) -> set[str]:
    observation = campaign.observe(command)
    found = judge(observation, budget, frozenset(named), campaign.sandbox.run_dir)
    return {v.what for v in found}


@pytest.mark.parametrize(
    ("command", "named", "budget", "expected"),
    [
        ("sort -o out.txt notes.txt", {"sort"}, "read_only", "write"),
        ("cat secrets/key", {"cat"}, "read_only", "denied-read"),
        ("df secrets/key", {"df"}, "read_only", "denied-open"),
        ("cat link-to-env", {"cat"}, "read_only", "leak"),
        ("cat ../outside/file", {"cat"}, "read_only", "outside-read"),
        ("x='$(touch pwned)'; echo ${x@P}", {"echo"}, "rule", "exec"),
        ("git -c core.fsmonitor='touch pwned' status", {"git"}, "rule", "exec"),
        ("HOME=cfg git st", {"git"}, "rule", "exec"),
        ("find . -name app.py -exec true {} ';'", {"find"}, "read_only", "exec"),
        ("echo x >> .git/config", {"echo"}, "rule", "write"),
        ("echo x > ../outside/new", {"echo"}, "rule", "write"),
        ("echo x > /tmp/elsewhere", {"echo"}, "edits", "write"),
        ("mkdir .claude", {"mkdir"}, "edits", "write"),
    ],
)
def test_oracle_reports_effects_beyond_the_approval(
    campaign: Campaign, command: str, named: set[str], budget: BudgetKind, expected: str
) -> None:
    assert expected in _violations(campaign, command, named, budget)


@pytest.mark.parametrize(
    ("command", "named", "budget"),
    [
        ("git status", {"git"}, "read_only"),
        ("git log --oneline -1 && git diff --stat", {"git"}, "read_only"),
        ("ls -la src; cat src/app.py | head -1", {"ls", "cat", "head"}, "read_only"),
        ("cat notes.txt | tac | sort -n | uniq", {"cat", "tac", "sort", "uniq"}, "read_only"),
        ("echo src/app.py | xargs wc -l", {"echo", "xargs", "wc"}, "read_only"),
        ("echo hi > out.txt && cat out.txt", {"echo", "cat"}, "edits"),
        ("git commit -q --allow-empty -m x", {"git"}, "rule"),
        ("timeout 5 nice ls", {"timeout", "nice", "ls"}, "read_only"),
        ("touch . src/new.py", {"touch"}, "edits"),
    ],
)
def test_oracle_passes_what_the_approval_covers(
    campaign: Campaign, command: str, named: set[str], budget: BudgetKind
) -> None:
    assert _violations(campaign, command, named, budget) == set()


def _already_open(finding: Finding) -> bool:
    """Reported and kept as a strict xfail in test_fuzz_regressions.py."""
    if finding.candidate.command in OPEN_BYPASSES:
        return True
    return all(v.what == "crash" and OPEN_CRASH_TEXT in v.detail for v in finding.violations)


def test_oracle_without_strace_still_sees_file_changes(campaign: Campaign) -> None:
    sandbox = campaign.sandbox
    blind = Sandbox(sandbox.bwrap, None, sandbox.run_dir)
    try:
        observation = blind.observe("sort -o out.txt notes.txt")
    finally:
        campaign.reset()
    found = judge(observation, "read_only", frozenset({"sort"}), sandbox.run_dir)
    assert [v.what for v in found] == ["write"]
    assert "out.txt" in found[0].detail


def test_grammar_is_deterministic_per_seed() -> None:
    first = [Grammar(7).candidate(i).command for i in range(50)]
    again = [Grammar(7).candidate(i).command for i in range(50)]
    other = [Grammar(8).candidate(i).command for i in range(50)]
    assert first == again
    assert first != other


def test_bounded_fuzz_run_finds_no_new_bypass(campaign: Campaign) -> None:
    grammar = Grammar(BOUNDED_SEED)
    stream = itertools.chain(
        seed_candidates(),
        (grammar.candidate(i) for i in range(BOUNDED_COMMANDS)),
    )
    campaign.report = Report()
    report = campaign.run(stream, deadline=time.monotonic() + BOUNDED_SECONDS)
    new = [f for f in report.findings if not _already_open(f)]
    assert report.approved > 0, "nothing was approved: the run proves nothing"
    assert not new, report.summary()


@pytest.mark.parametrize(
    ("command", "caught"),
    [
        ("id", True),
        ("env -i id", True),
        ("git -C . --no-pager commit -q --allow-empty -m x", True),
        ("git -c x.y=1 tag v9", True),
        ("git stash list && git status", False),
        ("echo id", False),
    ],
)
def test_deny_oracle_reports_a_denied_program_that_ran(
    campaign: Campaign, command: str, caught: bool
) -> None:
    try:
        observation = campaign.sandbox.observe(command)
    finally:
        campaign.reset()
    found = denied_runs(observation, ("id",), ("commit", "tag"))
    assert bool(found) is caught, found
