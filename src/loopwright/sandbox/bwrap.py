"""Run Bash commands inside bubblewrap: read-only root, writable working dirs and temp.

Privilege design: every command runs in a user namespace of its own with no capabilities
at all (``--unshare-user --cap-drop ALL``) and cannot create nested user namespaces
(``--disable-userns``). That holds when loopwright itself runs as root (containers, CI):
the secret masks cannot be unmounted, ``/`` cannot be remounted, no sysctl can be written.
The command keeps the caller's uid, so as root it can still write root-owned files in
the working dirs, and read every root-owned file that is not masked (the defaults mask
/etc/shadow and /etc/gshadow; add denyRead for others). Files owned by another user are
writable only if their mode allows it (no CAP_DAC_OVERRIDE); the session says so up
front. Where the host refuses a user namespace the sandbox does not start
(host_support.py): there is no weaker mode.

Network design (the trade-off, stated plainly): the sandbox always gets its own network
namespace (``--unshare-net``), so it cannot reach the host — not even the host's
127.0.0.1. With ``allowed_domains`` set, a proxy on the host listens on a Unix socket
that is bound into the sandbox, and relay.py (started inside, before the command) serves
127.0.0.1:<port> there and forwards to it; HTTP(S)_PROXY point at that port. Programs
that ignore the proxy variables get no network at all, which is the safe failure. The
proxy checks host names only (no TLS inspection), so an allowed domain that fronts
arbitrary content (a CDN, a paste site) is an exfiltration channel; allow narrowly.
"""

from __future__ import annotations

import os
import shutil
import sys
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import TYPE_CHECKING

from loopwright.errors import ConfigurationError
from loopwright.permissions.paths.credential_files import CREDENTIAL_FILES
from loopwright.permissions.paths.protected import protected_bind_args
from loopwright.sandbox.host_support import ISOLATION_FLAGS, check_available, find_bwrap
from loopwright.stores.base import loopwright_home

# The masks, the proxy and the quarantine load with the first sandbox (start-up: settings
# name SandboxSettings, and most sessions have no sandbox).
if TYPE_CHECKING:
    from loopwright.sandbox.deny_masks import FloatingMasks
    from loopwright.sandbox.proxy import DomainProxy
    from loopwright.sandbox.quarantine import ProtectedPathsWatch

__all__ = [
    "DEFAULT_ENV_ALLOWLIST",
    "DEFAULT_MASKED_PATHS",
    "BwrapSandbox",
    "SandboxSettings",
    "check_available",
    "find_bwrap",
]

DEFAULT_MASKED_PATHS: tuple[str, ...] = (
    *CREDENTIAL_FILES,
    # Run as root, a command is still uid 0 for file modes: root-only files stay readable
    # unless masked.
    "/etc/shadow",
    "/etc/gshadow",
)
# The environment a sandboxed command gets is an allow-list: these names (fnmatch
# patterns) and those in SandboxSettings.env_allowlist. Everything else — API keys, CI
# job tokens, MYSQL_PWD, REDIS_URL with a password, proxy URLs with credentials — stays
# out, whatever its name. Values are passed as they are.
DEFAULT_ENV_ALLOWLIST: tuple[str, ...] = (
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "PWD", "OLDPWD", "SHLVL", "HOSTNAME",
    "TERM", "COLORTERM", "COLUMNS", "LINES", "NO_COLOR", "FORCE_COLOR", "CLICOLOR",
    "LANG", "LANGUAGE", "LC_*", "TZ",
    "EDITOR", "VISUAL", "PAGER", "GIT_PAGER", "GIT_TERMINAL_PROMPT", "LESS",
    "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME",
    "VIRTUAL_ENV", "CONDA_PREFIX", "CONDA_DEFAULT_ENV", "PYTHONPATH", "PYTHONHOME",
    "PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED", "PYTHONIOENCODING", "PYTHONUTF8",
    "JAVA_HOME", "GOPATH", "GOROOT", "GOFLAGS", "CARGO_HOME", "RUSTUP_HOME",
    "NVM_DIR", "NODE_PATH", "MANPATH", "PKG_CONFIG_PATH", "LD_LIBRARY_PATH",
    "CC", "CXX", "CFLAGS", "CXXFLAGS", "LDFLAGS", "MAKEFLAGS",
    "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "NODE_EXTRA_CA_CERTS",
    "CI", "DEBIAN_FRONTEND",
)  # fmt: skip
_PROXY_PORT = 3128
# Parts of the sandbox's /proc made read-only on top: /proc/sys above all. The command runs
# as the caller's uid; for root that is still uid 0 on the host, which the kernel lets
# write most sysctls by file mode alone, capabilities or not.
_PROC_READ_ONLY = ("sys", "sysrq-trigger", "irq", "bus", "fs", "mtrr", "acpi", "scsi", "driver")
_RELAY = Path(__file__).with_name("relay.py")
# The Bash tool records the shell's final cwd in this file; its directory (the session's
# own output dir) must stay writable or the persistent cwd would be lost in the sandbox.
_CWD_FILE_ENV = "LOOPWRIGHT_CWD_FILE"


