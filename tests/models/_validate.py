"""Check request bodies against the SDKs' own request TypedDicts.

pydantic validates ``Iterable[...]`` fields lazily, so the result is walked to force
every nested item through validation; unknown top-level keys are checked by hand
because TypedDict validation ignores extras.
"""

from __future__ import annotations

import collections.abc
from typing import Any

from pydantic import TypeAdapter


def _force(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _force(v) for k, v in value.items()}
    if isinstance(value, str | bytes | int | float | bool) or value is None:
        return value
    if isinstance(value, collections.abc.Iterable):
        return [_force(v) for v in value]
    return value


# The adapters must outlive the lazy iterators they return (pydantic-core needs the
# schema's definitions while iterating), so they are kept here.
_ADAPTERS: dict[Any, TypeAdapter[Any]] = {}


def validate(typed_dict: Any, body: dict[str, Any]) -> None:
    allowed = typed_dict.__required_keys__ | typed_dict.__optional_keys__
    unknown = set(body) - set(allowed)
    assert not unknown, f"keys unknown to {typed_dict.__name__}: {sorted(unknown)}"
    adapter = _ADAPTERS.setdefault(typed_dict, TypeAdapter(typed_dict))
    _force(adapter.validate_python(body))
