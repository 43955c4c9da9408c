"""A tiny calculator with a bug for the loopwright demo to fix."""


def add(a: float, b: float) -> float:
    return a - b


def multiply(a: float, b: float) -> float:
    return a * b
