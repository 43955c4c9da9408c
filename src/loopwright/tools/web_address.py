"""Host names as the network sees them, for WebFetch domain rules.

A rule is written in one spelling; a URL can spell the same address many ways that the
resolver and the HTTP client all accept: ``2130706434``, ``0x7f000002``, ``0177.0.0.2``,
``127.2`` (inet_aton's short forms), ``[::ffff:127.0.0.2]`` (IPv4-mapped IPv6),
``127。0。0。2`` (ideographic and full-width dots), upper case, a trailing dot, Unicode
names (IDNA). ``canonical_host`` turns each into one spelling — dotted-quad IPv4,
compressed IPv6, ASCII (punycode) names — and rules and URLs are compared only in it.

A name can still resolve to a denied address, so WebFetch also resolves the name itself,
checks every address against the deny rules (``WebFetchGuard``), and connects to the
address it checked (never resolving again, so a second DNS answer cannot differ).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from dataclasses import dataclass

# Dots that IDNA (UTS #46) maps to "." and that URL parsers accept as label separators.
_DOTS = str.maketrans({"\u3002": ".", "\uff0e": ".", "\uff61": "."})
_IPV4_PART = re.compile(r"0[xX][0-9a-fA-F]*|0[0-7]*|[1-9][0-9]*")


def canonical_host(raw: str) -> str:
    """The one spelling of a host: IPv4 dotted quad, compressed IPv6, or an ASCII name."""
    host = raw.strip().translate(_DOTS).lower()
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    host = host.rstrip(".")
    address = ip_of(host)
    if address is not None:
        return str(address)
    try:
        ascii_name = host.encode("idna").decode("ascii")
    except UnicodeError:
        return host
    # IDNA may map full-width digits to ASCII ones: the result can be an address.
    address = ip_of(ascii_name)
    return str(address) if address is not None else ascii_name.lower()


def ip_of(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The address ``host`` spells (every inet_aton IPv4 form; IPv4-mapped IPv6 as IPv4)."""
    if ":" in host:
        try:
            v6 = ipaddress.IPv6Address(host.split("%", 1)[0])
        except ValueError:
            return None
        return v6.ipv4_mapped or v6
    return _inet_aton(host)


def _inet_aton(host: str) -> ipaddress.IPv4Address | None:
    parts = host.split(".")
    if not 1 <= len(parts) <= 4 or not all(_IPV4_PART.fullmatch(p) for p in parts):
        return None
    values = [int(p, 16) if p[:2] in ("0x", "0X") and len(p) > 2 else _int(p) for p in parts]
    if any(v is None for v in values):
        return None
    numbers = [v for v in values if v is not None]
    # a, a.b, a.b.c, a.b.c.d: the last part fills the bytes the others leave.
    last_bits = 8 * (5 - len(numbers))
    if any(v > 255 for v in numbers[:-1]) or numbers[-1] >= 1 << last_bits:
        return None
    value = numbers[-1]
    for index, part in enumerate(numbers[:-1]):
        value |= part << (24 - 8 * index)
    return ipaddress.IPv4Address(value)


def _int(part: str) -> int | None:
    if part in ("0x", "0X"):
        return 0  # inet_aton reads a bare 0x as zero
    if len(part) > 1 and part.startswith("0"):
        return int(part, 8)
    return int(part)


def host_matches(pattern: str, host: str) -> bool:
    """``example.com`` exact; ``*.example.com`` any subdomain (not the apex); ``*`` all.
    Elsewhere ``*`` stays within one label. Both sides are compared canonically."""
    host = canonical_host(host)
    pattern = pattern.strip()
    if pattern == "*":
        return True
    if pattern.startswith("*."):
        suffix = canonical_host(pattern[2:])
        return host.endswith("." + suffix) and len(host) > len(suffix) + 1
    if "*" not in pattern:
        return canonical_host(pattern) == host
    pieces = pattern.translate(_DOTS).lower().rstrip(".").split("*")
    regex = "[^.]*".join(re.escape(piece) for piece in pieces)
    return re.fullmatch(regex, host) is not None


@dataclass(frozen=True, slots=True)
class WebFetchGuard:
    """The session's ``WebFetch(domain:…)`` deny patterns, for the addresses WebFetch
    connects to and the hosts it is redirected to."""

    deny_patterns: tuple[str, ...]

    @classmethod
    def from_specifiers(cls, specifiers: Iterable[str]) -> WebFetchGuard:
        patterns = (s[len("domain:") :].strip() for s in specifiers if s.startswith("domain:"))
        return cls(tuple(p for p in patterns if p))

    def denied(self, host: str) -> str | None:
        """The deny rule ``host`` (a name or an address) falls under, or None."""
        for pattern in self.deny_patterns:
            if host_matches(pattern, host):
                return f"WebFetch(domain:{pattern})"
        return None
