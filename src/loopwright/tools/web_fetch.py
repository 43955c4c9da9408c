"""The WebFetch tool: fetch a URL, turn HTML into Markdown, optionally summarise it.

httpx and markdownify are imported on first use: together they take ~200 ms to import,
which would otherwise land on every session's cold start.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

from loopwright.messages import TextBlock, UserMessage
from loopwright.models.base import Model, ModelRequest, ModelResponse
from loopwright.tools.base import ToolContext, ToolResult

if TYPE_CHECKING:
    import httpx

MAX_REDIRECTS = 5
MAX_BODY_BYTES = 10 * 1024 * 1024
MAX_CONTENT_CHARS = 100_000
TIMEOUT_SECONDS = 30.0
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
    return (urlsplit(url).hostname or "").lower().removeprefix("www.")


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


async def _fetch_once(client: httpx.AsyncClient, url: str) -> FetchedPage | CrossHostRedirect | str:
    """The page at ``url``, or the redirect target when it answers with one."""
    async with client.stream("GET", url) as response:
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


async def fetch_page(url: str, timeout: float = TIMEOUT_SECONDS) -> FetchedPage | CrossHostRedirect:
    """GET ``url`` following at most MAX_REDIRECTS redirects, refusing loops."""
    import httpx

    seen = [url]
    headers = {"user-agent": USER_AGENT, "accept": "text/html, text/*;q=0.9, */*;q=0.5"}
    async with httpx.AsyncClient(
        follow_redirects=False, timeout=timeout, headers=headers
    ) as client:
        for _ in range(MAX_REDIRECTS + 1):
            outcome = await _fetch_once(client, seen[-1])
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
class WebFetchTool:
    name: str = "WebFetch"
    description: str = WEB_FETCH_DESCRIPTION
    input_schema: dict[str, Any] = field(default_factory=lambda: WEB_FETCH_SCHEMA)
    read_only: bool = True

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
            page = await fetch_page(url)
        except FetchError as exc:
            return ToolResult.error(str(exc))
        except httpx.TimeoutException:
            return ToolResult.error(f"fetching {url} timed out after {TIMEOUT_SECONDS:.0f} s")
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
        content = _cut(page_text(page))
        return await self._answer(header, content, page.url, prompt, ctx)

    async def _answer(
        self, header: str, content: str, url: str, prompt: str | None, ctx: ToolContext
    ) -> ToolResult:
        if not prompt:
            return ToolResult(f"{header}\n\n{content}")
        model = ctx.services.get("model")
        if not isinstance(model, Model):
            note = "[no model is available to apply the prompt; the page content follows]"
            return ToolResult(f"{header}\n{note}\n\n{content}")
        try:
            answer = await summarise(model, prompt, url, content)
        except Exception as exc:  # a failing summary must not lose the fetched page
            return ToolResult(
                f"{header}\n[summarising failed: {exc}; content follows]\n\n{content}"
            )
        return ToolResult(f"{header}\n\n{answer}")
