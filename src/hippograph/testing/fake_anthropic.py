"""A local fake of the Anthropic Messages API, speaking the real wire format.

A real HTTP server (starlette on uvicorn, 127.0.0.1, a free port, a background thread)
answers ``POST /v1/messages`` with the JSON body of a ``Message``, or with ``stream: true``
the real SSE sequence: ``message_start``, ``ping``, per block ``content_block_start`` /
``content_block_delta`` (``text_delta``; ``thinking_delta`` + ``signature_delta``;
``input_json_delta``) / ``content_block_stop``, ``message_delta`` with usage, ``message_stop``.
Errors use the real envelope ``{"type": "error", "error": {"type", "message"}}`` with
``request-id`` and, for rate limits, ``retry-after`` headers.

Each test scripts a queue of replies and errors and reads back the requests received::

    fake.enqueue(FakeError.overloaded(), FakeReply.of_text("hello"))
    ... call the real SDK with base_url=fake.base_url ...
    assert fake.requests[1].body["model"] == "claude-sonnet-4-6"

When the queue is empty, a responder set with :meth:`FakeAnthropic.respond_with` answers
instead (queued items still come first): :func:`extractive_reply` answers a question from the
memory context in the system prompt and grades a judge prompt (``Gold answer:`` /
``Generated answer:``) by word overlap, deterministically, so that a whole question-answering
run works offline. Without a queued item or a responder, a request gets HTTP 500.

Needs the ``api`` extra (starlette, uvicorn). Run it in a background thread::

    with FakeAnthropicServer() as server:
        server.fake.respond_with(extractive_reply)
        model = AnthropicModel(api_key="test", base_url=server.url)
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from itertools import count
from typing import Any

from hippograph._extras import requires_extra

with requires_extra("api"):
    import uvicorn
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response, StreamingResponse
    from starlette.routing import Route

__all__ = [
    "FakeAnthropic",
    "FakeAnthropicServer",
    "FakeError",
    "FakeReply",
    "FakeStreamError",
    "FakeText",
    "FakeThinking",
    "FakeToolUse",
    "RecordedRequest",
    "Responder",
    "extractive_reply",
]

JsonDict = dict[str, Any]


@dataclass(frozen=True)
class FakeText:
    """A text block."""

    text: str


@dataclass(frozen=True)
class FakeThinking:
    """An extended-thinking block with its signature."""

    thinking: str
    signature: str = "EqQBCkYIARgCIkB-fake-signature"


@dataclass(frozen=True)
class FakeToolUse:
    """A tool_use block; ``id`` is generated when omitted."""

    name: str
    input: JsonDict = field(default_factory=dict)
    id: str | None = None


FakeBlock = FakeText | FakeThinking | FakeToolUse


@dataclass(frozen=True)
class FakeReply:
    """A successful reply. ``stop_reason`` defaults from the blocks."""

    content: list[FakeBlock]
    stop_reason: str | None = None
    input_tokens: int = 12
    output_tokens: int = 7
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    chunk_size: int = 4

    @classmethod
    def of_text(cls, text: str, **kwargs: Any) -> FakeReply:
        """A text-only reply."""
        return cls(content=[FakeText(text)], **kwargs)

    def resolved_stop_reason(self) -> str:
        if self.stop_reason:
            return self.stop_reason
        return "tool_use" if any(isinstance(b, FakeToolUse) for b in self.content) else "end_turn"


@dataclass(frozen=True)
class FakeError:
    """An HTTP error reply in the API's error envelope."""

    status: int
    error_type: str
    message: str
    retry_after: float | None = None

    @classmethod
    def overloaded(cls) -> FakeError:
        """HTTP 529 ``overloaded_error``."""
        return cls(529, "overloaded_error", "Overloaded")

    @classmethod
    def rate_limited(cls, retry_after: float = 1.0) -> FakeError:
        """HTTP 429 ``rate_limit_error`` with a ``retry-after`` header."""
        return cls(
            429,
            "rate_limit_error",
            "Number of request tokens has exceeded your per-minute rate limit",
            retry_after,
        )

    @classmethod
    def invalid_request(cls, message: str = "max_tokens: Field required") -> FakeError:
        """HTTP 400 ``invalid_request_error``."""
        return cls(400, "invalid_request_error", message)


