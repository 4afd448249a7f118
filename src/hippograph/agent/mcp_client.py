"""The agent as an MCP client: the tools of external MCP servers, offered to the model beside
the memory tools.

Each server of ``AgentConfig.mcp_servers`` — a command the agent spawns (stdio) or a URL
(streamable HTTP) — gets ONE client session: opened by :meth:`Agent.start
<hippograph.agent.Agent.start>` or lazily by the first turn, reused by every turn after, closed
by :meth:`Agent.aclose <hippograph.agent.Agent.aclose>`. A server's tools are offered as
``mcp__<server>__<tool>`` (no two servers, and no server and the agent, can claim one name) and
go through the same triage routing as any tool (``TriageSettings.tool_intents`` and
``always_include_tools`` take the namespaced names).

Failures stay inside the turn: a call that fails — the server answered with an error, its
process died, its port closed, the call timed out — is a ``ToolResult`` with ``is_error`` the
model reads; a server that cannot be reached when a turn opens the sessions is a
``StageFailed`` (stage ``tools``, error ``McpServerUnavailable``) and the turn goes on without
its tools; a later turn tries again (at most once per ``retry_seconds``).

The SDK is the ``mcp`` extra (``pip install 'hippograph[mcp]'``), imported when a session opens.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import JsonValue

from hippograph._extras import requires_extra
from hippograph.agent.events import StageFailed
from hippograph.agent.mcp_settings import McpServerSettings
from hippograph.agent.stages import Stage
from hippograph.agent.tools import AgentTool, ToolHandler
from hippograph.errors import InvalidInputError
from hippograph.llm.types import ToolSpec

if TYPE_CHECKING:
    from mcp import Client
    from mcp_types import CallToolResult, Tool

    from hippograph.scope import Scope

__all__ = ["McpServerStatus", "McpToolError", "McpTools", "mcp_tool_name"]

log = logging.getLogger(__name__)

PREFIX = "mcp"
SEPARATOR = "__"
MAX_TOOL_NAME = 64
"""Longest tool name the model providers accept (``^[a-zA-Z0-9_-]{1,64}$``)."""
MAX_PAGES = 100
"""Pages of ``tools/list`` read at most: a server whose listing never ends cannot hang a turn."""
_TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def mcp_tool_name(server: str, tool: str) -> str:
    """The name the model sees for ``tool`` of ``server``: ``mcp__<server>__<tool>``."""
    return SEPARATOR.join((PREFIX, server, tool))


class McpToolError(Exception):
    """The MCP server answered a tool call with an error result (its text is the message)."""


@dataclass(frozen=True, slots=True)
class McpServerStatus:
    """Where one server's session stands."""

    name: str
    connected: bool
    sessions_opened: int
    """Sessions opened so far (1 while the first lives: turns reuse it)."""
    tools: tuple[str, ...]
    """The names offered to the model."""
    error: str | None
    """The last connection failure, if the server is not connected."""


