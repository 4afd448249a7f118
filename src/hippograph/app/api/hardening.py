"""The HTTP edge's own guards, in one ASGI middleware outside every route:

- a request body larger than the limit is refused with 413 ``PAYLOAD_TOO_LARGE`` before any
  route parses it — at once when ``Content-Length`` says so, and for a chunked body (no
  ``Content-Length``) as soon as the bytes read pass the limit;
- every response carries ``Content-Security-Policy``, ``X-Content-Type-Options: nosniff``,
  ``Referrer-Policy: no-referrer`` and ``X-Frame-Options: DENY``; the policy allows scripts
  from this origin only, except on GraphiQL's page, whose policy also allows the CDN its
  page loads from and the hash of its one inline script (both read from the page itself);

A WebSocket's ``Origin`` is checked by the GraphQL router itself (Strawberry's
``allowed_origins``, fed from ``ws_allowed_origins``): the server's own origin and the listed
ones are let in, every other page's handshake is refused with 403.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re

from starlette.types import ASGIApp, Message, Receive, Scope, Send

PAYLOAD_TOO_LARGE = "PAYLOAD_TOO_LARGE"
IMPORT_PATH = "/v1/import"
GRAPHQL_PATH = "/graphql"

_COMMON_POLICY = (
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
)
DEFAULT_CSP = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        # the graph views' libraries insert <style> elements and set style attributes
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data: blob:",
        "font-src 'self' data:",
        "connect-src 'self'",
        "worker-src 'self' blob:",
        *_COMMON_POLICY,
    )
)
"""Every response but GraphiQL's page: the dashboard's scripts, workers, styles and requests
come from this origin only (``'self'`` covers its same-origin WebSocket); inline styles are
allowed, inline scripts are not."""

STATIC_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
)

_SCRIPT = re.compile(r"<script\b([^>]*)>(.*?)</script>", re.S | re.I)
_SOURCE = re.compile(r"""\b(?:src|href)\s*=\s*["'](https://[^"'/]+)/""", re.I)


def ide_policy(html: str) -> str:
    """The policy of an IDE page: ``'self'`` plus the https origins the page loads scripts and
    styles from (their integrity hashes pin the files) and the sha256 of each inline script."""
    origins = " ".join(sorted(set(_SOURCE.findall(html))))
    hashes = " ".join(
        f"'sha256-{base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()}'"
        for attrs, body in _SCRIPT.findall(html)
        if "src" not in attrs.lower() and body.strip()
    )
    return "; ".join(
        (
            "default-src 'self'",
            f"script-src 'self' {origins} {hashes}".strip(),
            # GraphiQL's page has a <style> block and its editor sets inline styles
            f"style-src 'self' 'unsafe-inline' {origins}".strip(),
            f"img-src 'self' data: {origins}".strip(),
            f"font-src 'self' data: {origins}".strip(),
            "connect-src 'self'",
            *_COMMON_POLICY,
        )
    )


class EdgeGuard:
    """The body-size limit and the security headers (see the module)."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        max_body_bytes: int,
        max_import_bytes: int,
        ide_csp: str | None = None,
    ) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.max_import_bytes = max_import_bytes
        self.ide_csp = ide_csp or DEFAULT_CSP

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        send = self._with_headers(scope, send)
        limit = self.max_import_bytes if scope.get("path") == IMPORT_PATH else self.max_body_bytes
        declared = _header(scope, b"content-length")
        if declared is not None:
            if declared.strip().isdigit() and int(declared) > limit:
                await _too_large(send, limit, scope)
                return
            await self.app(scope, _capped(receive, limit), send)
            return
        # no Content-Length (a chunked body): read it up to the limit before any route sees it
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client left before its body ended
                return
            size += len(message.get("body", b""))
            if size > limit:
                await _too_large(send, limit, scope)
                return
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        await self.app(scope, _replay(b"".join(chunks), receive), send)

    def _with_headers(self, scope: Scope, send: Send) -> Send:
        is_graphql = scope.get("path") == GRAPHQL_PATH

        async def wrapped(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                names = {name.lower() for name, _ in headers}
                html = any(n.lower() == b"content-type" and v.startswith(b"text/html") for n, v in headers)
                policy = self.ide_csp if is_graphql and html else DEFAULT_CSP
                extra = [*STATIC_HEADERS, (b"content-security-policy", policy.encode())]
                headers += [(name, value) for name, value in extra if name not in names]
                message = {**message, "headers": headers}
            await send(message)

        return wrapped


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return str(value.decode("latin-1"))
    return None


async def _too_large(send: Send, limit: int, scope: Scope) -> None:
    message = f"The request body is larger than {limit} bytes."
    if scope.get("path") == IMPORT_PATH:
        message += " Import larger files with `hippograph import`."
    body = json.dumps({"error": {"code": PAYLOAD_TOO_LARGE, "message": message}}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _capped(receive: Receive, limit: int) -> Receive:
    """``receive`` that stops a body longer than its ``Content-Length`` said (the server
    normally does) at the limit: the route sees a disconnect, never the surplus."""
    seen = 0

    async def wrapped() -> Message:
        nonlocal seen
        message = await receive()
        if message["type"] == "http.request":
            seen += len(message.get("body", b""))
            if seen > limit:
                return {"type": "http.disconnect"}
        return message

    return wrapped


def _replay(body: bytes, receive: Receive) -> Receive:
    """``receive`` that hands out the body read already, then the connection's own messages."""
    pending = True

    async def wrapped() -> Message:
        nonlocal pending
        if pending:
            pending = False
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return wrapped
