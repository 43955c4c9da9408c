"""Runs *inside* the sandbox: bridge 127.0.0.1:<port> to the proxy's Unix socket, then
exec the real command.

Usage: python relay.py <unix-socket> <port> -- <command> [args...]

The listening socket is bound before the fork, so the command never races the relay.
The relay child dies with the sandbox's PID namespace when the command exits.
This file is run as a script with ``python -I``; it imports only the standard library.
"""

from __future__ import annotations

import os
import socket
import sys
import threading


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


def main(argv: list[str]) -> None:
    socket_path, port, separator, *command = argv
    if separator != "--" or not command:
        sys.exit("usage: relay.py <unix-socket> <port> -- <command> [args...]")
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", int(port)))
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
    os.execvp(command[0], command)


if __name__ == "__main__":
    main(sys.argv[1:])
