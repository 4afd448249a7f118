"""Building the MCP server for one key and running it over stdio or streamable HTTP.

Over HTTP the server binds 127.0.0.1 only and every request must carry the same key as
``Authorization: Bearer <key>``: another local user cannot borrow the server's key by
connecting to its port.
"""

from __future__ import annotations

import hmac
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from contextlib import asynccontextmanager
from typing import Any

from mcp.server.mcpserver import MCPServer

from hippograph.app.access.keys import bearer_token
from hippograph.app.mcp.binding import KeyBinding, open_binding
from hippograph.app.mcp.tools import TOOLS
from hippograph.app.runtime import freeze_startup_objects
from hippograph.app.settings import Settings
from hippograph.embeddings.base import EmbeddingProvider

LOCALHOST = "127.0.0.1"
INSTRUCTIONS = (
    "Long-term memory (hippograph, on Neo4j). Call `recall` before answering anything that may depend "
    "on what the user said in earlier sessions; each item explains why it was recalled. Call `remember` "
    "for durable facts (give a `key` such as user.home_city so a newer fact supersedes the old one), "
    "`retract` for wrong ones, `set_trigger` / `pending_triggers` for plans and reminders."
)

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
Asgi = Callable[[Scope, Receive, Send], Awaitable[None]]


def build_server(
    token: str,
    settings: Settings | None = None,
    *,
    embedder: EmbeddingProvider | None = None,
    rate_limit: int = 600,
) -> MCPServer[KeyBinding]:
    """An MCP server acting for the key ``token``. Its lifespan connects to Neo4j and checks the
    key (an unknown or revoked key ends the server with ApiAuthError before it serves)."""

    @asynccontextmanager
    async def lifespan(_: MCPServer[KeyBinding]) -> AsyncIterator[KeyBinding]:
        async with open_binding(token, settings, embedder=embedder, rate_limit=rate_limit) as binding:
            freeze_startup_objects()
            yield binding

    server: MCPServer[KeyBinding] = MCPServer(
        "hippograph", instructions=INSTRUCTIONS, lifespan=lifespan, log_level="WARNING"
    )
    for tool in TOOLS:
        server.add_tool(tool)
    return server


def require_key(app: Asgi, token: str) -> Asgi:
    """Wrap an ASGI app: HTTP requests without ``Authorization: Bearer <token>`` get 401."""
    expected = token.encode()

    async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
            given = bearer_token(headers.get("authorization")) or ""
            if not hmac.compare_digest(given.encode(), expected):
                body = b'{"error": {"code": "UNAUTHENTICATED", "message": "missing or wrong API key"}}'
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer")],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await app(scope, receive, send)

    return guarded


def run_http(server: MCPServer[KeyBinding], token: str, port: int, *, log_level: str = "warning") -> None:
    """Serve streamable HTTP at ``http://127.0.0.1:<port>/mcp`` until interrupted."""
    import uvicorn

    app = server.streamable_http_app(host=LOCALHOST)
    uvicorn.run(require_key(app, token), host=LOCALHOST, port=port, log_level=log_level)
