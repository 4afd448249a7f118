"""The MCP server: hippograph's memory as tools for any MCP host (Claude Desktop, Claude Code,
IDEs), over stdio or streamable HTTP on 127.0.0.1, built on the official ``mcp`` SDK.

The server is bound to ONE API key: every tool call acts on that key's scope (or a scope
below it), with the key's role, checked against Neo4j on every call, so a revoked key stops
at once and a key of one tenant never reaches another. ``hippograph mcp --key …`` starts it;
:func:`build_server` builds it for embedding in another process.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hippograph._lazy import lazy_exports

if TYPE_CHECKING:
    from hippograph.app.mcp.server import build_server

_EXPORTS: dict[str, tuple[str, str]] = {"build_server": ("hippograph.app.mcp.server", "build_server")}

__all__ = ["build_server"]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
