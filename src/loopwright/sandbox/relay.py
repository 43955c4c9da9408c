"""Runs *inside* the sandbox before the command: optionally bridge 127.0.0.1:<port> to the
proxy's Unix socket, then forbid new Unix-domain sockets and exec the real command.

Usage: python relay.py <unix-socket|-> <port|-> <allow-unix:0|1> -- <command> [args...]

Unix sockets are blocked with a seccomp filter because the read-only root still shows
every socket file of the host (the Docker daemon, the D-Bus session bus, tmux, an SSH
agent): connecting to one would run commands outside the sandbox. The filter is applied
after the relay has forked, so only the command and its children are bound by it.

The listening socket is bound before the fork, so the command never races the relay.
The relay child dies with the sandbox's PID namespace when the command exits.
This file is run as a script with ``python -I``; it imports only the standard library.
"""

from __future__ import annotations

import ctypes
import os
import platform
import socket
import struct
import sys
import threading

# seccomp/BPF constants (linux/seccomp.h, linux/filter.h, linux/audit.h).
_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2
_RET_ALLOW = 0x7FFF0000
_RET_EPERM = 0x00050000 | 1
_LD_ABS_W = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_RET_K = 0x06
_AF_UNIX = 1
# machine → (audit arch, socket syscall number, io_uring_setup syscall number)
_ARCHES = {
    "x86_64": (0xC000003E, 41, 425),
    "aarch64": (0xC00000B7, 198, 425),
}


def unix_socket_filter(machine: str) -> bytes:
    """A BPF program: socket(AF_UNIX, …) and io_uring_setup fail with EPERM, and so does
    every syscall made through another ABI (x32, 32-bit compat: socketcall)."""
    arch, nr_socket, nr_io_uring = _ARCHES[machine]

    def op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
        return struct.pack("HBBI", code, jt, jf, k)

    program = [
        op(_LD_ABS_W, 4),  # 0: arch
        op(_JEQ_K, arch, 0, 7),  # 1: foreign ABI → deny (9)
        op(_LD_ABS_W, 0),  # 2: syscall number
        op(_JGE_K, 0x40000000, 5, 0),  # 3: x32 → deny (9)
        op(_JEQ_K, nr_io_uring, 4, 0),  # 4: io_uring can open sockets too → deny (9)
        op(_JEQ_K, nr_socket, 0, 2),  # 5: not socket() → allow (8)
        op(_LD_ABS_W, 16),  # 6: args[0], the address family (low 32 bits)
        op(_JEQ_K, _AF_UNIX, 1, 0),  # 7: AF_UNIX → deny (9); else allow (8)
        op(_RET_K, _RET_ALLOW),  # 8
        op(_RET_K, _RET_EPERM),  # 9
    ]
    return b"".join(program)


def block_unix_sockets() -> None:
    machine = platform.machine()
    if machine not in _ARCHES:
        sys.exit(
            f"loopwright sandbox: cannot block Unix sockets on {machine}; set "
            "SandboxSettings(allow_unix_sockets=True) to run without that protection"
        )
    program = unix_socket_filter(machine)
    count = len(program) // 8
    buffer = ctypes.create_string_buffer(program, len(program))

    class _Prog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    prog = _Prog(count, ctypes.cast(buffer, ctypes.c_void_p))
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl.argtypes = [
        ctypes.c_int,
        ctypes.c_ulong,
        ctypes.c_void_p,
        ctypes.c_ulong,
        ctypes.c_ulong,
    ]
    if (
        libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, None, 0, 0) != 0
        or libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0
    ):
        error = os.strerror(ctypes.get_errno())
        sys.exit(f"loopwright sandbox: cannot install the seccomp filter ({error})")


def _pump(source: socket.socket, sink: socket.socket) -> None:
    try:
        while chunk := source.recv(65536):
            sink.sendall(chunk)
    except OSError:
        pass
    finally:
        for sock in (source, sink):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def _serve(listener: socket.socket, socket_path: str) -> None:
    while True:
        client, _ = listener.accept()
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            upstream.connect(socket_path)
        except OSError:
            client.close()
            continue
        threading.Thread(target=_pump, args=(client, upstream), daemon=True).start()
        threading.Thread(target=_pump, args=(upstream, client), daemon=True).start()


def _start_relay(socket_path: str, port: int) -> None:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(64)
    if os.fork() == 0:
        os.setsid()
        # Let go of the command's stdio, or a caller reading to EOF would wait on us.
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        _serve(listener, socket_path)
        os._exit(0)
    listener.close()


def main(argv: list[str]) -> None:
    socket_path, port, allow_unix, separator, *command = argv
    if separator != "--" or not command:
        sys.exit("usage: relay.py <unix-socket|-> <port|-> <allow-unix:0|1> -- <command> ...")
    if socket_path != "-":
        _start_relay(socket_path, int(port))
    if allow_unix != "1":
        block_unix_sockets()
    os.execvp(command[0], command)


if __name__ == "__main__":
    main(sys.argv[1:])
