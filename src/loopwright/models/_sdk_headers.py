"""The request head the official SDKs send, built without importing them.

The lean request path (``_lean_http``) must put the same bytes on the wire as the SDK's
own client: the same headers in the same order and casing, the same target. This module
rebuilds them from what the SDKs' ``_build_headers`` and httpx2's request preparation
do, reading the SDK's version and API version from its source files (importing the
package would cost the second this path exists to save). tests/models compare the result
byte for byte with the SDK's request for every configuration the lean path serves.

:func:`lean_transport_ok` says when that is possible at all: anything that changes how
httpx2 or the SDK send (proxies, OpenTelemetry tracing, extra decoders,
profile or workload credentials, custom-header environment variables) leaves the request
to the SDK.
"""

from __future__ import annotations

import importlib.util
import os
import platform
import re
import sys
from collections.abc import Iterable, Mapping
from functools import cache, lru_cache
from pathlib import Path
from urllib.parse import urlsplit

from loopwright.models._lean_http import Header, Origin

# Environment that changes what httpx2 sends, or through what (trust_env is on in the SDKs).
_TRANSPORT_ENV = (
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
)
# Content decoders httpx2 advertises in Accept-Encoding when they are installed.
_EXTRA_DECODERS = ("brotli", "brotlicffi", "backports.zstd", "compression.zstd")
_CLIENT_DEFAULTS: list[Header] = [
    ("Accept", "*/*"),
    ("Accept-Encoding", "gzip, deflate"),
    ("Connection", "keep-alive"),
    ("User-Agent", "python-httpx2"),
]


def lean_transport_ok() -> bool:
    """Whether httpx2 would send a plain request here: no proxy settings, no extra
    content decoders, and no trace context for the SDK to record or send."""
    if any(os.environ.get(name) for name in _TRANSPORT_ENV):
        return False
    return not _extra_decoders() and not _tracing_active()


def _tracing_active() -> bool:
    """Whether the SDK would open a recording span or send trace headers: a tracer provider
    or propagators set up (in code or the environment), a current span, or baggage. With
    none of them its span is a no-op and nothing is added to the request."""
    if "opentelemetry.trace" not in sys.modules:
        return False
    if os.environ.get("OTEL_PYTHON_TRACER_PROVIDER") or os.environ.get("OTEL_PROPAGATORS"):
        return True
    from opentelemetry import baggage, trace

    if not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider):
        return True
    return trace.get_current_span().get_span_context().is_valid or bool(baggage.get_all())


@cache
def _extra_decoders() -> bool:
    return any(_installed(name) for name in _EXTRA_DECODERS)


