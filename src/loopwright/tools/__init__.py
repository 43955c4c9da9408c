"""Tools: the built-ins, the ``@tool`` decorator and the executor."""
