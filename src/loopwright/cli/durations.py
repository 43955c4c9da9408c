"""Intervals written the way people write them: ``90s``, ``15m``, ``1h``, ``1h30m``, ``1d``."""

from __future__ import annotations

import re

_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_PART = re.compile(r"(\d+(?:\.\d+)?)([smhd])")


def parse_duration(text: str) -> float:
    """Seconds in ``text``; a bare number is seconds. Raises ValueError with an example."""
    compact = text.strip().lower().replace(" ", "")
    if re.fullmatch(r"\d+(?:\.\d+)?", compact):
        seconds = float(compact)
    else:
        parts = _PART.findall(compact)
        if not parts or "".join(number + unit for number, unit in parts) != compact:
            raise ValueError(f"{text!r} is not a duration; write e.g. 90s, 15m, 1h, 1h30m or 1d")
        seconds = sum(float(number) * _UNIT_SECONDS[unit] for number, unit in parts)
    if seconds <= 0:
        raise ValueError(f"the interval {text!r} must be longer than zero")
    return seconds
