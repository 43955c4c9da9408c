"""loopwright's version: the one definition (pyproject.toml reads it from here)."""

VERSION = "0.1.0"