@dataclass(frozen=True)
class FakeStreamError:
    """A stream that starts (HTTP 200, ``message_start``) then sends an SSE ``error`` event."""

    error_type: str = "overloaded_error"
    message: str = "Overloaded"


FakeItem = FakeReply | FakeError | FakeStreamError
Responder = Callable[[JsonDict], FakeItem]
"""Builds the reply to a request (its JSON body) when no item is queued."""


@dataclass(frozen=True)
class RecordedRequest:
    """One request the fake received."""

    method: str
    path: str
    headers: dict[str, str]
    body: JsonDict

    @property
    def stream(self) -> bool:
        return bool(self.body.get("stream"))


class FakeAnthropic:
    """The scriptable state and the ASGI app of the fake API (thread-safe)."""

    def __init__(self, responder: Responder | None = None) -> None:
        self._lock = threading.Lock()
        self._responder = responder
        self._queue: deque[FakeItem] = deque()
        self._requests: list[RecordedRequest] = []
        self._ids = count(1)
        self.base_url = ""
        self.app = Starlette(
            routes=[Route("/v1/messages", self._messages, methods=["POST"])],
        )

    def enqueue(self, *items: FakeItem) -> None:
        """Append replies or errors, served one per request in order."""
        with self._lock:
            self._queue.extend(items)

    def respond_with(self, responder: Responder | None) -> None:
        """Answer every request that finds the queue empty with ``responder(body)`` (None: HTTP 500)."""
        with self._lock:
            self._responder = responder

    def reset(self) -> None:
        """Forget queued items, recorded requests and the responder."""
        with self._lock:
            self._queue.clear()
            self._requests.clear()
            self._responder = None

    @property
    def requests(self) -> list[RecordedRequest]:
        """The requests received so far, in order."""
        with self._lock:
            return list(self._requests)

    @property
    def pending(self) -> int:
        """Items still queued."""
        with self._lock:
            return len(self._queue)

    async def _messages(self, request: Request) -> Response:
        try:
            body = await request.json()
        except ValueError:
            return _error(FakeError.invalid_request("request body is not valid JSON"), "0")
        n = next(self._ids)
        with self._lock:
            self._requests.append(RecordedRequest("POST", request.url.path, dict(request.headers), body))
            item = self._queue.popleft() if self._queue else None
            responder = self._responder
        request_id = f"req_fake_{n:04d}"
        if not request.headers.get("x-api-key") and not request.headers.get("authorization"):
            return _error(FakeError(401, "authentication_error", "invalid x-api-key"), request_id)
        missing = [k for k in ("model", "max_tokens", "messages") if k not in body]
        if missing:
            return _error(FakeError.invalid_request(f"{missing[0]}: Field required"), request_id)
        if item is None and responder is not None:
            item = responder(body)
        if item is None:
            return _error(FakeError(500, "api_error", "fake: no reply scripted"), request_id)
        if isinstance(item, FakeError):
            return _error(item, request_id)
        message_id = f"msg_fake_{n:04d}"
        headers = {"request-id": request_id}
        if body.get("stream"):
            events = _sse(item, message_id=message_id, model=body["model"])
            return StreamingResponse(events, media_type="text/event-stream", headers=headers)
        if isinstance(item, FakeStreamError):
            return _error(FakeError(529, item.error_type, item.message), request_id)
        return JSONResponse(_message(item, message_id, body["model"]), headers=headers)


def _error(error: FakeError, request_id: str) -> JSONResponse:
    headers = {"request-id": request_id, "x-should-retry": "true"}
    if error.retry_after is not None:
        headers["retry-after"] = f"{error.retry_after:g}"
    envelope = {
        "type": "error",
        "error": {"type": error.error_type, "message": error.message},
        "request_id": request_id,
    }
    return JSONResponse(envelope, status_code=error.status, headers=headers)


