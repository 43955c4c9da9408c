"""The sandbox and the permission policy protect the same names."""

from loopwright.permissions import policy
from loopwright.permissions.paths.protected import PROTECTED_DIR_NAMES, PROTECTED_FILE_NAMES


def test_the_permission_policy_protects_no_name_the_sandbox_leaves_open() -> None:
    # Until the policy imports sandbox/protected.py, its private copy must not drift.
    assert set(policy._PROTECTED_PARTS) <= PROTECTED_DIR_NAMES  # pyright: ignore[reportPrivateUsage]
    assert set(policy._PROTECTED_NAMES) <= PROTECTED_FILE_NAMES  # pyright: ignore[reportPrivateUsage]
