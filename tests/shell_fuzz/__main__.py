"""``python -m shell_fuzz --seconds 600 --seed 1`` (run from tests/): a bounded fuzz run."""

from __future__ import annotations

import argparse
import itertools
import sys
import tempfile
import time
from pathlib import Path

from shell_fuzz.campaign import Campaign
from shell_fuzz.grammar import Grammar
from shell_fuzz.oracle import Sandbox, find_tools
from shell_fuzz.seeds import seed_candidates


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="shell_fuzz", description=__doc__)
    parser.add_argument("--seconds", type=float, default=600.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-commands", type=int, default=None)
    args = parser.parse_args(argv)
    tools = find_tools()
    if isinstance(tools, str):
        print(f"shell fuzzer skipped: {tools}", file=sys.stderr)
        return 2
    bwrap, strace = tools
    if strace is None:
        print("strace is missing: only file changes and leaked markers are seen", file=sys.stderr)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="lw-fuzz-") as work:
        sandbox = Sandbox(bwrap, strace, Path(work) / "run")
        campaign = Campaign.create(sandbox, Path(work))
        grammar = Grammar(args.seed)
        stream = itertools.chain(
            seed_candidates(), (grammar.candidate(i) for i in itertools.count())
        )
        if args.max_commands is not None:
            stream = itertools.islice(stream, args.max_commands)
        report = campaign.run(stream, deadline=started + args.seconds)
    elapsed = time.monotonic() - started
    print(f"shell fuzzer: seed {args.seed}, {elapsed:.0f} s")
    print(report.summary())
    return 1 if report.findings else 0


if __name__ == "__main__":
    raise SystemExit(main())