def _usage(reply: FakeReply, *, output_tokens: int) -> JsonDict:
    return {
        "input_tokens": reply.input_tokens,
        "cache_creation_input_tokens": reply.cache_creation_input_tokens,
        "cache_read_input_tokens": reply.cache_read_input_tokens,
        "output_tokens": output_tokens,
    }


def _tool_id(block: FakeToolUse, message_id: str, index: int) -> str:
    return block.id or f"toolu_{message_id[4:]}_{index}"


def _block_json(block: FakeBlock, message_id: str, index: int) -> JsonDict:
    if isinstance(block, FakeText):
        return {"type": "text", "text": block.text}
    if isinstance(block, FakeThinking):
        return {"type": "thinking", "thinking": block.thinking, "signature": block.signature}
    return {
        "type": "tool_use",
        "id": _tool_id(block, message_id, index),
        "name": block.name,
        "input": block.input,
    }


def _message(reply: FakeReply, message_id: str, model: str) -> JsonDict:
    return {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [_block_json(b, message_id, i) for i, b in enumerate(reply.content)],
        "stop_reason": reply.resolved_stop_reason(),
        "stop_sequence": None,
        "usage": _usage(reply, output_tokens=reply.output_tokens),
    }


def _event(name: str, data: JsonDict) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()


def _chunks(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def _block_events(block: FakeBlock, message_id: str, index: int, size: int) -> Iterator[bytes]:
    def delta(payload: JsonDict) -> bytes:
        return _event("content_block_delta", {"type": "content_block_delta", "index": index, "delta": payload})

    if isinstance(block, FakeText):
        start: JsonDict = {"type": "text", "text": ""}
        deltas = [delta({"type": "text_delta", "text": c}) for c in _chunks(block.text, size)]
    elif isinstance(block, FakeThinking):
        start = {"type": "thinking", "thinking": "", "signature": ""}
        deltas = [delta({"type": "thinking_delta", "thinking": c}) for c in _chunks(block.thinking, size)]
        deltas.append(delta({"type": "signature_delta", "signature": block.signature}))
    else:
        start = {
            "type": "tool_use",
            "id": _tool_id(block, message_id, index),
            "name": block.name,
            "input": {},
        }
        raw = json.dumps(block.input)
        deltas = [delta({"type": "input_json_delta", "partial_json": ""})]
        deltas += [delta({"type": "input_json_delta", "partial_json": c}) for c in _chunks(raw, size)]
    yield _event(
        "content_block_start",
        {"type": "content_block_start", "index": index, "content_block": start},
    )
    yield from deltas
    yield _event("content_block_stop", {"type": "content_block_stop", "index": index})


def _message_start(message_id: str, model: str, usage: JsonDict) -> bytes:
    message: JsonDict = {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage,
    }
    return _event("message_start", {"type": "message_start", "message": message})


async def _sse(item: FakeReply | FakeStreamError, *, message_id: str, model: str) -> AsyncIterator[bytes]:
    if isinstance(item, FakeStreamError):
        usage = {"input_tokens": 1, "output_tokens": 1}
        yield _message_start(message_id, model, usage)
        error = {"type": "error", "error": {"type": item.error_type, "message": item.message}}
        yield _event("error", error)
        return
    yield _message_start(message_id, model, _usage(item, output_tokens=1))
    yield _event("ping", {"type": "ping"})
    for index, block in enumerate(item.content):
        for chunk in _block_events(block, message_id, index, item.chunk_size):
            yield chunk
    delta = {"stop_reason": item.resolved_stop_reason(), "stop_sequence": None}
    yield _event(
        "message_delta",
        {"type": "message_delta", "delta": delta, "usage": {"output_tokens": item.output_tokens}},
    )
    yield _event("message_stop", {"type": "message_stop"})


_WORD = re.compile(r"[a-z0-9]+")
_STOPWORDS = frozenset(
    "a about an and any are as at be been but by can did do does for from had has have he her him his how i "
    "if in into is it its me my of on or our she so some than that the their them then there these they "
    "this to was we were what when where which who whom why will with would you your".split()
)
_HANDLE = re.compile(r"^\s*\[id:[^\]]*\]\s*")
NOT_FOUND = "I don't know."
"""The extractive answer when no line of the context shares a word with the question."""


def extractive_reply(body: JsonDict) -> FakeReply:
    """A deterministic stand-in for a model that answers questions and grades answers.

    A judge prompt (its last user message has ``Gold answer:`` and ``Generated answer:`` lines;
    the last of each counts) gets one sentence and ``{"label": "CORRECT"}`` when the generated
    answer holds at least half of the gold answer's content words, else ``"WRONG"``. Any other
    request gets the line of the system prompt that shares most content words with the last
    user message (only the memory-context lines, those starting with ``[id:``, when there are
    any; the first line wins a tie), without its handle, or "I don't know." when no line shares
    a word. Usage counts are the characters of the request and the reply over 4.
    """
    prompt = _last_user_text(body)
    gold, generated = _field(prompt, "Gold answer:"), _field(prompt, "Generated answer:")
    if gold is not None and generated is not None:
        wanted = _content_words(gold)
        share = len(wanted & _content_words(generated)) / len(wanted) if wanted else 0.0
        label = "CORRECT" if wanted and share >= 0.5 else "WRONG"
        text = f'The generated answer holds {share:.0%} of the gold answer\'s words.\n{{"label": "{label}"}}'
    else:
        text = _best_line(_system_text(body), _content_words(prompt))
    return FakeReply.of_text(
        text,
        input_tokens=(len(json.dumps(body.get("messages", ""))) + len(_system_text(body))) // 4 + 1,
        output_tokens=len(text) // 4 + 1,
    )


def _content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOPWORDS}


