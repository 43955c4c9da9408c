"""Text from a session, made safe to write to a terminal: shown, never obeyed.

Model text, tool output, file names and transcripts are data. Written raw, an escape
sequence in them would be *executed* by the terminal: ``ESC [ 2K`` erases the line that
showed ``curl … | sh``, OSC 52 writes the clipboard, ``\\r`` and backspace overwrite what
was shown, a bidi override reorders it. :func:`visible` replaces every such character with
an escaped form the user can read (``\\e[2K``, ``\\r``, ``\\x9b``, ``\\u202e``), keeping
newlines and tabs. Every path that writes session text to a terminal goes through it;
machine formats (json, stream-json) do not, and stay exact.
"""

from __future__ import annotations

import re

_NAMED = {
    "\x00": "\\0",
    "\x07": "\\a",
    "\x08": "\\b",
    "\x0b": "\\v",
    "\x0c": "\\f",
    "\r": "\\r",
    "\x1b": "\\e",
}

# C0 controls but \t and \n; DEL and the C1 controls (U+0080-U+009F, CSI and OSC among
# them); the bidi marks, embeddings, overrides and isolates; the Unicode line and paragraph
# separators; lone surrogates (a file name that is not UTF-8), which a UTF-8 terminal
# cannot even be sent.
_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]"
)


def _shown(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str) -> str:
    """``text`` with every control, escape and bidi character shown as an escape."""
    if not _UNSAFE.search(text):
        return text
    return _UNSAFE.sub(_shown, text)


def visible_line(text: str) -> str:
    """:func:`visible`, and newlines and tabs shown too: for one-line fields (an id, a
    model name, a status) that must not start a line of their own."""
    return visible(text).replace("\n", "\\n").replace("\t", "\\t")
