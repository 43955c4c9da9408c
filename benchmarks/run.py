"""Runs every ``bench_*.py`` beside this file and prints one table of medians.

``python benchmarks/run.py soak`` (or any names) runs only ``bench_soak.py`` (those named).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
import tempfile
import traceback
from pathlib import Path

HERE = Path(__file__).parent


def main(names: list[str]) -> int:
    # Sessions the benchmarks run (and the processes they start) keep their transcripts,
    # locks and saved output in a home of their own, removed at the end: `make bench`
    # leaves nothing in ~/.loopwright.
    home = tempfile.mkdtemp(prefix="loopwright-bench-home-")
    os.environ["LOOPWRIGHT_HOME"] = home
    try:
        return _run_all(names)
    finally:
        shutil.rmtree(home, ignore_errors=True)


def _run_all(names: list[str]) -> int:
    rows: list[tuple[str, str, str]] = []
    failed = False
    paths = sorted(HERE.glob("bench_*.py"))
    if names:
        paths = [p for p in paths if p.stem.removeprefix("bench_") in names]
        if not paths:
            print(f"no benchmark named {' '.join(names)}; try: soak, core, tools", file=sys.stderr)
            return 2
    for path in paths:
        spec = importlib.util.spec_from_file_location(path.stem, path)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        print(f"running {path.name} …", file=sys.stderr, flush=True)
        try:
            spec.loader.exec_module(module)
            rows.extend(module.run())
        except Exception:
            failed = True
            traceback.print_exc()
            rows.append((f"{path.stem}: FAILED (see above)", "-", "-"))
    width = max(len(r[0]) for r in rows)
    print(f"\n{'metric'.ljust(width)}  {'measured':>16}  target")
    print("-" * (width + 30))
    for metric, value, target in rows:
        print(f"{metric.ljust(width)}  {value:>16}  {target}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
