"""Tests that need a program the machine may lack (bubblewrap, PostgreSQL, node, Chromium).

On a developer's machine such a test is skipped with a reason that says how to install the
program, so `make test` is green on a fresh checkout. `.ci/run` installs every one of them and
sets ``LOOPWRIGHT_REQUIRE_SYSTEM_DEPS=1``: there a missing program fails the test instead, so a
broken install step cannot hide behind a skip.
"""

from __future__ import annotations

import os
import shutil
from typing import NoReturn

import pytest

REQUIRE_ENV = "LOOPWRIGHT_REQUIRE_SYSTEM_DEPS"

INSTALL_HINTS: dict[str, str] = {
    "bwrap": "apt-get install bubblewrap (Fedora: dnf install bubblewrap)",
    "initdb": "apt-get install postgresql",
    "node": "apt-get install nodejs npm",
    "npm": "apt-get install npm",
    "chromium": "apt-get install chromium",
}


def system_deps_required() -> bool:
    return os.environ.get(REQUIRE_ENV, "") not in ("", "0")


def missing_system_dependency(reason: str) -> NoReturn:
    """Skip (a newcomer's machine) or fail (CI, which installed it) with ``reason``."""
    if system_deps_required():
        pytest.fail(f"{reason} [{REQUIRE_ENV}=1: CI installs it, so it must be here]")
    pytest.skip(reason)


def require_program(name: str, *, purpose: str) -> str:
    """The path of ``name`` on PATH, or a skip/failure saying how to install it."""
    found = shutil.which(name)
    if found is None:
        hint = INSTALL_HINTS.get(name, f"install {name}")
        missing_system_dependency(f"{purpose} needs {name}, which is not installed: {hint}")
    return found
