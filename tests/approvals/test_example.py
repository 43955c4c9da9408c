"""The web handler example runs offline: start → pending → approve → finished."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).parents[2] / "examples" / "approval_web_flow.py"


def test_the_web_flow_example_goes_from_pending_to_finished_and_refuses_a_second_answer() -> None:
    done = subprocess.run(
        [sys.executable, str(EXAMPLE)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "start: 201 pending ['refund']"
    assert lines[1].startswith("pending: refund {'order_id': 'A-17', 'amount_eur': 39.0}")
    assert "needs_approval" in lines[1]
    assert lines[2] == "approve: 200 finished - Done: refunded 39.00 EUR on order A-17"
    assert lines[3].startswith("approve again: 409") and "no calls waiting" in lines[3]
