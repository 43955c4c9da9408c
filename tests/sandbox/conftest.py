"""Every sandbox test runs commands inside bubblewrap unless marked ``without_bwrap``."""

from __future__ import annotations

import pytest

from system_deps import require_program


@pytest.fixture(autouse=True)
def bubblewrap_installed(request: pytest.FixtureRequest) -> None:
    if request.node.get_closest_marker("without_bwrap") is None:
        require_program("bwrap", purpose="the sandbox test")
