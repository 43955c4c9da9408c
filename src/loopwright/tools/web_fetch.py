"""The WebFetch tool: fetch a URL, turn HTML into Markdown, optionally summarise it.

WebFetch decides on the address it connects to: each hop's host is canonicalised
(web_address.py), resolved once, every address checked against the session's
``WebFetch(domain:…)`` deny rules, and the connection made to the checked address (TLS
still verified for the name). Same-host redirects are checked the same way; one deadline
covers the whole fetch (a server dribbling a byte at a time is cut at it); the body is
capped; HTML is converted in a worker thread, at most MAX_CONVERT_BYTES of it.

httpx and markdownify are imported on first use: together they take ~200 ms to import,
which would otherwise land on every session's cold start.
"""

from __future__ import annotations

import asyncio
import json
import socket
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

from loopwright.messages import TextBlock, UserMessage
from loopwright.models.base import Model, ModelRequest, ModelResponse
from loopwright.tools.base import ToolBase, ToolContext, ToolResult
from loopwright.tools.web_address import (
    WebFetchGuard,
    canonical_host,
    ip_of,
)

if TYPE_CHECKING:
    import httpx

MAX_REDIRECTS = 5
MAX_BODY_BYTES = 10 * 1024 * 1024
MAX_CONTENT_CHARS = 100_000
TIMEOUT_SECONDS = 30.0
# HTML past this is not converted (markdownify is slow on big pages; the model gets
# MAX_CONTENT_CHARS anyway), and a conversion gets this long in its thread.
MAX_CONVERT_BYTES = 256 * 1024
CONVERT_TIMEOUT_SECONDS = 20.0
SUMMARY_MAX_TOKENS = 2048
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
USER_AGENT = "loopwright-webfetch/0.1 (+https://pypi.org/project/loopwright)"
TEXT_TYPES = ("text/", "application/json", "application/xml", "application/xhtml+xml")

WEB_FETCH_DESCRIPTION = """\
Fetch a web page or text resource over HTTP(S) and return its content.

- HTML is converted to Markdown; plain text and JSON are returned as they are. Other \
content types (images, archives, PDFs) are refused.
- Bodies over 10 MB are cut; the result says so. Redirects are followed up to 5 times.
- With prompt, the page is summarised for that question by the session's model (when one \
is available) instead of returned whole.
- Only fetch URLs the user gave or that you found; the fetch does not run JavaScript."""

WEB_FETCH_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "url": {"type": "string", "description": "The http:// or https:// URL to fetch."},
        "prompt": {
            "type": "string",
            "description": "What to extract from the page (summarised by the model).",
        },
    },
    "required": ["url"],
    "additionalProperties": False,
}


class FetchError(Exception):
    """A fetch that cannot produce content; the message goes to the model as is."""


@dataclass(frozen=True, slots=True)
class FetchedPage:
    url: str
    status: int
    content_type: str
    body: bytes
    encoding: str
    truncated: bool


@dataclass(frozen=True, slots=True)
class CrossHostRedirect:
    """A redirect to another host: not followed, so domain permission rules stay in force."""

    original_url: str
    redirect_url: str
    status: int


def _host(url: str) -> str:
    return canonical_host(urlsplit(url).hostname or "").removeprefix("www.")


@dataclass(frozen=True, slots=True)
class _Target:
    """Where one hop connects: the checked address, and the name TLS and Host carry."""

    connect_url: str
    host_header: str
    sni_hostname: str | None


async def checked_target(url: str, guard: WebFetchGuard | None) -> _Target:
    """Resolve ``url``'s host once and check the name and every address it resolves to
    against the deny rules; the connection then goes to the address checked."""
    import httpx

    parsed = httpx.URL(url)
    host = canonical_host(parsed.host)
    if host != canonical_host(urlsplit(url).hostname or ""):
        # The permission check read the host with urlsplit: both must agree on it.
        raise FetchError(f"{url} names its host ambiguously; write the URL plainly")
    rule = guard.denied(host) if guard is not None else None
    if rule is not None:
        raise FetchError(f"{url} is covered by the deny rule {rule}; it was not fetched")
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise FetchError(
            f"could not resolve {host!r} from {url}: {exc}; check the URL's host name"
        ) from None
    addresses = list(dict.fromkeys(canonical_host(str(info[4][0])) for info in infos))
    for address in addresses:
        rule = guard.denied(address) if guard is not None else None
        if rule is not None:
            raise FetchError(
                f"{url}: {host} resolves to {address}, which the deny rule {rule} covers; "
                "it was not fetched"
            )
    if not addresses:
        raise FetchError(f"{host!r} from {url} resolves to no address")
    return _Target(
        str(parsed.copy_with(host=addresses[0])),
        parsed.netloc.decode("ascii"),
        # TLS is verified for the name in the URL, not for the address connected to.
        host if parsed.scheme == "https" and ip_of(host) is None else None,
    )


