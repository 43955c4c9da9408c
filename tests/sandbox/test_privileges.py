"""The sandbox holds as root and as an unprivileged user: no capabilities, no mounts, no
sysctls, no nested user namespaces, writes only in the working dirs.

escape_probe.py runs every attempt inside the sandbox once per identity (as root when the
suite runs as root — containers and CI — and as ``nobody``); each test checks one outcome.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from .escape_probe import REMOUNT_MARK, SECRET
from .host import requires_sandbox

pytestmark = requires_sandbox
_PROBE = Path(__file__).with_name("escape_probe.py")
_NOBODY = 65534
_OTHER_USER = 4242


@dataclass(frozen=True, slots=True)
class Battery:
    identity: str
    scratch: Path
    results: dict[str, dict[str, object]]

    def out(self, name: str) -> str:
        return str(self.results[name]["out"])


def _prepare(scratch: Path, owner: int | None) -> None:
    for sub in ("home/.ssh", "work", "outside"):
        (scratch / sub).mkdir(parents=True)
    (scratch / "home" / ".ssh" / "id_ed25519").write_text(SECRET)
    (scratch / "work" / "own.txt").write_text("old\n")
    if os.geteuid() == 0:
        for mode in ("0644", "0666"):
            other = scratch / "work" / f"other-{mode}.txt"
            other.write_text("theirs\n")
            os.chown(other, _OTHER_USER, _OTHER_USER)
            other.chmod(int(mode, 8))
    scratch.chmod(0o755)
    if owner is not None:
        for path in [scratch / "work", scratch / "work" / "own.txt", scratch / "outside"]:
            os.chown(path, owner, owner)
    # The secret is readable by everyone on the host: only the mask can hide it.
    for path in scratch.rglob("*"):
        path.chmod(path.stat().st_mode | 0o444 | (0o111 if path.is_dir() else 0))


def _python_for_nobody() -> str:
    """An interpreter of this version that ``nobody`` may run (a venv's may live in /root)."""
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    for candidate in (sys.executable, shutil.which(version), f"/usr/bin/{version}"):
        if candidate is not None and _nobody_can_run(candidate):
            return candidate
    pytest.skip(f"no {version} interpreter that the unprivileged user may run")


def _nobody_can_run(python: str) -> bool:
    try:
        done = subprocess.run(
            [python, "-c", "pass"], user=_NOBODY, group=_NOBODY, extra_groups=[], check=False
        )
    except OSError:
        return False
    return done.returncode == 0


def _run_probe(identity: str) -> Battery:
    if identity == "root" and os.geteuid() != 0:
        pytest.skip("the root case needs the suite to run as root (as in containers and CI)")
    drop_to_nobody = identity == "unprivileged" and os.geteuid() == 0
    scratch = Path(tempfile.mkdtemp(prefix="loopwright-probe-"))
    _prepare(scratch, _NOBODY if drop_to_nobody else None)
    env = {**os.environ, "HOME": str(scratch / "home")}
    python = sys.executable
    privileges: dict[str, object] = {}
    if drop_to_nobody:
        privileges = {"user": _NOBODY, "group": _NOBODY, "extra_groups": []}
        python = _python_for_nobody()
        # This test's imports, without the interpreter's own (maybe root-only) prefix.
        ours = [p for p in sys.path if p and not p.startswith(sys.base_prefix)]
        env["PYTHONPATH"] = os.pathsep.join(ours)
    done = subprocess.run(
        [python, str(_PROBE), str(scratch)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=scratch,
        env=env,
        **privileges,  # type: ignore[arg-type]
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    if "error" in report:
        shutil.rmtree(scratch, ignore_errors=True)
        pytest.skip(f"the sandbox cannot run {identity} on this host: {report['error']}")
    assert (report["uid"] == 0) == (identity == "root"), report["uid"]
    return Battery(identity, scratch, report["results"])


@pytest.fixture(scope="module", params=["root", "unprivileged"])
def battery(request: pytest.FixtureRequest) -> Iterator[Battery]:
    result = _run_probe(str(request.param))
    yield result
    shutil.rmtree(result.scratch, ignore_errors=True)


def test_no_capability_is_left_inside(battery: Battery) -> None:
    lines = battery.out("capabilities").strip().splitlines()
    assert len(lines) == 5, lines
    assert all(line.split()[1] == "0000000000000000" for line in lines), lines


def test_a_secret_mask_cannot_be_unmounted(battery: Battery) -> None:
    out = battery.out("unmount_mask")
    assert SECRET not in out and "end" in out


def test_root_cannot_be_remounted_writable(battery: Battery) -> None:
    out = battery.out("remount_root")
    assert "REMOUNTED" not in out and "end" in out
    assert not list(Path("/").glob(f"{REMOUNT_MARK}*"))


def test_nothing_can_be_mounted(battery: Battery) -> None:
    out = battery.out("mount_tmpfs")
    assert "permission denied" in out.lower() or "must be superuser" in out


def test_sysctls_cannot_be_written(battery: Battery) -> None:
    out = battery.out("sysctl")
    assert "WROTE" not in out and "end" in out


def test_no_nested_user_namespace_can_be_created(battery: Battery) -> None:
    assert "NESTED" not in battery.out("nested_userns")
    rc_line = battery.out("nested_userns_python").split()
    assert rc_line[:2] == ["rc", "-1"], rc_line


def test_files_outside_the_working_dir_stay_unwritable(battery: Battery) -> None:
    assert "end" in battery.out("write_outside")
    assert not (battery.scratch / "outside" / "escaped").exists()


def test_the_working_dir_stays_writable(battery: Battery) -> None:
    assert (battery.scratch / "work" / "made.txt").read_text() == "data\n"
    assert (battery.scratch / "work" / "own.txt").read_text() == "new\n"


def test_file_ownership_cannot_be_changed(battery: Battery) -> None:
    assert "CHOWNED" not in battery.out("chown")
    assert (battery.scratch / "work" / "own.txt").stat().st_uid != 12345


def test_as_root_other_users_files_are_writable_only_when_their_mode_allows(
    battery: Battery,
) -> None:
    if battery.identity != "root":
        pytest.skip("only root can set up files owned by another user")
    work = battery.scratch / "work"
    assert "WROTE" not in battery.out("write_others_private_file")
    assert (work / "other-0644.txt").read_text() == "theirs\n"
    assert "WROTE" in battery.out("write_others_shared_file")
    assert (work / "other-0666.txt").read_text() == "mine\n"


def test_the_host_password_hashes_stay_hidden(battery: Battery) -> None:
    out = battery.out("read_shadow")
    assert "root:" not in out and "end" in out
