"""The shell analyser: what a Bash command runs, reads and writes, judged from its parse.

It fails closed: whatever it cannot see from the text makes the command unsafe, so no
allow rule approves it. ``analysis`` splits a command into simple commands; the other
modules hold what it knows about words, wrappers, options, read-only programs and writes.
"""
