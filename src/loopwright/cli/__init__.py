"""The ``loopwright`` command."""
