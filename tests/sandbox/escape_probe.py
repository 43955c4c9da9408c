"""Run escape attempts inside the sandbox as whoever runs this script; print JSON results.

Used by test_privileges.py, which runs it both as root and as an unprivileged user
(``python escape_probe.py <scratch dir>``). Each attempt is a bash snippet; its combined
output and exit code are reported under its name, or ``{"error": ...}`` when the sandbox
refuses to start (a kernel without unprivileged user namespaces, say).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from loopwright.errors import ConfigurationError
from loopwright.sandbox import BwrapSandbox, SandboxSettings

SECRET = "PRIVATE-KEY-MATERIAL"
REMOUNT_MARK = "loopwright-remount-probe-"


def attempts(scratch: Path) -> dict[str, str]:
    home, work, outside = scratch / "home", scratch / "work", scratch / "outside"
    mask = home / ".ssh"
    return {
        "capabilities": "grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb):' /proc/self/status",
        "unmount_mask": f"umount {mask}; umount -l {mask}; cat {mask}/id_ed25519; echo end",
        "remount_root": (
            f"mount -o remount,rw / && echo REMOUNTED; echo x > /{REMOUNT_MARK}{os.getpid()}; "
            "echo end"
        ),
        "mount_tmpfs": f"mount -t tmpfs none {work}; echo end",
        # Writes the value back that is already there: harmless should it ever succeed.
        "sysctl": (
            "v=$(cat /proc/sys/kernel/printk_ratelimit); "
            'echo "$v" > /proc/sys/kernel/printk_ratelimit && echo WROTE; echo end'
        ),
        "nested_userns": "unshare --user --map-root-user id && echo NESTED; echo end",
        "nested_userns_python": (
            "python3 -c 'import ctypes; libc = ctypes.CDLL(None, use_errno=True); "
            'print("rc", libc.unshare(0x10000000), ctypes.get_errno())\''
        ),
        "write_outside": f"echo x > {outside}/escaped; echo end",
        "write_working_dir": f"echo data > {work}/made.txt && cat {work}/made.txt",
        "overwrite_own_file": f"echo new > {work}/own.txt && cat {work}/own.txt",
        "read_shadow": "cat /etc/shadow | head -c 200; echo end",
        "chown": f"chown 12345 {work}/own.txt && echo CHOWNED; echo end",
        # Set up only when the suite runs as root: files of another user (uid 4242).
        "write_others_private_file": f"echo mine > {work}/other-0644.txt && echo WROTE; echo end",
        "write_others_shared_file": f"echo mine > {work}/other-0666.txt && echo WROTE; echo end",
    }


def main() -> None:
    scratch = Path(sys.argv[1])
    work = scratch / "work"
    try:
        box = BwrapSandbox(
            SandboxSettings(),
            [work],
            home=scratch / "home",
            quarantine_dir=scratch / "quarantine",
        )
    except ConfigurationError as exc:
        print(json.dumps({"error": str(exc)}))
        return
    results: dict[str, dict[str, object]] = {}
    try:
        for name, script in attempts(scratch).items():
            argv, env = box.wrap(["bash", "-c", script], dict(os.environ), str(work))
            done = subprocess.run(
                argv, env=env, cwd=work, capture_output=True, text=True, timeout=60
            )
            results[name] = {"rc": done.returncode, "out": done.stdout + done.stderr}
    finally:
        box.close()
    print(json.dumps({"uid": os.geteuid(), "results": results}))


if __name__ == "__main__":
    main()
