"""Which model a compat session uses, and one-time notes about options we cannot honour."""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable, Mapping

from loopwright.models.base import Model

MODEL_OVERRIDE_VARIABLE = "LOOPWRIGHT_MODEL"


def choose_model(
    written: str | Model | None, env: Mapping[str, str] | None = None
) -> str | Model | None:
    """The model for a session whose code named ``written``.

    A Model object given in code always wins: a test that passes a ScriptedModel means it.
    A model *string* names a model of the SDK the code was written for; LOOPWRIGHT_MODEL, when
    set, replaces it, which is how an unchanged script is pointed at another provider or at
    a scripted model. Otherwise the string goes to loopwright's registry (None = its default).
    """
    if written is not None and not isinstance(written, str):
        return written
    override = (os.environ if env is None else env).get(MODEL_OVERRIDE_VARIABLE, "").strip()
    return override or written


def model_is_overridden(written: str | Model | None, env: Mapping[str, str] | None = None) -> bool:
    return isinstance(written, str) and choose_model(written, env) != written


def warn_ignored(sdk: str, names: Iterable[str]) -> None:
    """Say once per call site which options had no effect, instead of dropping them silently."""
    ignored = sorted(names)
    if ignored:
        warnings.warn(
            f"{sdk}: loopwright has no equivalent of {', '.join(ignored)}; "
            "these options are ignored",
            UserWarning,
            stacklevel=3,
        )
