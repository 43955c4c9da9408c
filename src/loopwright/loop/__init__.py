"""The agent loop: ask the model, run the tools it calls, repeat until it is done.

``run.py`` is the loop's policy top to bottom; the other modules are its steps.
"""
