"""``agents.extensions``."""
