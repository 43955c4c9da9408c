"""DBOS stays optional: the SDK never loads it unless durable runs are asked for."""

from __future__ import annotations

import subprocess
import sys


def test_importing_loopwright_does_not_import_dbos() -> None:
    probe = (
        "import sys, loopwright, loopwright.client, loopwright.testing; "
        "print('dbos' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.stdout.strip() == "False", done.stderr
