"""Ask the policy about each candidate under every profile; run what any profile approves.

A profile is a mode plus allow rules, always with the Read deny rules. The strictest
approving profile decides the budget the run is judged by (see ``budget``).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from loopwright.permissions import PermissionPolicy, RuleSet
from loopwright.types import PermissionMode
from shell_fuzz import vocabulary as v
from shell_fuzz.budget import BudgetKind, Violation, denied_runs, judge
from shell_fuzz.fixture import build_template, reset_run_dir
from shell_fuzz.grammar import Candidate
from shell_fuzz.oracle import Observation, Sandbox


@dataclass(frozen=True, slots=True)
class Profile:
    name: str
    mode: PermissionMode
    allow: tuple[str, ...]
    budget: BudgetKind
    # Bash deny rules on top of the Read ones; a denied program that runs is a finding.
    deny: tuple[str, ...] = ()


PROFILES = (
    Profile("read-only", "default", (), "read_only"),
    Profile("plan+rules", "plan", (*v.ALLOW_RULES, v.GIT_RULE), "read_only"),
    Profile("acceptEdits", "acceptEdits", (), "edits"),
    Profile("rules", "default", v.ALLOW_RULES, "rule"),
    Profile("rules+git", "default", (*v.ALLOW_RULES, v.GIT_RULE), "rule"),
    # Deny-rule profiles: only the denied programs are judged (bypass allows the rest).
    Profile("deny+bypass", "bypassPermissions", (), "denied_only", v.BASH_DENY_RULES),
    Profile(
        "deny+git+dontAsk",
        "dontAsk",
        (*v.ALLOW_RULES, v.GIT_RULE),
        "denied_only",
        v.BASH_DENY_RULES,
    ),
)


_SHOWN = 8  # violations listed per finding


@dataclass(frozen=True, slots=True)
class Finding:
    candidate: Candidate
    profile: str
    reason: str  # the policy's reason for approving
    violations: tuple[Violation, ...]
    output: str

    def describe(self) -> str:
        lines = [
            f"command : {self.candidate.command!r}",
            f"origin  : {self.candidate.origin}",
            f"profile : {_describe_profile(self.profile)}",
            f"approved: {self.reason}",
            f"names   : {sorted(self.candidate.programs)}",
        ]
        lines += [f"  - [{x.what}] {x.detail}" for x in self.violations[:_SHOWN]]
        if len(self.violations) > _SHOWN:
            lines.append(f"  - … and {len(self.violations) - _SHOWN} more")
        if self.output.strip():
            lines.append(f"output  : {self.output[:300]!r}")
        return "\n".join(lines)


@dataclass(slots=True)
class Report:
    tried: int = 0
    approved: int = 0
    ran: int = 0
    timeouts: int = 0
    denied_but_ran: int = 0
    approvals_by_profile: dict[str, int] = field(default_factory=dict[str, int])
    findings: list[Finding] = field(default_factory=list[Finding])

    def summary(self) -> str:
        lines = [
            f"commands tried    : {self.tried}",
            f"approved (any)    : {self.approved}",
            f"run in sandbox    : {self.ran} ({self.timeouts} hit the timeout)",
            "approvals/profile : "
            + ", ".join(f"{k}={n}" for k, n in sorted(self.approvals_by_profile.items())),
            f"denied but ran    : {self.denied_but_ran}",
            f"findings          : {len(self.findings)}",
        ]
        for number, finding in enumerate(self.findings, 1):
            lines.append(f"\n--- finding {number}\n{finding.describe()}")
        return "\n".join(lines)


@dataclass(slots=True)
class Campaign:
    sandbox: Sandbox
    template: Path
    report: Report = field(default_factory=Report)

    @classmethod
    def create(cls, sandbox: Sandbox, work: Path) -> Campaign:
        template = build_template(work / "template")
        reset_run_dir(template, sandbox.run_dir)
        return cls(sandbox, template)

    def run(self, candidates: Iterable[Candidate], *, deadline: float | None = None) -> Report:
        for candidate in candidates:
            if deadline is not None and time.monotonic() > deadline:
                break
            self.try_one(candidate)
        return self.report

    def try_one(self, candidate: Candidate) -> None:
        self.report.tried += 1
        try:
            approvals = self.approvals(candidate.command)
        except Exception as error:  # the analyser must answer, never raise
            crash = Violation("crash", f"evaluate raised {type(error).__name__}: {error}")
            self.report.findings.append(Finding(candidate, "any", "—", (crash,), ""))
            return
        if not approvals:
            return
        self.report.approved += 1
        for profile, _reason in approvals:
            counts = self.report.approvals_by_profile
            counts[profile.name] = counts.get(profile.name, 0) + 1
        observation = self.observe(candidate.command)
        for profile, reason in approvals:
            violations = judge(
                observation, profile.budget, candidate.programs, self.sandbox.run_dir
            )
            if profile.deny:
                denied = denied_runs(observation, v.DENIED_PROGRAMS, v.DENIED_GIT)
                self.report.denied_but_ran += bool(denied)
                violations += denied
            if violations:
                self.report.findings.append(
                    Finding(candidate, profile.name, reason, tuple(violations), observation.output)
                )
                return  # one finding per command: the strictest profile that broke

    def approvals(self, command: str) -> list[tuple[Profile, str]]:
        proj = self.sandbox.proj
        approved: list[tuple[Profile, str]] = []
        for profile in PROFILES:
            rules = RuleSet.from_strings(
                allow=profile.allow, deny=(*v.DENY_RULES, *profile.deny), anchor=proj
            )
            policy = PermissionPolicy(
                rules, profile.mode, (proj,), home=self.sandbox.run_dir / "home"
            )
            verdict = policy.evaluate("Bash", {"command": command}, proj)
            if verdict.behavior == "allow":
                approved.append((profile, verdict.reason))
        return approved

    def reset(self) -> None:
        """Back to the pristine project, so each command starts from the same tree."""
        reset_run_dir(self.template, self.sandbox.run_dir)

    def observe(self, command: str) -> Observation:
        self.report.ran += 1
        try:
            observation = self.sandbox.observe(command)
        finally:
            self.reset()
        if observation.exit_code is None:
            self.report.timeouts += 1
        return observation


def _describe_profile(name: str) -> str:
    for profile in PROFILES:
        if profile.name == name:
            allow = list(profile.allow)
            deny = [*v.DENY_RULES, *profile.deny]
            return f"{name} (mode {profile.mode}, allow={allow}, deny={deny})"
    return f"{name} (deny={list(v.DENY_RULES)})"
