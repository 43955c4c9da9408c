"""Subagents: definitions from files, the Agent tool, and running one through the loop."""