class _Connection:
    """One server's client session, entered and left by a task of its own (the SDK's session
    lives in a task group that must be left by the task that entered it), so any turn may call
    through it and the agent may close it from anywhere."""

    def __init__(self, settings: McpServerSettings, call_timeout: float | None) -> None:
        self.settings = settings
        self.call_timeout = call_timeout
        self.tools: list[AgentTool] = []
        self.skipped: list[str] = []
        self.opened = 0
        self.error: str | None = None
        self.failed_at: float | None = None
        self._client: Client | None = None
        self._task: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()

    @property
    def connected(self) -> bool:
        return self._client is not None and self._task is not None and not self._task.done()

    def due(self, now: float) -> bool:
        """Not connected, and not failed within ``retry_seconds``."""
        if self.connected:
            return False
        return self.failed_at is None or now - self.failed_at >= self.settings.retry_seconds

    async def open(self) -> None:
        """Start the session and list the server's tools.

        Raises:
            Exception: The server could not be started, reached or listed in time.
        """
        await self.close()
        self._stop = asyncio.Event()
        ready: asyncio.Future[list[Tool]] = asyncio.get_running_loop().create_future()
        self._task = asyncio.create_task(self._serve(ready), name=f"mcp:{self.settings.name}")
        try:
            listed = await asyncio.wait_for(asyncio.shield(ready), self.settings.connect_timeout)
        except BaseException as exc:
            await self.close(cancel=True)
            if isinstance(exc, Exception):  # a cancelled turn is not the server's failure
                self.failed_at, self.error = time.monotonic(), _describe(exc)
            raise
        self.opened += 1
        self.failed_at, self.error = None, None
        self.tools, self.skipped = self._as_tools(listed)

    async def close(self, *, cancel: bool = False) -> None:
        """End the session (``cancel``: without waiting for it to finish starting)."""
        task, self._task = self._task, None
        if task is None:
            return
        self._stop.set()
        if cancel:
            task.cancel()
        try:
            await asyncio.wait_for(task, self.settings.connect_timeout)
        except TimeoutError:
            log.warning("MCP server %s did not close in time", self.settings.name)
        except asyncio.CancelledError:
            if not cancel:
                raise
        except Exception:
            log.warning("MCP server %s failed while closing", self.settings.name, exc_info=True)
        self._client = None

    async def _serve(self, ready: asyncio.Future[list[Tool]]) -> None:
        try:
            async with _client(self.settings) as client:
                listed = await _list_tools(client)
                self._client = client
                if not ready.done():
                    ready.set_result(listed)
                await self._stop.wait()
        except Exception as exc:
            if not ready.done():
                ready.set_exception(exc)
            else:
                self.error = _describe(exc)
                log.warning("MCP server %s: session ended: %s", self.settings.name, self.error)
        finally:
            self._client = None
            if not ready.done():
                ready.cancel()

    async def call(self, tool: str, arguments: dict[str, JsonValue]) -> JsonValue:
        client = self._client
        if client is None or not self.connected:
            raise McpToolError(f"MCP server {self.settings.name!r} is not connected")
        try:
            result = await client.call_tool(tool, dict(arguments), read_timeout_seconds=self.call_timeout)
        except Exception as exc:
            if _session_broken(exc):
                self._stop.set()  # end it; the next turn reconnects
                self.error = _describe(exc)
            raise
        if result.is_error:
            raise McpToolError(_text(result) or "the tool reported an error")
        return _content(result)

    def _as_tools(self, listed: Sequence[Tool]) -> tuple[list[AgentTool], list[str]]:
        wanted = None if self.settings.tools is None else set(self.settings.tools)
        tools: list[AgentTool] = []
        skipped: list[str] = []
        for tool in listed:
            if wanted is not None and tool.name not in wanted:
                continue
            name = mcp_tool_name(self.settings.name, tool.name)
            if not _TOOL_NAME.match(name):
                skipped.append(tool.name)
                continue
            tools.append(AgentTool(_spec(name, tool), self._handler(tool.name)))
        return tools, skipped

    def _handler(self, tool: str) -> ToolHandler:
        async def handle(arguments: dict[str, JsonValue]) -> JsonValue:
            return await self.call(tool, arguments)

        return handle


