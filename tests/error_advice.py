"""An error a person or a model will read must say what to do, not only that it failed."""

from __future__ import annotations


def assert_says_what_to_do(message: object, *hints: str) -> None:
    """Assert that ``message`` carries every one of ``hints``: the words of this error's fix
    (the value to pass, the command to run, the valid names), chosen for the case at hand."""
    assert hints, "name the fix this error must carry"
    text = str(message)
    missing = [hint for hint in hints if hint not in text]
    assert not missing, f"the error does not say what to do (missing {missing}):\n{text}"
