"""The settings of one external MCP server the agent uses as a client (see
:mod:`hippograph.agent.mcp_client`); plain data, no SDK import."""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = ["McpServerSettings"]

_SERVER_NAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]|_(?!_))*$")


class McpServerSettings(BaseModel):
    """One external MCP server whose tools the agent offers the model: ``command`` (stdio) or
    ``url`` (streamable HTTP), exactly one.

    Example:
        >>> files = McpServerSettings(
        ...     name="files", command="npx", args=("-y", "@modelcontextprotocol/server-filesystem", "/srv")
        ... )
        >>> remote = McpServerSettings(
        ...     name="tickets", url="https://mcp.example.com/mcp", headers={"Authorization": "Bearer …"}
        ... )
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1, max_length=32)
    """The namespace of the server's tools (``mcp__<name>__<tool>``): letters, digits, ``-`` and
    single ``_``."""
    command: str | None = Field(default=None, min_length=1)
    """stdio: the program to spawn (the agent talks to it over its stdin and stdout)."""
    args: tuple[str, ...] = ()
    env: dict[str, str] = Field(default_factory=dict, repr=False)
    """stdio: environment variables for the program, over a minimal inherited set (``PATH``,
    ``HOME``, …): the agent's own environment is not passed on."""
    cwd: str | None = None
    url: str | None = Field(default=None, pattern=r"^https?://")
    """Streamable HTTP: the server's endpoint, e.g. ``http://127.0.0.1:8765/mcp``."""
    headers: dict[str, str] = Field(default_factory=dict, repr=False)
    """Streamable HTTP: headers of every request (``Authorization: Bearer …``)."""
    tools: tuple[str, ...] | None = None
    """Offer only these of the server's tools (their own names); None: all of them."""
    connect_timeout: float = Field(default=30.0, gt=0)
    """Seconds to start (or reach) the server and list its tools."""
    retry_seconds: float = Field(default=30.0, ge=0)
    """After a failed connection, turns do not try this server again for this long."""

    @model_validator(mode="after")
    def _one_transport(self) -> McpServerSettings:
        if not _SERVER_NAME.match(self.name):
            raise ValueError("name: letters, digits, '-' and single '_' only")
        if (self.command is None) == (self.url is None):
            raise ValueError("give exactly one of command (stdio) or url (streamable HTTP)")
        return self
