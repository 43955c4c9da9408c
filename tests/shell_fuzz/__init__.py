"""A differential fuzzer for the shell analyser (issue #10, point 7).

``grammar`` writes hostile shell commands from a grammar of shell features; ``campaign``
asks the permission policy about each one under several rule profiles; every command some
profile approves runs once in ``oracle`` — bubblewrap around a throwaway copy of the
``fixture`` project, traced with ``strace -f`` — and the observed effects are judged
against what the approving profile promised (``budget``). An approval whose effects go
beyond that promise is a finding.
"""
