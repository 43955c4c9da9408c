"""Where the host cannot run the sandbox as specified, it fails closed with an error that
says why and what to do — never a weaker sandbox."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from loopwright import Options, query
from loopwright.errors import ConfigurationError
from loopwright.messages import SystemMessage
from loopwright.sandbox import BwrapSandbox, SandboxSettings, check_available
from loopwright.testing import ScriptedModel, text

from .host import requires_sandbox

_BWRAP = shutil.which("bwrap")


def _fake_bwrap(directory: Path, stderr: str) -> str:
    """An executable that fails the way a real bwrap does, with its words on stderr."""
    path = directory / "bwrap"
    path.write_text(f"#!/bin/sh\necho '{stderr}' >&2\nexit 1\n")
    path.chmod(0o755)
    return str(path)


def test_a_bwrap_too_old_to_forbid_nested_namespaces_is_refused(tmp_path: Path) -> None:
    old = _fake_bwrap(tmp_path, "bwrap: Unknown option --disable-userns")
    with pytest.raises(ConfigurationError) as caught:
        check_available(old)
    message = str(caught.value)
    assert "0.8.0 or newer" in message and "Upgrade bubblewrap" in message
    assert "allow_unsandboxed=True" in message


def test_a_refused_user_namespace_is_refused_with_what_to_change(tmp_path: Path) -> None:
    refused = _fake_bwrap(
        tmp_path, "bwrap: setting up uid map: Permission denied"
    )  # AppArmor on Ubuntu 24.04 answers like this
    with pytest.raises(ConfigurationError) as caught:
        BwrapSandbox(SandboxSettings(), [tmp_path], bwrap=refused)
    message = str(caught.value)
    assert "needs a user namespace" in message and "uid map: Permission denied" in message
    assert "max_user_namespaces" in message and "seccomp" in message
    assert "apparmor_restrict_unprivileged_userns" in message


_INSIDE = textwrap.dedent(
    """
    from loopwright.errors import ConfigurationError
    from loopwright.sandbox import BwrapSandbox, SandboxSettings
    try:
        BwrapSandbox(SandboxSettings(), ["/tmp"])
    except ConfigurationError as exc:
        print("REFUSED:", exc)
    else:
        print("STARTED")
    box = BwrapSandbox(SandboxSettings(allow_unsandboxed=True), ["/tmp"])
    print("FALLBACK available:", box.available, "reason:", box.unavailable_reason[:60])
    """
)


@requires_sandbox
def test_a_kernel_that_refuses_user_namespaces_stops_the_sandbox(tmp_path: Path) -> None:
    # A real refusal: inside a sandbox that already forbids new user namespaces (as a
    # container's seccomp profile or a zero max_user_namespaces would), start another.
    # Scratch space is a bound temp dir, not a tmpfs over /tmp: the checkout and its venv
    # may themselves live under /tmp.
    assert _BWRAP is not None
    outer = [_BWRAP, "--unshare-user", "--disable-userns", "--cap-drop", "ALL"]
    outer += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    outer += ["--bind", str(tmp_path), str(tmp_path)]
    done = subprocess.run(
        [*outer, "--", sys.executable, "-c", _INSIDE],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "LOOPWRIGHT_HOME": str(tmp_path / "lw"), "TMPDIR": str(tmp_path)},
    )
    assert "STARTED" not in done.stdout, done.stdout + done.stderr
    assert "REFUSED: the Bash sandbox needs a user namespace" in done.stdout, done.stderr
    assert "max_user_namespaces" in done.stdout
    # Running unsandboxed stays an explicit choice, with the reason kept for the notice.
    assert "FALLBACK available: False reason: the Bash sandbox needs a user namespace" in (
        done.stdout
    )


@requires_sandbox
def test_a_working_host_passes_the_check() -> None:
    assert check_available() == _BWRAP


@requires_sandbox
async def test_as_root_a_project_owned_by_another_user_is_announced_with_what_to_do(
    tmp_path: Path,
) -> None:
    if os.geteuid() != 0:
        pytest.skip("only root runs the sandbox over another user's project")
    project = tmp_path / "project"
    project.mkdir()
    os.chown(project, 4242, 4242)
    model = ScriptedModel([text("ok")])
    options = Options(model=model, cwd=project, sandbox=SandboxSettings(), setting_sources=[])
    notices = [
        str(m.data.get("message"))
        async for m in query("go", options)
        if isinstance(m, SystemMessage) and m.subtype == "informational"
    ]
    assert any("belongs to uid 4242" in n and "Run loopwright as uid 4242" in n for n in notices)