def _installed(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


@cache
def package_constant(package: str, module: str, name: str) -> str | None:
    """A string constant from an installed package's source (``__version__`` in
    ``_version.py``), read without importing the package; None if it is not there."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    try:
        source = (Path(next(iter(spec.submodule_search_locations))) / module).read_text()
    except OSError:
        return None
    found = re.search(rf'^{name}\s*=\s*"([^"]+)"', source, re.MULTILINE)
    return found.group(1) if found else None


def origin_and_target(base_url: str, path: str, query: str = "") -> tuple[Origin, str] | None:
    """The origin and request target the SDK derives from its base URL and a path, or None
    for a base URL the lean path leaves to the SDK (a query, credentials, non-ASCII)."""
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or parts.query or parts.fragment:
        return None
    if not parts.hostname or parts.username or parts.password or not base_url.isascii():
        return None
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return None
    # The SDK joins with a trailing slash on the base path: "/v1" + "/messages".
    prefix = parts.path if parts.path.endswith("/") else parts.path + "/"
    target = prefix + path.lstrip("/") + (f"?{query}" if query else "")
    return Origin(parts.scheme, parts.hostname, port), target  # type: ignore[arg-type]


class HeaderList:
    """An ordered, case-insensitive header list with httpx2.Headers' semantics: ``set``
    replaces the entry of a name in place; ``update`` moves the names to the end. Names
    are unique, so each is found by its position (headers are built on every request)."""

    def __init__(self, items: Iterable[Header] = ()) -> None:
        self.items: list[Header] = []
        self._position: dict[str, int] = {}
        for name, value in items:
            self.set(name, value)

    def set(self, name: str, value: str) -> None:
        lower = name.lower()
        position = self._position.get(lower)
        if position is None:
            self._position[lower] = len(self.items)
            self.items.append((name, value))
        else:
            self.items[position] = (name, value)

    def update(self, items: Iterable[Header]) -> None:
        incoming = HeaderList(items)
        kept = [(k, v) for k, v in self.items if k.lower() not in incoming._position]
        self.items = []
        self._position = {}
        for name, value in (*kept, *incoming.items):
            self.set(name, value)


def wire_head(origin: Origin, sdk_headers: Iterable[Header], body_length: int) -> list[Header]:
    """What httpx2 sends for the SDK's headers: Host first, its client defaults the SDK
    did not set, the SDK's headers, Content-Length last."""
    return [*_merged_head(origin, tuple(sdk_headers)), ("Content-Length", str(body_length))]


@lru_cache(maxsize=256)
def _merged_head(origin: Origin, sdk_headers: tuple[Header, ...]) -> tuple[Header, ...]:
    # A provider sends the same headers on every request: merge them once.
    merged = HeaderList(_CLIENT_DEFAULTS)
    merged.update(sdk_headers)
    return (("Host", origin.netloc), *merged.items)


@cache
def _platform_headers(version: str) -> tuple[Header, ...]:
    return (
        ("X-Stainless-Lang", "python"),
        ("X-Stainless-Package-Version", version),
        ("X-Stainless-OS", _platform_name()),
        ("X-Stainless-Arch", _architecture()),
        ("X-Stainless-Runtime", platform.python_implementation()),
        ("X-Stainless-Runtime-Version", platform.python_version()),
    )


def _platform_name() -> str:
    # As the SDKs' get_platform(), without platform.platform() (it forks `uname -p`).
    system = platform.system().lower()
    machine = platform.machine().lower()
    release = platform.release().lower()
    if system in ("ios", "ipados") or machine.startswith(("iphone", "ipad")):
        return "iOS"
    named = {"darwin": "MacOS", "windows": "Windows"}
    if system in named:
        return named[system]
    if system == "android" or hasattr(sys, "getandroidapilevel") or "android" in release:
        return "Android"
    named = {"linux": "Linux", "freebsd": "FreeBSD", "openbsd": "OpenBSD"}
    if system in named:
        return named[system]
    return f"Other:{system}" if system else "Unknown"


def _architecture() -> str:
    machine = platform.machine().lower()
    if machine in ("arm64", "aarch64"):
        return "arm64"
    if machine in ("arm", "x86_64"):
        return "arm" if machine == "arm" else "x64"
    if sys.maxsize <= 2**32:
        return "x32"
    return f"other:{machine}" if machine else "unknown"


def anthropic_headers(
    *,
    api_key: str,
    custom: Mapping[str, str],
    extra: Mapping[str, str],
    read_timeout: str | None,
) -> list[Header] | None:
    """The headers ``AsyncAnthropic`` builds for a POST with API key auth, or None when
    the installed SDK's version cannot be read."""
    version = package_constant("anthropic", "_version.py", "__version__")
    api_version = package_constant("anthropic", "_constants.py", "ANTHROPIC_API_VERSION")
    if version is None or api_version is None:
        return None
    # The SDK's dict of default headers (custom headers spread in twice, as it does) …
    defaults: dict[str, str] = {
        "Accept": "application/json",
        "Content-Type": "application/json",
        "User-Agent": f"AsyncAnthropic/Python {version}",
        **dict(_platform_headers(version)),
        "Authorization": f"Bearer {api_key}",
        **custom,
    }
    defaults.update({"X-Stainless-Async": "async:asyncio", "anthropic-version": api_version})
    defaults.update(custom)
    # … under the per-request ones, then the client's and the call's custom layers.
    # (x-stainless-timeout is the call's own timeout, which is never given: "NOT_GIVEN".)
    timeouts = [("x-stainless-read-timeout", read_timeout)] if read_timeout is not None else []
    layered = HeaderList(
        [
            ("x-stainless-timeout", "NOT_GIVEN"),
            ("x-stainless-retry-count", "0"),
            *timeouts,
            *defaults.items(),
        ]
    )
    for name, value in [*custom.items(), *extra.items()]:
        layered.set(name, value)
    return layered.items


def openai_headers(
    *,
    api_key: str,
    custom: Mapping[str, str],
    extra: Mapping[str, str],
    read_timeout: str | None,
) -> list[Header] | None:
    """The headers ``AsyncOpenAI`` builds for a POST with bearer auth, or None when the
    installed SDK's version cannot be read."""
    version = package_constant("openai", "_version.py", "__version__")
    if version is None:
        return None
    merged: dict[str, Header] = {}
    layers: list[Iterable[Header]] = [
        [("Authorization", f"Bearer {api_key}")],
        [
            ("Accept", "application/json"),
            ("Content-Type", "application/json"),
            ("User-Agent", f"AsyncOpenAI/Python {version}"),
            *_platform_headers(version),
            *custom.items(),
            ("X-Stainless-Async", "async:asyncio"),
            *custom.items(),
        ],
        extra.items(),
    ]
    for layer in layers:
        for name, value in layer:
            merged[name.lower()] = (name, value)
    headers = HeaderList(merged.values())
    lowered = {name.lower() for name in extra}
    if "x-stainless-retry-count" not in lowered:
        headers.set("x-stainless-retry-count", "0")
    if "x-stainless-read-timeout" not in lowered and read_timeout is not None:
        headers.set("x-stainless-read-timeout", read_timeout)
    # The SDK hands httpx2 its headers by their lowercase names.
    return [(name.lower(), value) for name, value in headers.items]
