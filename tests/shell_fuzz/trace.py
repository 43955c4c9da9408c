"""Read ``strace -f -ff -y --pidns-translation`` output into the effects of a command.

Every process of the command gets its own trace file. We rebuild the process tree from
the clone/fork results (host pids, thanks to ``--pidns-translation``), follow each
process's program image and working directory, and keep three kinds of effect: a program
executed, a file opened for reading, and a file system change (an open for writing, a
rename, unlink, mkdir, link, chmod…). Failed changes count too: the attempt is the finding.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

# The system calls the oracle traces (strace -e trace=...).
TRACED_SYSCALLS = (
    "execve,execveat,open,openat,openat2,creat,rename,renameat,renameat2,unlink,unlinkat,"
    "mkdir,mkdirat,rmdir,link,linkat,symlink,symlinkat,truncate,chmod,fchmodat,chown,"
    "lchown,fchownat,utimensat,mknod,mknodat,chdir,fchdir,clone,clone3,fork,vfork,"
    "read,pread64,readv,preadv,preadv2,mmap,sendfile,copy_file_range,splice"
)

# "read" is an open for reading; "data" is a call that took bytes out of an open file.
EffectKind = Literal["exec", "read", "data", "write"]


@dataclass(frozen=True, slots=True)
class Effect:
    kind: EffectKind
    path: str  # absolute when it could be resolved
    image: str  # basename of the program the process ran when it made the call
    ok: bool
    lineage: tuple[str, ...]  # the programs that led to this one, the shell first
    line: str  # the strace line, for the report
    requested: str = ""  # the path as the call named it, when an open resolved it


# Which arguments of a mutating call are paths, as (dirfd index or None, path index).
_MUTATIONS: dict[str, tuple[tuple[int | None, int], ...]] = {
    "creat": ((None, 0),),
    "rename": ((None, 0), (None, 1)),
    "renameat": ((0, 1), (2, 3)),
    "renameat2": ((0, 1), (2, 3)),
    "unlink": ((None, 0),),
    "unlinkat": ((0, 1),),
    "mkdir": ((None, 0),),
    "mkdirat": ((0, 1),),
    "rmdir": ((None, 0),),
    "link": ((None, 1),),
    "linkat": ((2, 3),),
    "symlink": ((None, 1),),
    "symlinkat": ((1, 2),),
    "truncate": ((None, 0),),
    "chmod": ((None, 0),),
    "fchmodat": ((0, 1),),
    "chown": ((None, 0),),
    "lchown": ((None, 0),),
    "fchownat": ((0, 1),),
    "utimensat": ((0, 1),),
    "mknod": ((None, 0),),
    "mknodat": ((0, 1),),
}
_WRITE_FLAGS = frozenset({"O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND"})
_LINE = re.compile(r"^(?P<name>[a-z0-9_]+)\((?P<args>.*)\)\s+=\s+(?P<ret>.*)$")
_CHILD = re.compile(r"^(\d+)(?: /\* (\d+) in strace's PID NS \*/)?")
_FD_PATH = re.compile(r"^-?\d+<(.*)>")
_FORKS = frozenset({"clone", "clone3", "fork", "vfork"})
# Calls that take data out of a file, and which argument is the file's descriptor.
_DATA_FD = {
    "read": 0,
    "pread64": 0,
    "readv": 0,
    "preadv": 0,
    "preadv2": 0,
    "mmap": 4,
    "sendfile": 1,
    "copy_file_range": 0,
    "splice": 0,
}


@dataclass(frozen=True, slots=True)
class _Call:
    name: str
    args: list[str]
    ret: str
    line: str


def read_effects(trace_dir: Path, prefix: str, shell: str, cwd: str) -> list[Effect]:
    """The effects of the process tree rooted at the first exec of ``shell`` in ``cwd``."""
    calls = {
        int(path.name.rsplit(".", 1)[1]): list(_parse_file(path))
        for path in trace_dir.glob(f"{prefix}.*")
    }
    root = _find_root(calls, shell)
    if root is None:
        return []
    effects: list[Effect] = []
    # (pid, lineage, cwd, started): the root's calls before it execs the shell are bwrap's.
    pending: list[tuple[int, tuple[str, ...], str, bool]] = [(root, ("bwrap",), cwd, False)]
    seen: set[int] = set()
    while pending:
        pid, lineage, cwd, started = pending.pop()
        if pid in seen:
            continue
        seen.add(pid)
        for call in calls.get(pid, []):
            if call.name in _FORKS:
                child = _child_pid(call.ret)
                if child is not None:
                    pending.append((child, lineage, cwd, started))
                continue
            if call.name in ("execve", "execveat"):
                target = _resolve(_unquote(call.args[0 if call.name == "execve" else 1]), cwd)
                ok = call.ret.startswith("0")
                if ok and not started and os.path.basename(target) == os.path.basename(shell):
                    started, lineage = True, (os.path.basename(target),)
                    continue
                if started and ok:
                    effects.append(Effect("exec", target, lineage[-1], ok, lineage, call.line))
                    lineage = (*lineage, os.path.basename(target))
                continue
            if call.name in ("chdir", "fchdir") and call.ret.startswith("0"):
                cwd = _chdir_target(call, cwd)
                continue
            if started:
                effects.extend(_file_effects(call, lineage, cwd))
    return effects


def _find_root(calls: dict[int, list[_Call]], shell: str) -> int | None:
    """bwrap clones its namespace init; that init clones the process that runs the shell."""
    for calls_of_pid in calls.values():
        if not calls_of_pid or "bwrap" not in calls_of_pid[0].args[0]:
            continue
        for call in calls_of_pid:
            if call.name in _FORKS and (init := _child_pid(call.ret)) in calls:
                for inner in calls[init]:
                    if inner.name in _FORKS and (runner := _child_pid(inner.ret)) is not None:
                        return runner
    # Without bwrap (tests of the oracle itself): the first process to exec the shell.
    for pid in sorted(calls):
        if any(c.name == "execve" and _unquote(c.args[0]) == shell for c in calls[pid]):
            return pid
    return None


def _child_pid(ret: str) -> int | None:
    match = _CHILD.match(ret)
    if match is None:
        return None
    return int(match.group(2) or match.group(1))


def _chdir_target(call: _Call, cwd: str) -> str:
    if call.name == "fchdir":
        decoded = _FD_PATH.match(call.args[0])
        return decoded.group(1) if decoded else cwd
    return _resolve(_unquote(call.args[0]), cwd)


def _file_effects(call: _Call, lineage: tuple[str, ...], cwd: str) -> Iterator[Effect]:
    ok, image = not call.ret.startswith("-1"), lineage[-1]
    if call.name in _DATA_FD:
        index = _DATA_FD[call.name]
        source = _FD_PATH.match(call.args[index]) if index < len(call.args) else None
        if source and source.group(1).startswith("/") and ok and not call.ret.startswith("0"):
            yield Effect("data", source.group(1), image, ok, lineage, call.line)
        return
    if call.name in ("open", "openat", "openat2"):
        path_index = 0 if call.name == "open" else 1
        flags = set(re.findall(r"\bO_[A-Z]+\b", ",".join(call.args[path_index + 1 :])))
        requested = _at_path(call.args, None if call.name == "open" else 0, path_index, cwd)
        opened = _FD_PATH.match(call.ret)
        path = opened.group(1) if opened else requested
        if flags & _WRITE_FLAGS:
            yield Effect("write", path, image, ok, lineage, call.line, requested)
        elif ok and not flags & {"O_DIRECTORY", "O_PATH"}:
            yield Effect("read", path, image, ok, lineage, call.line, requested)
        return
    if call.name in ("mkdir", "mkdirat") and "EEXIST" in call.ret:
        return  # asking for a directory that is already there changes nothing
    for dirfd_index, path_index in _MUTATIONS.get(call.name, ()):
        if path_index < len(call.args) and call.args[path_index] != "NULL":
            yield Effect(
                "write",
                _at_path(call.args, dirfd_index, path_index, cwd),
                image,
                ok,
                lineage,
                call.line,
            )
        elif call.name == "utimensat" and (fd := _FD_PATH.match(call.args[0])):
            yield Effect("write", fd.group(1), image, ok, lineage, call.line)


def _at_path(args: list[str], dirfd_index: int | None, path_index: int, cwd: str) -> str:
    path = _unquote(args[path_index])
    if path.startswith("/"):
        return os.path.normpath(path)
    base = cwd
    if dirfd_index is not None:
        decoded = _FD_PATH.match(args[dirfd_index]) or re.match(
            r"AT_FDCWD<(.*)>", args[dirfd_index]
        )
        if decoded:
            base = decoded.group(1)
    return _resolve(path, base)


def _resolve(path: str, cwd: str) -> str:
    return os.path.normpath(os.path.join(cwd, path))


def _parse_file(path: Path) -> Iterator[_Call]:
    with path.open(encoding="utf-8", errors="replace") as lines:
        for raw in lines:
            line = raw.rstrip("\n")
            match = _LINE.match(line)
            if match is None:
                continue  # signals, exits, "+++ killed" lines
            yield _Call(match["name"], _split_args(match["args"]), match["ret"], line)


def _split_args(text: str) -> list[str]:
    """Split strace's argument list at top-level commas (quotes and brackets respected)."""
    args: list[str] = []
    depth, start, index, quoted = 0, 0, 0, False
    while index < len(text):
        ch = text[index]
        if quoted:
            if ch == "\\":
                index += 1
            elif ch == '"':
                quoted = False
        elif ch == '"':
            quoted = True
        elif ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        elif ch == "," and depth == 0:
            args.append(text[start:index].strip())
            start = index + 1
        index += 1
    args.append(text[start:].strip())
    return args


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "v": "\v", "f": "\f", '"': '"', "\\": "\\"}


def _unquote(token: str) -> str:
    """A C string as strace prints it ("a\\x62c"...) back to text."""
    token = token.strip()
    if token.endswith("..."):
        token = token[:-3]
    if not (token.startswith('"') and token.endswith('"')):
        return token
    body, out, index = token[1:-1], [], 0
    while index < len(body):
        ch = body[index]
        if ch != "\\" or index + 1 >= len(body):
            out.append(ch)
            index += 1
            continue
        nxt = body[index + 1]
        if nxt == "x":
            out.append(chr(int(body[index + 2 : index + 4], 16)))
            index += 4
        elif nxt.isdigit():
            digits = re.match(r"[0-7]{1,3}", body[index + 1 :])
            assert digits is not None
            out.append(chr(int(digits.group(0), 8)))
            index += 1 + len(digits.group(0))
        else:
            out.append(_ESCAPES.get(nxt, nxt))
            index += 2
    return "".join(out)