def _last_user_text(body: JsonDict) -> str:
    for message in reversed(body.get("messages") or []):
        if isinstance(message, dict) and message.get("role") == "user":
            return _text_of(message.get("content"))
    return ""


def _system_text(body: JsonDict) -> str:
    return _text_of(body.get("system"))


def _text_of(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return ""


def _field(text: str, name: str) -> str | None:
    values = [line.split(name, 1)[1].strip() for line in text.splitlines() if line.strip().startswith(name)]
    return values[-1] if values else None


def _best_line(system: str, question: set[str]) -> str:
    lines = [line for line in system.splitlines() if line.strip()]
    handled = [line for line in lines if _HANDLE.match(line)]
    best, shared = "", 0
    for line in handled or lines:
        n = len(question & _content_words(_HANDLE.sub("", line)))
        if n > shared:
            best, shared = line, n
    return _HANDLE.sub("", best).strip() if shared else NOT_FOUND


class FakeAnthropicServer:
    """Runs a :class:`FakeAnthropic` on 127.0.0.1 (a free port) in a background thread."""

    def __init__(self, fake: FakeAnthropic | None = None) -> None:
        self.fake = fake or FakeAnthropic()
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._socket: socket.socket | None = None

    @property
    def url(self) -> str:
        return self.fake.base_url

    def start(self, timeout: float = 10.0) -> None:
        """Bind a free port, start serving, and wait until the server accepts requests."""
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self._socket = sock
        config = uvicorn.Config(
            self.fake.app,
            loop="asyncio",
            http="h11",
            lifespan="off",
            log_level="warning",
            access_log=False,
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [sock]}, name="fake-anthropic", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                self.stop()
                raise RuntimeError("the fake Anthropic API did not start")
            time.sleep(0.01)
        self.fake.base_url = f"http://127.0.0.1:{sock.getsockname()[1]}"

    def stop(self) -> None:
        """Stop serving and release the port."""
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
        if self._socket is not None:
            self._socket.close()
        self._server = self._thread = self._socket = None

    def __enter__(self) -> FakeAnthropicServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
