"""Whether this host can run the sandbox as specified — checked once, failing closed.

The sandbox needs more than a bwrap binary: it runs every command in a user namespace of
its own with no capabilities (``--unshare-user --cap-drop ALL``) and forbids nested user
namespaces (``--disable-userns``, bubblewrap 0.8.0+). Without the user namespace, a
command started by root keeps root's capabilities and can unmount the secret masks,
remount ``/`` read-write or write host sysctls. So where the kernel (or a container's
seccomp profile, or AppArmor) refuses a user namespace, or bwrap is too old to forbid
nested ones, the sandbox does not start: there is no weaker fallback.

The check runs a trivial command under exactly those flags, once per bwrap binary and
user id, and remembers the answer.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from loopwright.errors import ConfigurationError

# The flags every sandboxed command gets; the probe uses the same ones.
ISOLATION_FLAGS: tuple[str, ...] = (
    "--unshare-user",
    "--disable-userns",
    "--cap-drop",
    "ALL",
    "--die-with-parent",
    "--new-session",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-net",
)
_PROBE_TIMEOUT_S = 20.0
_OTHER_CHOICES = (
    "or set SandboxSettings(allow_unsandboxed=True) to run commands unsandboxed, "
    "or turn the sandbox off."
)
_USERNS_HELP = (
    "Allow user namespaces: sysctl user.max_user_namespaces=15000 (0 turns them off); "
    "on Debian-patched kernels also kernel.unprivileged_userns_clone=1; "
    "on Ubuntu 23.10+ kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor profile "
    "for bwrap; in Docker or Podman a seccomp profile that allows unshare/clone with "
    "CLONE_NEWUSER (for example --security-opt seccomp=unconfined)"
)
# (path of bwrap, euid) → None when the sandbox works, else the error message.
_probe_results: dict[tuple[str, int], str | None] = {}


def find_bwrap() -> str | None:
    return shutil.which("bwrap")


def check_available(bwrap: str | None = None) -> str:
    """Path of a bwrap that can run the sandbox here, or a ConfigurationError saying why
    not and what to do."""
    found = bwrap or find_bwrap()
    if found is None or not os.access(found, os.X_OK):
        raise ConfigurationError(
            "the Bash sandbox needs bubblewrap (bwrap), which is not installed. Install it "
            "(Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap), "
            + _OTHER_CHOICES
        )
    if not sys.platform.startswith("linux"):
        raise ConfigurationError("the bubblewrap sandbox runs on Linux only; " + _OTHER_CHOICES)
    key = (os.path.realpath(found), os.geteuid())
    if key not in _probe_results:
        _probe_results[key] = _probe(found)
    problem = _probe_results[key]
    if problem is not None:
        raise ConfigurationError(problem)
    return found


def _probe(bwrap: str) -> str | None:
    """Run ``true`` under the sandbox's isolation flags; the failure explained, or None."""
    true = shutil.which("true") or "/bin/true"
    argv = [bwrap, *ISOLATION_FLAGS, "--ro-bind", "/", "/", "--proc", "/proc", "--", true]
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=_PROBE_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"the Bash sandbox could not start bubblewrap ({bwrap}): {exc}; " + _OTHER_CHOICES
    if done.returncode == 0:
        return None
    said = " ".join(done.stderr.split()) or f"exit code {done.returncode}"
    return explain_probe_failure(bwrap, said)


def explain_probe_failure(bwrap: str, said: str) -> str:
    """What went wrong, from bwrap's own words, and what to do about it."""
    if "disable-userns" in said:
        return (
            f"the Bash sandbox needs bubblewrap 0.8.0 or newer ({bwrap} said: {said}). "
            "Older versions cannot stop a command from creating a nested user namespace. "
            "Upgrade bubblewrap (Debian 12+, Ubuntu 24.04+ and Fedora ship 0.8+), " + _OTHER_CHOICES
        )
    return (
        f"the Bash sandbox needs a user namespace, and this system refused one ({bwrap} "
        f"said: {said}). Without it, commands would keep their capabilities (as root: "
        f"unmount the secret masks, remount / read-write). {_USERNS_HELP}; " + _OTHER_CHOICES
    )
