"""Tool output every provider can carry: text that encodes as UTF-8.

Python spells the bytes of a file name that is not UTF-8 as lone surrogates (U+DC80..
U+DCFF, "surrogateescape"), so a Glob or Grep result listing such a file holds characters
no request body can encode: the next model call failed and the run ended. A model that can
create files could end any run that way. Such bytes are shown as ``\\xNN`` escapes (the
model sees which byte it was), any other lone surrogate as U+FFFD.
"""

from __future__ import annotations

import re

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def sendable(text: str) -> str:
    """``text`` with every lone surrogate replaced by something UTF-8 can encode."""
    if text.isascii():  # the common case: a flag check, no scan
        return text
    try:
        text.encode("utf-8")  # a C-speed scan; fails only on lone surrogates
    except UnicodeEncodeError:
        return _LONE_SURROGATE.sub(_replacement, text)
    return text


def _replacement(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:
        return f"\\x{code - 0xDC00:02x}"
    return "\ufffd"
