"""URLs with their secrets taken out, for wherever a URL is shown or stored.

An MCP server configured as ``https://user:pw@host/mcp?api_key=…`` that fails to connect
would otherwise put the password and the key into the ``init`` message, the transcript,
stream-json and error lines. :func:`redact_url` replaces the userinfo and the value of
every key-like query (or fragment) parameter with ``***``; :func:`redact_text` does that to
every URL inside a message.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

MASK = "***"
# A parameter whose name contains one of these holds a secret (api_key, apikey, token,
# access_token, client_secret, password, X-Amz-Signature, sig, auth, credential, …).
_SECRET_NAME = re.compile(
    r"key|token|secret|passw|pwd|sig|auth|credential|session|bearer|jwt|code", re.IGNORECASE
)
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>`]+")
_USERINFO = re.compile(r"(?<=://)[^/?#\s]*@")


def _redact_params(params: str) -> str:
    if not params:
        return params
    parts: list[str] = []
    for part in params.split("&"):
        name, equals, value = part.partition("=")
        secret = equals and value and _SECRET_NAME.search(name.replace("-", "_"))
        parts.append(f"{name}={MASK}" if secret else part)
    return "&".join(parts)


def redact_url(url: str) -> str:
    """``url`` without its userinfo and key-like parameter values; the rest unchanged."""
    try:
        parts = urlsplit(url)
        netloc = parts.netloc
        if "@" in netloc:
            netloc = f"{MASK}@{netloc.rpartition('@')[2]}"
        query, fragment = _redact_params(parts.query), parts.fragment
        if "=" in fragment:
            fragment = _redact_params(fragment)  # OAuth puts access_token in the fragment
        return urlunsplit((parts.scheme, netloc, parts.path, query, fragment))
    except ValueError:  # not parseable (a bad IPv6 literal): still take the userinfo out
        return _USERINFO.sub(f"{MASK}@", url)


def redact_text(text: str) -> str:
    """``text`` with every URL in it redacted by :func:`redact_url`."""
    if "://" not in text:
        return text
    return _URL.sub(lambda match: redact_url(match.group()), text)
