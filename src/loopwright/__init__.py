"""loopwright: a native, model-agnostic agent loop."""
