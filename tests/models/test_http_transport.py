"""What our HTTP client (models/_http.py) meets on real servers besides the fake servers' chunked
streams: compressed error bodies, bodies that end when the connection closes, kept-alive
connections the server has since closed, and answers that are not HTTP at all."""

from __future__ import annotations

import gzip
import json
import socket
import threading
from collections.abc import Callable

import pytest

from loopwright.errors import ModelError
from loopwright.messages import TextBlock
from loopwright.models.base import ModelResponse
from loopwright.models.openai_chat import OpenAIChatModel

from .conftest import ask

# An answer returns True when it closed the connection: no request is read from it again
# (Linux still delivers data that arrives after shutdown(SHUT_RD)).
Answer = Callable[[socket.socket], bool | None]


class ScriptedSocket:
    """Accepts connections on 127.0.0.1; each request is answered by the next function."""

    def __init__(self, answers: list[Answer]) -> None:
        self.answers = answers
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.base_url = f"http://127.0.0.1:{self.listener.getsockname()[1]}/v1"
        self.connections = 0
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while self.answers:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._handle, args=(connection,), daemon=True).start()

    def _handle(self, connection: socket.socket) -> None:
        with connection:
            while self.answers:
                if not _read_request(connection):
                    return
                answer = self.answers.pop(0)
                if answer(connection):
                    return

    def close(self) -> None:
        self.listener.close()


def _read_request(connection: socket.socket) -> bool:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = connection.recv(65536)
        if not chunk:
            return False
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(
        next(
            line for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")
        ).split(b":")[1]
    )
    while len(body) < length:
        body += connection.recv(65536)
    return True


def _chunk(index: int, **delta: object) -> bytes:
    choice = {"index": 0, "delta": delta, "finish_reason": None}
    payload = {"id": "c1", "object": "chat.completion.chunk", "model": "m", "choices": [choice]}
    return f"data: {json.dumps(payload)}\n\n".encode()


_STREAM = (
    _chunk(0, role="assistant", content="hel")
    + _chunk(1, content="lo")
    + b'data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":'
    + b'[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n'
    + b"data: [DONE]\n\n"
)


def close_delimited_stream(connection: socket.socket) -> bool:
    """An SSE body with neither Content-Length nor chunking: it ends with the connection."""
    connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n" + _STREAM)
    connection.shutdown(socket.SHUT_WR)
    return True


def sized_stream(connection: socket.socket) -> None:
    head = f"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: {len(_STREAM)}"
    connection.sendall(head.encode() + b"\r\n\r\n" + _STREAM)


def chunked_stream(connection: socket.socket) -> None:
    """As the APIs send it: chunked, the body ending with a zero-size chunk after [DONE]."""
    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked"
    chunk = b"%x\r\n%s\r\n" % (len(_STREAM), _STREAM)
    connection.sendall(head + b"\r\n\r\n" + chunk + b"0\r\n\r\n")


def sized_stream_then_close(connection: socket.socket) -> bool:
    sized_stream(connection)
    connection.shutdown(socket.SHUT_RDWR)
    return True


def gzipped_rate_limit(connection: socket.socket) -> None:
    body = gzip.compress(
        json.dumps({"error": {"message": "slow down please", "type": "requests"}}).encode()
    )
    connection.sendall(
        b"HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\n"
        b"Content-Encoding: gzip\r\nRetry-After: 7\r\n"
        + f"Content-Length: {len(body)}\r\n\r\n".encode()
        + body
    )


def html_bad_gateway(connection: socket.socket) -> None:
    """What a proxy in front of the API says when the API is away: not JSON at all."""
    body = b"<html><body><h1>502 Bad Gateway</h1></body></html>"
    connection.sendall(
        b"HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/html\r\n"
        + f"Content-Length: {len(body)}\r\n\r\n".encode()
        + body
    )


def not_http(connection: socket.socket) -> None:
    connection.sendall(b"SSH-2.0-OpenSSH_9.6\r\n\r\n")


def _text(response: ModelResponse) -> str:
    return "".join(b.text for b in response.content if isinstance(b, TextBlock))


async def _answer(model: OpenAIChatModel) -> ModelResponse:
    events = [event async for event in model.stream(ask())]
    final = events[-1]
    assert isinstance(final, ModelResponse)
    return final


async def test_a_body_that_ends_with_the_connection_is_read_whole() -> None:
    server = ScriptedSocket([close_delimited_stream])
    model = OpenAIChatModel("m", api_key="k", base_url=server.base_url)
    try:
        response = await _answer(model)
    finally:
        await model.aclose()
        server.close()
    assert _text(response) == "hello" and response.stop_reason == "end_turn"


async def test_a_compressed_error_body_is_read_for_its_message_and_retry_after() -> None:
    server = ScriptedSocket([gzipped_rate_limit])
    model = OpenAIChatModel("m", api_key="k", base_url=server.base_url)
    try:
        with pytest.raises(ModelError, match="slow down please") as raised:
            await _answer(model)
    finally:
        await model.aclose()
        server.close()
    assert raised.value.kind == "rate_limit" and raised.value.retry_after == 7


async def test_a_kept_alive_connection_the_server_closed_is_replaced() -> None:
    server = ScriptedSocket([sized_stream_then_close, sized_stream])
    model = OpenAIChatModel("m", api_key="k", base_url=server.base_url)
    try:
        first = await _answer(model)
        second = await _answer(model)
    finally:
        await model.aclose()
        server.close()
    assert _text(first) == _text(second) == "hello"
    assert server.connections == 2


async def test_a_stream_read_to_done_leaves_its_connection_for_the_next_request() -> None:
    server = ScriptedSocket([chunked_stream, chunked_stream, chunked_stream])
    model = OpenAIChatModel("m", api_key="k", base_url=server.base_url)
    try:
        answers = [await _answer(model) for _ in range(3)]
    finally:
        await model.aclose()
        server.close()
    assert [_text(a) for a in answers] == ["hello"] * 3
    assert server.connections == 1  # the reader stops at [DONE]; the body was drained first


async def test_an_answer_that_is_not_http_is_a_connection_error() -> None:
    server = ScriptedSocket([not_http])
    model = OpenAIChatModel("m", api_key="k", base_url=server.base_url)
    try:
        with pytest.raises(ModelError) as raised:
            await _answer(model)
    finally:
        await model.aclose()
        server.close()
    assert raised.value.kind == "connection"


async def test_an_error_body_that_is_not_json_is_quoted_and_keeps_the_kind_of_its_status() -> None:
    server = ScriptedSocket([html_bad_gateway])
    model = OpenAIChatModel("m", api_key="k", base_url=server.base_url)
    try:
        with pytest.raises(ModelError, match="502 Bad Gateway") as raised:
            await _answer(model)
    finally:
        await model.aclose()
        server.close()
    assert raised.value.kind == "server" and raised.value.status_code == 502
    assert raised.value.retryable
