"""Path rules are matched segment by segment, so a hostile rule or a deep path cannot
stall the gate (a backtracking regex took seconds on ``**/**/…`` for one check)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from permissions.permission_helpers import Recorder, decide, make_gate

STARS_9 = "/".join(["**"] * 9) + "/x"
STARS_10 = "/".join(["**"] * 10) + "/x"


@pytest.mark.parametrize("rule", [f"Read({STARS_9})", f"Read({STARS_10})", "Read(**/a*a*a*a*a*b)"])
async def test_adversarial_deny_rules_decide_a_deep_path_in_milliseconds(
    tmp_path: Path, rule: str
) -> None:
    deep = tmp_path.joinpath(*(["a" * 30] * 40), "a" * 60 + "c")
    gate = make_gate(tmp_path, deny=[rule], callback=Recorder())
    started = time.perf_counter()
    outcome, _ = await decide(gate, "Read", {"file_path": str(deep)}, tmp_path)
    elapsed = time.perf_counter() - started
    assert outcome == "allow"  # nothing matched: a read in the project, as without the rule
    assert elapsed < 0.5, f"one path check took {elapsed:.2f} s"


async def test_a_collapsed_double_star_rule_still_denies_what_it_names(tmp_path: Path) -> None:
    gate = make_gate(tmp_path, deny=[f"Read({STARS_10})"], callback=Recorder())
    target = tmp_path / "deep" / "down" / "x" / "inside.txt"
    outcome, _ = await decide(gate, "Read", {"file_path": str(target)}, tmp_path)
    assert outcome == "deny"


async def test_many_adversarial_rules_over_long_paths_stay_fast(tmp_path: Path) -> None:
    rules = [f"Read({'/'.join(['**'] * n)}/x{n})" for n in range(2, 12)]
    gate = make_gate(tmp_path, deny=rules, callback=Recorder())
    paths = [tmp_path.joinpath(*([f"d{i}"] * 50), "file") for i in range(10)]
    started = time.perf_counter()
    for path in paths:
        assert (await decide(gate, "Read", {"file_path": str(path)}, tmp_path))[0] == "allow"
    assert time.perf_counter() - started < 0.5


async def test_trailing_double_stars_still_name_the_directory_itself(tmp_path: Path) -> None:
    gate = make_gate(tmp_path, deny=["Read(secrets/**/**)"], callback=Recorder())
    target = tmp_path / "secrets"
    assert (await decide(gate, "Read", {"file_path": str(target)}, tmp_path))[0] == "deny"