@dataclass(frozen=True, slots=True)
class SandboxSettings:
    """``Options(sandbox=SandboxSettings(enabled=True, ...))`` runs Bash in bubblewrap."""

    enabled: bool = True
    # Run unsandboxed (with a warning) where bubblewrap is missing, instead of failing.
    allow_unsandboxed: bool = False
    allowed_domains: tuple[str, ...] = ()
    writable_paths: tuple[str, ...] = ()
    masked_paths: tuple[str, ...] = DEFAULT_MASKED_PATHS
    # More variables (names or fnmatch patterns) passed into the sandbox, on top of
    # DEFAULT_ENV_ALLOWLIST; every other variable of the host is left out.
    env_allowlist: tuple[str, ...] = ()
    # Let commands open Unix sockets. Off by default: the host's socket files (Docker,
    # D-Bus, tmux, ssh-agent) stay visible in the read-only root and lead straight out.
    allow_unix_sockets: bool = False


class BwrapSandbox:
    """The ``command_wrapper`` service: ``wrap(argv, env, cwd)`` → sandboxed argv, env."""

    def __init__(
        self,
        settings: SandboxSettings,
        working_dirs: Sequence[str | Path],
        *,
        home: str | Path | None = None,
        bwrap: str | None = None,
        quarantine_dir: str | Path | None = None,
        floating_masks: FloatingMasks | None = None,
    ) -> None:
        self.settings = settings
        # Read deny patterns that float (``**/.env``): matched anew before each command.
        self.floating_masks = floating_masks
        self.working_dirs = tuple(Path(d).resolve() for d in working_dirs)
        self.home = Path(home) if home is not None else Path.home()
        self.available = True
        self.unavailable_reason = ""
        try:
            self.bwrap = check_available(bwrap)
        except ConfigurationError as exc:
            if not settings.allow_unsandboxed:
                raise
            self.available, self.bwrap, self.unavailable_reason = False, "", str(exc)
        # Where protected paths that a command created are moved (quarantine.py).
        self.quarantine_dir = (
            Path(quarantine_dir) if quarantine_dir is not None else loopwright_home() / "quarantine"
        )
        self.notices = tuple(_ownership_notices(self.working_dirs)) if self.available else ()
        import tempfile  # start-up: see the imports

        self._runtime = Path(tempfile.mkdtemp(prefix="loopwright-sandbox-"))
        self._proxy: DomainProxy | None = None
        # Not atexit.register(self.close): that would keep every sandbox of a long-lived
        # process alive. The finalizer removes the runtime dir at collection or exit.
        self._cleanup = weakref.finalize(self, shutil.rmtree, str(self._runtime), True)

    @property
    def scratch_dir(self) -> Path:
        scratch = self._runtime / "tmp"
        scratch.mkdir(exist_ok=True)
        return scratch

    @property
    def socket_path(self) -> Path:
        return self._runtime / "proxy.sock"

    def wrap(
        self, argv: list[str], env: dict[str, str], cwd: str, *, configured: Sequence[str] = ()
    ) -> tuple[list[str], dict[str, str]]:
        """``configured``: names the session's own config set (Options.env, settings
        ``env``) — chosen for commands, so they pass the allow-list."""
        clean_env = self.filter_env(env)
        clean_env.update({name: env[name] for name in configured if name in env})
        if not self.available:
            return list(argv), clean_env
        relay_socket, relay_port = "-", "-"
        if self.settings.allowed_domains:
            self._ensure_proxy()
            proxy_url = f"http://127.0.0.1:{_PROXY_PORT}"
            for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
                clean_env[name] = clean_env[name.lower()] = proxy_url
            clean_env.pop("NO_PROXY", None)
            clean_env.pop("no_proxy", None)
            relay_socket, relay_port = str(self.socket_path), str(_PROXY_PORT)
        command = list(argv)
        allow_unix = "1" if self.settings.allow_unix_sockets else "0"
        if relay_socket != "-" or allow_unix == "0":
            # relay.py starts the proxy relay and/or seals off Unix sockets, then execs.
            launcher = [sys.executable, "-I", "-S", str(_RELAY), relay_socket, relay_port]
            command = [*launcher, allow_unix, "--", *command]
        # /tmp stays visible read-only (a venv or checkout may live there); scratch space
        # is a private directory of this sandbox.
        clean_env["TMPDIR"] = str(self.scratch_dir)
        extra = [Path(env[_CWD_FILE_ENV]).parent] if env.get(_CWD_FILE_ENV) else []
        return [*self.bwrap_args(cwd, extra), "--", *command], clean_env

    def watch_protected(self) -> ProtectedPathsWatch | None:
        """A snapshot to take before a command; its ``settle()`` after the command moves
        protected paths the command created to the quarantine dir."""
        if not self.available:
            return None
        from loopwright.sandbox.quarantine import ProtectedPathsWatch  # start-up

        return ProtectedPathsWatch(self._writable(), self.quarantine_dir)

    def bwrap_args(self, cwd: str, extra_writable: Sequence[Path] = ()) -> list[str]:
        args = [self.bwrap, *ISOLATION_FLAGS, "--ro-bind", "/", "/", "--dev", "/dev"]
        args += ["--proc", "/proc"]
        for name in _PROC_READ_ONLY:
            args += ["--ro-bind-try", f"/proc/{name}", f"/proc/{name}"]
        args += ["--bind", str(self.scratch_dir), str(self.scratch_dir)]
        writable = self._writable()
        for path in [*writable, *(p for p in extra_writable if p.is_dir())]:
            args += ["--bind", str(path), str(path)]
        for directory in writable:
            # Writable tree, read-only config: a command must not plant a git hook or
            # widen the agent's own settings for the next (unsandboxed) run.
            args += protected_bind_args(directory)
        if self.settings.allowed_domains:
            args += ["--bind", str(self._runtime), str(self._runtime)]
        floating = self.floating_masks.matches()[0] if self.floating_masks else []
        for masked in (*self.settings.masked_paths, *floating):
            # At the real location: bwrap cannot mount onto a symlink (~/.ssh → /data/ssh).
            target = Path(os.path.realpath(self._expand(masked)))  # no raise on a loop
            if target.is_dir():
                args += ["--tmpfs", str(target)]
            elif target.exists():
                args += ["--ro-bind", "/dev/null", str(target)]
        return [*args, "--chdir", cwd]

    def filter_env(self, env: dict[str, str]) -> dict[str, str]:
        """Only the allow-listed variables; the rest of the host's environment stays out."""
        patterns = (*DEFAULT_ENV_ALLOWLIST, *self.settings.env_allowlist)
        return {k: v for k, v in env.items() if any(fnmatchcase(k, p) for p in patterns)}

    def close(self) -> None:
        if self._proxy is not None:
            self._proxy.close()
            self._proxy = None
        self._cleanup()

    async def aclose(self) -> None:
        self.close()

    def _writable(self) -> list[Path]:
        paths = [*self.working_dirs, *(self._expand(p) for p in self.settings.writable_paths)]
        return [p for p in dict.fromkeys(paths) if p.exists()]

    def _expand(self, path: str) -> Path:
        if path == "~" or path.startswith("~/"):
            return self.home / path[2:]
        return Path(path)

    def _ensure_proxy(self) -> None:
        if self._proxy is None:
            from loopwright.sandbox.proxy import DomainProxy  # start-up: see the imports

            self._proxy = DomainProxy(self.settings.allowed_domains, self.socket_path)
            self._proxy.start()


def _ownership_notices(working_dirs: Sequence[Path]) -> list[str]:
    """As root without capabilities, another user's files are writable only where their
    mode allows: say so up front instead of letting commands fail one by one."""
    if os.geteuid() != 0:
        return []
    notices: list[str] = []
    for directory in working_dirs:
        try:
            owner = directory.stat().st_uid
        except OSError:
            continue
        if owner != 0:
            notices.append(
                f"the sandbox runs commands as root without capabilities, and {directory} "
                f"belongs to uid {owner}: files there are writable in the sandbox only where "
                f"their permissions allow root as 'other'. Run loopwright as uid {owner}, or "
                f"chown the project to root, if sandboxed commands must change it."
            )
    return notices