class McpTools:
    """The tools of MCP servers, as a capability: ``Agent`` registers one for
    ``AgentConfig.mcp_servers``; register one yourself (``Agent(capabilities=[McpTools(...)])``)
    to share servers between agents or to give them other settings.

    Args:
        servers: The servers, with distinct names.
        name: The capability's name (unique among an agent's capabilities).
        call_timeout: Seconds one tool call may wait for its answer (the tool loop's own
            timeout stops it in any case).

    Raises:
        InvalidInputError: Two servers share a name.
    """

    def __init__(
        self, servers: Sequence[McpServerSettings], *, name: str = "mcp", call_timeout: float | None = None
    ) -> None:
        names = [s.name for s in servers]
        if len(set(names)) != len(names):
            raise InvalidInputError("mcp_servers", f"server names must be unique: {names}")
        self._connections = [_Connection(s, call_timeout) for s in servers]
        self._name = name
        self._lock = asyncio.Lock()

    @property
    def name(self) -> str:
        return self._name

    def tools(self, scope: Scope) -> Sequence[AgentTool]:
        """The tools of the servers connected (the same for every scope: an MCP server is shared
        by every scope the agent serves)."""
        return [tool for c in self._connections if c.connected for tool in c.tools]

    async def open(self) -> list[StageFailed]:
        """Connect the servers not connected (and not failed within their ``retry_seconds``), at
        once; one ``StageFailed`` per server that could not be reached or whose tools were left
        out."""
        async with self._lock:
            now = time.monotonic()
            due = [c for c in self._connections if c.due(now)]
            if not due:
                return []
            outcomes = await asyncio.gather(*(c.open() for c in due), return_exceptions=True)
        failures: list[StageFailed] = []
        for connection, outcome in zip(due, outcomes, strict=True):
            name = connection.settings.name
            if isinstance(outcome, BaseException):
                if not isinstance(outcome, Exception):
                    raise outcome
                log.warning("MCP server %s unavailable: %s", name, connection.error)
                failures.append(
                    StageFailed(
                        stage=Stage.TOOLS,
                        error_type="McpServerUnavailable",
                        message=f"MCP server {name!r}: {connection.error}"[:500],
                    )
                )
            elif connection.skipped:
                failures.append(
                    StageFailed(
                        stage=Stage.TOOLS,
                        error_type="McpToolSkipped",
                        message=f"MCP server {name!r}: tool names too long or invalid: {', '.join(connection.skipped)}"[
                            :500
                        ],
                    )
                )
        return failures

    async def aclose(self) -> None:
        """Close every session (stdio servers exit)."""
        async with self._lock:
            for connection in self._connections:
                await connection.close()

    def status(self) -> list[McpServerStatus]:
        """Each server's session: connected or not, sessions opened, tools offered, last error."""
        return [
            McpServerStatus(
                name=c.settings.name,
                connected=c.connected,
                sessions_opened=c.opened,
                tools=tuple(t.name for t in c.tools) if c.connected else (),
                error=None if c.connected else c.error,
            )
            for c in self._connections
        ]


@asynccontextmanager
async def _client(s: McpServerSettings) -> AsyncIterator[Client]:
    with requires_extra("mcp"):
        import httpx2
        from mcp import Client, StdioServerParameters
        from mcp.client.streamable_http import streamable_http_client
    if s.url is not None:
        timeout = httpx2.Timeout(s.connect_timeout, read=300.0)
        http = httpx2.AsyncClient(headers=dict(s.headers), timeout=timeout)
        async with http, Client(streamable_http_client(s.url, http_client=http)) as client:
            yield client
        return
    assert s.command is not None
    params = StdioServerParameters(command=s.command, args=list(s.args), env=dict(s.env) or None, cwd=s.cwd)
    async with Client(params) as client:
        yield client


async def _list_tools(client: Client) -> list[Tool]:
    listed: list[Tool] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        page = await client.list_tools(cursor=cursor)
        listed.extend(page.tools)
        cursor = page.next_cursor
        if cursor is None:
            break
    return listed


def _spec(name: str, tool: Tool) -> ToolSpec:
    description = (tool.description or tool.title or tool.name).strip()
    schema: dict[str, JsonValue] = json.loads(json.dumps(tool.input_schema or {"type": "object"}, default=str))
    schema.setdefault("type", "object")
    return ToolSpec(name=name, description=description[:4000], input_schema=schema)


def _text(result: CallToolResult) -> str:
    parts: list[str] = []
    for block in result.content:
        text = getattr(block, "text", None)
        parts.append(text if isinstance(text, str) else f"[{block.type} content]")
    return "\n".join(parts)


def _content(result: CallToolResult) -> JsonValue:
    """The result for the model: its text blocks, else its structured content."""
    text = _text(result)
    if text or result.structured_content is None:
        return text
    structured: JsonValue = json.loads(json.dumps(result.structured_content, default=str))
    return structured


def _session_broken(exc: BaseException) -> bool:
    """The transport failed or the connection closed (not an error the server answered with)."""
    with requires_extra("mcp"):
        from mcp.shared.exceptions import MCPError
        from mcp_types import CONNECTION_CLOSED
    return not isinstance(exc, MCPError) or exc.code == CONNECTION_CLOSED


def _describe(exc: BaseException) -> str:
    """One line for an exception, the first leaf of a group (the SDK's task groups wrap them)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, TimeoutError | asyncio.TimeoutError):
        return "timed out"
    return f"{type(exc).__name__}: {exc}"[:400]
