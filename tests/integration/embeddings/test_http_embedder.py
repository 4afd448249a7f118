"""The HTTP embedder against a local fake of an OpenAI-compatible ``/embeddings`` endpoint that
speaks the real wire format (``{"model", "input": [...]}`` in; ``{"object": "list", "data":
[{"object": "embedding", "embedding": [...], "index": i}], "model", "usage"}`` out): batches,
the answer's order, normalisation, the size learned from the first answer, retries with
backoff on 429/5xx and lost connections, and a refusal that is not retried."""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

pytest.importorskip("httpx")

from hippograph.embeddings import HashingEmbeddings, HttpEmbeddings
from hippograph.embeddings.http import EmbeddingServiceError

pytestmark = pytest.mark.integration

DIMS = 48


@dataclass
class FakeEndpoint:
    """What the fake server saw, and what it is told to do next."""

    url: str = ""
    bodies: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    fail_with: list[int] = field(default_factory=list)
    """Statuses to answer, one per request, before answering normally (0: drop the connection)."""


def _handler(state: FakeEndpoint) -> type[BaseHTTPRequestHandler]:
    model = HashingEmbeddings(DIMS)

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:  # keep the test output clean
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            state.bodies.append(body)
            state.headers.append({k.lower(): v for k, v in self.headers.items()})
            if self.path != "/v1/embeddings":
                return self._send(404, {"error": {"message": "not found", "type": "invalid_request_error"}})
            if state.fail_with:
                status = state.fail_with.pop(0)
                if status == 0:
                    self.connection.close()
                    return None
                return self._send(status, {"error": {"message": "busy", "type": "server_error"}}, retry_after="0")
            texts = body["input"]
            data = [
                # not normalised, and listed backwards: the client must use "index" and normalise
                {"object": "embedding", "embedding": [3.0 * x for x in model._vector(t)], "index": i}
                for i, t in enumerate(texts)
            ][::-1]
            usage = {"prompt_tokens": sum(len(t.split()) for t in texts), "total_tokens": 0}
            return self._send(200, {"object": "list", "data": data, "model": body["model"], "usage": usage})

        def _send(self, status: int, payload: dict[str, Any], retry_after: str | None = None) -> None:
            raw = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            if retry_after is not None:
                self.send_header("Retry-After", retry_after)
            self.end_headers()
            self.wfile.write(raw)

    return Handler


@pytest.fixture
def endpoint() -> Iterator[FakeEndpoint]:
    state = FakeEndpoint()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    state.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


async def test_batches_keep_order_are_normalised_and_learn_the_size(endpoint: FakeEndpoint) -> None:
    embedder = HttpEmbeddings(endpoint.url, "fake-embed", api_key="sk-test", batch_size=2, backoff=0.01)
    texts = ["deploy the web service", "bake bread", "water the plants", "call mum", "ship it"]
    assert await embedder.probe() == DIMS
    vectors = await embedder.embed_batch(texts)
    await embedder.aclose()
    expected = await HashingEmbeddings(DIMS).embed_batch(texts)
    assert len(vectors) == 5
    for got, want in zip(vectors, expected, strict=True):
        assert math.isclose(math.sqrt(sum(x * x for x in got)), 1.0, rel_tol=1e-9)
        assert got == pytest.approx(want)
    assert [b["input"] for b in endpoint.bodies[1:]] == [texts[0:2], texts[2:4], texts[4:5]]
    assert all(b["model"] == "fake-embed" and "dimensions" not in b for b in endpoint.bodies)
    assert endpoint.headers[-1]["authorization"] == "Bearer sk-test"


async def test_a_query_is_cached(endpoint: FakeEndpoint) -> None:
    embedder = HttpEmbeddings(endpoint.url, "fake-embed", dimensions=DIMS)
    first = await embedder.embed("where is the key")
    assert await embedder.embed("where is the key") == first
    await embedder.aclose()
    assert len(endpoint.bodies) == 1


async def test_busy_and_lost_connections_are_retried_with_backoff(endpoint: FakeEndpoint) -> None:
    endpoint.fail_with = [429, 503, 0]
    embedder = HttpEmbeddings(endpoint.url, "fake-embed", dimensions=DIMS, max_retries=3, backoff=0.01)
    (vector,) = await embedder.embed_batch(["hello"])
    await embedder.aclose()
    assert len(vector) == DIMS
    assert embedder.requests == 4


async def test_it_gives_up_after_its_retries(endpoint: FakeEndpoint) -> None:
    endpoint.fail_with = [503, 503, 503]
    embedder = HttpEmbeddings(endpoint.url, "fake-embed", dimensions=DIMS, max_retries=2, backoff=0.01)
    with pytest.raises(EmbeddingServiceError, match="503"):
        await embedder.embed_batch(["hello"])
    await embedder.aclose()
    assert embedder.requests == 3


async def test_a_refusal_is_not_retried_and_a_wrong_size_is_an_error(endpoint: FakeEndpoint) -> None:
    endpoint.fail_with = [401]
    embedder = HttpEmbeddings(endpoint.url, "fake-embed", dimensions=DIMS, backoff=0.01)
    with pytest.raises(EmbeddingServiceError, match="401"):
        await embedder.embed_batch(["hello"])
    assert embedder.requests == 1
    wrong = HttpEmbeddings(endpoint.url, "fake-embed", dimensions=DIMS + 1)
    with pytest.raises(EmbeddingServiceError, match=f"{DIMS}-d vector, not {DIMS + 1}-d"):
        await wrong.embed_batch(["hello"])
    await embedder.aclose()
    await wrong.aclose()