def _check_url(raw: object) -> str | None:
    if not isinstance(raw, str) or not raw:
        return "url must be a non-empty string"
    parts = urlsplit(raw)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return f"url must be an absolute http:// or https:// URL, got {raw!r}"
    return None


async def _read_capped(response: httpx.Response) -> tuple[bytes, bool]:
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            return (b"".join(chunks)[:MAX_BODY_BYTES], True)
    return (b"".join(chunks), False)


async def _fetch_once(
    client: httpx.AsyncClient, url: str, guard: WebFetchGuard | None
) -> FetchedPage | CrossHostRedirect | str:
    """The page at ``url``, or the redirect target when it answers with one."""
    target = await checked_target(url, guard)
    extensions = {"sni_hostname": target.sni_hostname} if target.sni_hostname else {}
    async with client.stream(
        "GET", target.connect_url, headers={"host": target.host_header}, extensions=extensions
    ) as response:
        location = response.headers.get("location")
        if response.status_code in REDIRECT_STATUSES and location:
            target = urljoin(url, location)
            if _host(target) != _host(url):
                return CrossHostRedirect(url, target, response.status_code)
            return target
        if response.status_code >= 400:
            raise FetchError(
                f"HTTP {response.status_code} {response.reason_phrase} from {url}; the "
                "server refused or failed the request"
            )
        content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
        if content_type and not content_type.startswith(TEXT_TYPES):
            raise FetchError(
                f"{url} returned {content_type}, which is not text; WebFetch only reads text, "
                "HTML and JSON"
            )
        body, truncated = await _read_capped(response)
        encoding = response.charset_encoding or "utf-8"
        return FetchedPage(url, response.status_code, content_type, body, encoding, truncated)


async def fetch_page(
    url: str, timeout: float = TIMEOUT_SECONDS, guard: WebFetchGuard | None = None
) -> FetchedPage | CrossHostRedirect:
    """GET ``url`` following at most MAX_REDIRECTS redirects, refusing loops; the whole
    fetch (every hop, every byte) within ``timeout`` (``TimeoutError`` past it)."""
    async with asyncio.timeout(timeout):
        return await _follow(url, timeout, guard)


async def _follow(
    url: str, timeout: float, guard: WebFetchGuard | None
) -> FetchedPage | CrossHostRedirect:
    import httpx

    seen = [url]
    headers = {"user-agent": USER_AGENT, "accept": "text/html, text/*;q=0.9, */*;q=0.5"}
    async with httpx.AsyncClient(
        follow_redirects=False, timeout=timeout, headers=headers
    ) as client:
        for _ in range(MAX_REDIRECTS + 1):
            outcome = await _fetch_once(client, seen[-1], guard)
            if not isinstance(outcome, str):
                return outcome
            if outcome in seen:
                raise FetchError(f"redirect loop: {' -> '.join([*seen, outcome])}")
            if _check_url(outcome) is not None:
                raise FetchError(f"redirected to an unsupported URL: {outcome}")
            seen.append(outcome)
    raise FetchError(f"more than {MAX_REDIRECTS} redirects starting at {url}")


def page_text(page: FetchedPage) -> str:
    """HTML as Markdown; JSON pretty-printed; other text as it is."""
    from markdownify import markdownify

    try:
        text = page.body.decode(page.encoding, errors="replace")
    except LookupError:
        text = page.body.decode("utf-8", errors="replace")
    if page.content_type in ("text/html", "application/xhtml+xml") or (
        not page.content_type and text.lstrip()[:15].lower().startswith(("<!doctype", "<html"))
    ):
        if len(page.body) > MAX_CONVERT_BYTES:
            cut = page.body[:MAX_CONVERT_BYTES].decode(page.encoding, errors="ignore")
            note = f"[page cut at {MAX_CONVERT_BYTES} bytes of HTML before conversion]\n\n"
            return note + markdownify(cut, heading_style="ATX").strip()
        return markdownify(text, heading_style="ATX").strip()
    if page.content_type == "application/json" and not page.truncated:
        try:
            return json.dumps(json.loads(text), indent=2, ensure_ascii=False)
        except json.JSONDecodeError:
            return text
    return text


