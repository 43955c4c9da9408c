"""Subagents and handoffs: definitions from files, the Agent tool, handoff tools.

Running a subagent is the loop's job (``loop/subagents.py``); its session is built by
``session/child.py``.
"""
