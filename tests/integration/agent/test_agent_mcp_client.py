"""The agent as an MCP client, against a real MCP server the test starts: hippograph's own
(``hippograph mcp``), spawned over stdio by the agent and served over streamable HTTP by the
test. Its tools reach the model namespaced beside the memory tools, through triage routing; one
session per server serves every turn; failures are tool events, never a crashed turn."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from pydantic import JsonValue

from hippograph.agent import (
    AgentConfig,
    McpServerSettings,
    McpTools,
    MemoryTools,
    ToolLoopSettings,
    TriageSettings,
)
from hippograph.agent.events import StageFailed, ToolResult, ToolRoutingDecision
from hippograph.agent.intent import Intent, TriageMode
from hippograph.app.access.keys import create_key
from hippograph.app.access.repository import KeyRepository
from hippograph.errors import InvalidInputError
from hippograph.llm import ScriptedModel, ScriptedReply, ScriptedToolCall
from hippograph.memory import Memory
from hippograph.scope import Scope
from hippograph.store import Neo4jConnection
from tests.integration.agent.conftest import MakeAgent
from tests.support.cli import CLI, cli_env

SERVER_TOOLS = {"recall", "remember", "retract", "set_trigger", "pending_triggers", "consolidate"}


def _call(name: str, **args: JsonValue) -> ScriptedReply:
    return ScriptedReply(tool_calls=[ScriptedToolCall(name=name, input=dict(args))])


async def _key(conn: Neo4jConnection, scope: Scope) -> str:
    repo = KeyRepository(conn)
    await repo.apply_schema()
    _, token = await create_key(repo, scope, "writer", name="agent mcp client test")
    return token


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _wait_for_port(port: int, process: subprocess.Popen[bytes], seconds: float = 90.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"the MCP server exited with {process.returncode}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise AssertionError("the MCP server did not start listening")


async def test_stdio_server_tools_beside_memory_tools_one_session_for_every_turn(
    tenant: Scope, memory: Memory, make_agent: MakeAgent, conn: Neo4jConnection, neo4j_server: tuple[str, str],
    tmp_path: Path,
) -> None:  # fmt: skip
    ana = tenant.child("user", "ana")
    token = await _key(conn, ana)
    server = McpServerSettings(
        name="hippo", command=sys.executable,
        args=(*CLI[1:], "mcp", "--key", token, "--embedder", "hashing"), env=cli_env(neo4j_server, tmp_path),
        connect_timeout=120,
    )  # fmt: skip
    model = ScriptedModel(
        [
            _call("mcp__hippo__remember", text="Ana adopted a grey cat called Miso.", about="Ana's cat"),
            _call("mcp__hippo__recall", query="What is the name of Ana's cat?", top_k=3),
            "Your cat is Miso.",
            _call("mcp__hippo__recall", query="anything", top_k=0),
            "I could not look that up.",
        ]
    )
    agent = make_agent(model, AgentConfig(mcp_servers=(server,)), capabilities=[MemoryTools(memory)])
    assert agent.mcp is not None and not agent.mcp.status()[0].connected  # opened lazily

    first = await agent.run(ana, "My cat is called Miso. What's my cat called?")

    offered = [t.name for t in model.requests[0].tools]
    assert offered[0] == "recall_memory"
    assert set(offered[1:]) == {f"mcp__hippo__{name}" for name in SERVER_TOOLS}
    remembered, recalled = first.tool_results
    assert remembered.name == "mcp__hippo__remember" and not remembered.is_error
    assert recalled.name == "mcp__hippo__recall" and not recalled.is_error and "Miso" in recalled.content
    assert first.text == "Your cat is Miso." and not first.errors

    second = await agent.run(ana, "Look up anything.", session_id=first.session_id)
    [failed] = second.tool_results
    assert failed.name == "mcp__hippo__recall" and failed.is_error and "top_k" in failed.content
    assert second.text == "I could not look that up."
    [status] = agent.mcp.status()
    assert status.connected and status.sessions_opened == 1  # the turns shared one session

    await agent.aclose()
    assert not agent.mcp.status()[0].connected


async def test_http_server_routed_by_triage_and_an_unreachable_server_is_a_tool_event(
    tenant: Scope, make_agent: MakeAgent, conn: Neo4jConnection, neo4j_server: tuple[str, str], tmp_path: Path
) -> None:
    ana = tenant.child("user", "ana")
    token = await _key(conn, ana)
    port, closed = _free_port(), _free_port()
    command = [*CLI, "mcp", "--http", "--port", str(port), "--key", token, "--embedder", "hashing"]
    process = subprocess.Popen(command, env=cli_env(neo4j_server, tmp_path), stderr=subprocess.DEVNULL)
    try:
        _wait_for_port(port, process)
        remote = McpServerSettings(
            name="remote", url=f"http://127.0.0.1:{port}/mcp", headers={"Authorization": f"Bearer {token}"},
            tools=("recall", "remember"),
        )  # fmt: skip
        down = McpServerSettings(name="down", url=f"http://127.0.0.1:{closed}/mcp", connect_timeout=3)
        triage = TriageSettings(
            intent_mode=TriageMode.ENFORCE, tool_routing_mode=TriageMode.ENFORCE,
            tool_intents={"mcp__remote__recall": Intent.KNOWLEDGE, "mcp__remote__remember": Intent.ACTION},
        )  # fmt: skip
        config = AgentConfig(mcp_servers=(remote, down), triage=triage, tools=ToolLoopSettings(timeout=20))
        model = ScriptedModel(
            [
                _call("mcp__remote__recall", query="Where does Ana live?"),
                "I have nothing on that yet.",
                _call("mcp__remote__recall", query="Where does Ana live?"),
                "The memory server is down.",
            ]
        )
        agent = make_agent(model, config)
        assert await agent.start() != []  # "down" is reported, "remote" connected

        first = await agent.run(ana, "Where does Ana live?")
        routing = next(e for e in first.events if isinstance(e, ToolRoutingDecision))
        assert routing.kept == ["mcp__remote__recall"] and routing.dropped == ["mcp__remote__remember"]
        assert [t.name for t in model.requests[0].tools] == ["mcp__remote__recall"]
        [recalled] = first.tool_results
        assert not recalled.is_error and ana.key in recalled.content

        process.terminate()
        process.wait(timeout=30)
        second = await agent.run(ana, "Where does Ana live?", session_id=first.session_id)
        results = [e for e in second.events if isinstance(e, ToolResult)]
        assert [(r.name, r.is_error) for r in results] == [("mcp__remote__recall", True)]
        assert second.text == "The memory server is down."
        await agent.aclose()
    finally:
        process.kill()
        process.wait(timeout=30)

    # the unreachable server: a tool-stage failure of the turn that tried, not a crash
    fresh = make_agent(ScriptedModel(["Hello.", "Hello again."]), AgentConfig(mcp_servers=(down,)))
    reply = await fresh.run(ana, "Hello")
    [unavailable] = [e for e in reply.events if isinstance(e, StageFailed)]
    assert unavailable.stage == "tools" and unavailable.error_type == "McpServerUnavailable"
    assert "'down'" in unavailable.message and reply.text == "Hello."
    again = await fresh.run(ana, "Hello", session_id=reply.session_id)
    assert not again.errors  # not retried before retry_seconds
    await fresh.aclose()


def test_server_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        McpServerSettings(name="x")
    with pytest.raises(ValueError, match="exactly one"):
        McpServerSettings(name="x", command="srv", url="http://127.0.0.1:1/mcp")
    with pytest.raises(ValueError, match="single '_'"):
        McpServerSettings(name="a__b", command="srv")
    one = McpServerSettings(name="same", command="srv")
    with pytest.raises(InvalidInputError, match="unique"):
        McpTools([one, one])
