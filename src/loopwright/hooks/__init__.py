"""Hooks: callbacks and shell commands run at the loop's and the tools' events."""
