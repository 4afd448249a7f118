"""The MCP server: hippograph's memory as tools for any MCP host (Claude Desktop, Claude Code,
IDEs), over stdio or streamable HTTP on 127.0.0.1, built on the official ``mcp`` SDK.

The server is bound to ONE API key: every tool call acts on that key's scope (or a scope
below it), with the key's role, checked against Neo4j on every call, so a revoked key stops
at once and a key of one tenant never reaches another. ``hippograph mcp --key …`` starts it;
:func:`build_server` builds it for embedding in another process.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hippograph.app.mcp.server import build_server

__all__ = ["build_server"]


def __getattr__(name: str) -> Any:
    if name == "build_server":
        from hippograph.app.mcp.server import build_server

        return build_server
    raise AttributeError(f"module 'hippograph.app.mcp' has no attribute {name!r}")