async def summarise(model: Model, prompt: str, url: str, content: str) -> str:
    """Ask the session's model ``prompt`` about the page; only its final text is kept."""
    request = ModelRequest(
        model=model.name,
        system=(
            "You answer a question about a web page using only the page content given. "
            "Be concise; quote exact text where precision matters."
        ),
        messages=[UserMessage([TextBlock(f"Page {url}:\n\n{content}\n\nQuestion: {prompt}")])],
        max_tokens=SUMMARY_MAX_TOKENS,
    )
    async for event in model.stream(request):
        if isinstance(event, ModelResponse):
            return "".join(b.text for b in event.content if isinstance(b, TextBlock))
    raise FetchError("the model ended its answer without a response")


def _cut(text: str) -> str:
    if len(text) <= MAX_CONTENT_CHARS:
        return text
    return text[:MAX_CONTENT_CHARS] + f"\n\n[content cut at {MAX_CONTENT_CHARS} characters]"


@dataclass(frozen=True, slots=True)
class WebFetchTool(ToolBase):
    name: str = "WebFetch"
    description: str = WEB_FETCH_DESCRIPTION
    input_schema: dict[str, Any] = field(default_factory=lambda: WEB_FETCH_SCHEMA)
    read_only: bool = True
    # One deadline for the whole fetch: connecting, every redirect, every byte.
    fetch_timeout: float = TIMEOUT_SECONDS

    async def call(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        url, prompt = input.get("url"), input.get("prompt")
        problem = _check_url(url)
        if problem is None and prompt is not None and not isinstance(prompt, str):
            problem = "prompt must be a string"
        if problem is not None:
            return ToolResult.error(problem)
        assert isinstance(url, str)
        import httpx

        try:
            page = await fetch_page(url, self.fetch_timeout, ctx.services.web_fetch_guard)
        except FetchError as exc:
            return ToolResult.error(str(exc))
        except (httpx.TimeoutException, TimeoutError):
            return ToolResult.error(
                f"fetching {url} did not finish within {self.fetch_timeout:g} s and was "
                "stopped; try again later, or fetch a smaller page"
            )
        except httpx.HTTPError as exc:
            return ToolResult.error(
                f"could not fetch {url}: {exc}; check the URL and that its server is reachable"
            )
        if isinstance(page, CrossHostRedirect):
            return ToolResult(
                f"{page.original_url} redirected (HTTP {page.status}) to a different host: "
                f"{page.redirect_url}\nCall WebFetch again with that URL to fetch it."
            )
        header = f"Fetched {page.url} ({page.status}, {page.content_type or 'unknown type'})"
        if page.truncated:
            header += f"; body cut at {MAX_BODY_BYTES} bytes"
        try:
            # Off the event loop: converting a big page takes seconds of CPU.
            async with asyncio.timeout(CONVERT_TIMEOUT_SECONDS):
                content = _cut(await asyncio.to_thread(page_text, page))
        except TimeoutError:
            return ToolResult.error(
                f"converting {page.url} to text took over {CONVERT_TIMEOUT_SECONDS:.0f} s; "
                "fetch a smaller or simpler page"
            )
        return await self._answer(header, content, page.url, prompt, ctx)

    async def _answer(
        self, header: str, content: str, url: str, prompt: str | None, ctx: ToolContext
    ) -> ToolResult:
        if not prompt:
            return ToolResult(f"{header}\n\n{content}")
        model = ctx.services.model
        if model is None:
            note = "[no model is available to apply the prompt; the page content follows]"
            return ToolResult(f"{header}\n{note}\n\n{content}")
        try:
            answer = await summarise(model, prompt, url, content)
        except Exception as exc:  # a failing summary must not lose the fetched page
            return ToolResult(
                f"{header}\n[summarising failed: {exc}; content follows]\n\n{content}"
            )
        return ToolResult(f"{header}\n\n{answer}")
