"""The MCP server as an MCP host runs it: a subprocess spoken to by the SDK's own client, over
stdio and over streamable HTTP, against the real Neo4j; keys from the API's key store."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from hippograph.app.access.keys import create_key
from hippograph.app.access.repository import KeyRepository
from hippograph.scope import Scope
from hippograph.store import GraphStore, Neo4jConnection
from tests.e2e.api.harness import free_port
from tests.support.cli import CLI, cli_env

TOOLS = {"recall", "remember", "retract", "set_trigger", "pending_triggers", "consolidate"}


@dataclass(frozen=True)
class Tenant:
    scope: Scope
    token: str


def stdio(token: str, env: dict[str, str]) -> Client:
    args = ["-m", "hippograph.app.cli", "mcp", "--key", token, "--embedder", "hashing"]
    return Client(StdioServerParameters(command=sys.executable, args=args, env=env), read_timeout_seconds=120)


async def new_tenant(conn: Neo4jConnection, name: str, role: str = "writer") -> Tenant:
    repo = KeyRepository(conn)
    await repo.apply_schema()
    scope = Scope.root("org", f"mcp-{name}-{uuid.uuid4().hex[:8]}").child("user", name)
    _, token = await create_key(repo, scope, role, name=f"mcp test {name}")
    return Tenant(scope, token)


@pytest.fixture
async def ana(conn: Neo4jConnection, store: GraphStore) -> AsyncIterator[Tenant]:
    tenant = await new_tenant(conn, "ana")
    yield tenant
    await store.delete_subtree(tenant.scope.ancestors()[0])


@pytest.fixture
async def bob(conn: Neo4jConnection, store: GraphStore) -> AsyncIterator[Tenant]:
    tenant = await new_tenant(conn, "bob")
    yield tenant
    await store.delete_subtree(tenant.scope.ancestors()[0])


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    assert isinstance(result.structured_content, dict)
    return result.structured_content


async def call_error(client: Client, tool: str, **arguments: Any) -> str:
    result = await client.call_tool(tool, arguments)
    assert result.is_error, result.structured_content
    return " ".join(getattr(block, "text", "") for block in result.content)


async def test_stdio_tools_recall_explained_round_trip_retract_triggers(
    neo4j_server: tuple[str, str], tmp_path: Path, ana: Tenant, bob: Tenant
) -> None:
    env = cli_env(neo4j_server, tmp_path)
    async with stdio(ana.token, env) as client:
        listed = await client.list_tools()
        assert {t.name for t in listed.tools} == TOOLS
        recall_tool = next(t for t in listed.tools if t.name == "recall")
        assert "why" in (recall_tool.description or "") and "query" in recall_tool.input_schema["properties"]

        lisbon = await call(client, "remember", text="Ana lives in Lisbon.", about="Ana's home", key="ana.home")
        porto = await call(client, "remember", text="Ana moved to Porto in May.", about="Ana's home", key="ana.home")
        await call(client, "remember", text="Ana adopted a grey cat called Miso.", about="Ana's cat")
        assert porto["scope_key"] == ana.scope.key and lisbon["id"] != porto["id"]

        found = await call(client, "recall", query="Where does Ana live now?", top_k=5)
        assert found["scope_key"] == ana.scope.key and found["items"]
        top = found["items"][0]
        assert top["id"] == porto["id"] and top["current"] is True
        assert top["found_by"] and top["explanation"].startswith("found by")
        assert "score" in top["explanation"] and top["score_parts"]["relevance"] > 0
        ids = [i["id"] for i in found["items"]]
        assert lisbon["id"] not in ids or not next(i for i in found["items"] if i["id"] == lisbon["id"])["current"]

        cat = await call(client, "recall", query="What is the name of Ana's cat?", top_k=3)
        assert "Miso" in cat["items"][0]["text"]

        retracted = await call(client, "retract", id=porto["id"], reason="moved back")
        assert retracted == {"id": porto["id"], "scope_key": ana.scope.key, "retracted": True, "reason": "moved back"}
        after = await call(client, "recall", query="Where does Ana live now?", top_k=5)
        assert porto["id"] not in [i["id"] for i in after["items"]]

        trigger = await call(
            client, "set_trigger", condition="Ana's sister visits", task="suggest the Ribeira", due="2026-12-12"
        )
        assert trigger["due"].startswith("2026-12-12")
        pending = await call(client, "pending_triggers")
        assert [t["id"] for t in pending["triggers"]] == [trigger["id"]]
        assert pending["triggers"][0]["task"] == "suggest the Ribeira"

        report = await call(client, "consolidate", mode="quick")
        assert report["scope_key"] == ana.scope.key and report["entry_point"] == "quick_nap"
        assert report["phases_run"]

        # bad input: a clear tool error naming what was wrong, nothing written
        assert "top_k" in await call_error(client, "recall", query="anything", top_k=0)
        assert "scope" in await call_error(client, "recall", query="anything", scope="org:a/b")
        assert "id" in await call_error(client, "retract", id="no-such-memory", reason="test")
        assert "due" in await call_error(client, "set_trigger", condition="x", task="y", due="next tuesday")
        assert "mode" in await call_error(client, "consolidate", mode="forever")

    async with stdio(bob.token, env) as other:
        # Bob's key never reaches Ana's scope, and his own recall never returns her memories.
        assert "not found" in await call_error(other, "recall", query="Miso", scope=ana.scope.key)
        assert "not found" in await call_error(other, "retract", id=lisbon["id"], reason="x", scope=ana.scope.key)
        assert "not found" in await call_error(other, "pending_triggers", scope=ana.scope.key)
        mine = await call(other, "recall", query="What is the name of Ana's cat? Miso", top_k=10)
        assert all(i["scope_key"].startswith(bob.scope.key) for i in mine["items"])
        assert not any("Miso" in i["text"] for i in mine["items"])
        assert "id" in await call_error(other, "retract", id=lisbon["id"], reason="not mine")


async def test_remember_stores_the_text_as_given(
    neo4j_server: tuple[str, str], tmp_path: Path, ana: Tenant, store: GraphStore
) -> None:
    text = "  Ana's packing list:\n\n\t- passport\n\t- café ☕ \n"
    async with stdio(ana.token, cli_env(neo4j_server, tmp_path)) as client:
        fact = await call(client, "remember", text=text, about=" packing ", key="ana.packing")
        event = await call(client, "remember", text=text + "\n", layer="episodic")
        assert "must not be blank" in await call_error(client, "remember", text=" \n ", layer="episodic")
    stored = [await store.get_node(ana.scope, m["id"]) for m in (fact, event)]
    assert [(s.label, s.content) if s else None for s in stored] == [
        ("packing", text),
        ("Ana's packing list: - passport - café ☕", text + "\n"),
    ]


async def test_a_reader_key_cannot_write(
    neo4j_server: tuple[str, str], tmp_path: Path, conn: Neo4jConnection, store: GraphStore
) -> None:
    reader = await new_tenant(conn, "reader", role="reader")
    try:
        async with stdio(reader.token, cli_env(neo4j_server, tmp_path)) as client:
            assert "writer" in await call_error(client, "remember", text="I should not be stored.")
            assert (await call(client, "pending_triggers"))["triggers"] == []
    finally:
        await store.delete_subtree(reader.scope.ancestors()[0])


def test_an_unknown_key_stops_the_server_with_a_clear_error(neo4j_server: tuple[str, str], tmp_path: Path) -> None:
    done = subprocess.run(
        [*CLI, "mcp", "--key", "hg_not-a-key", "--embedder", "hashing"],
        env=cli_env(neo4j_server, tmp_path),
        input="",
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 1, done.stderr[-2000:]
    assert "missing or invalid API key" in done.stderr and done.stdout == ""


async def test_streamable_http(neo4j_server: tuple[str, str], tmp_path: Path, ana: Tenant, bob: Tenant) -> None:
    port = free_port()
    env = cli_env(neo4j_server, tmp_path)
    command = [*CLI, "mcp", "--http", "--port", str(port), "--key", ana.token, "--embedder", "hashing"]
    server = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        deadline = time.time() + 180
        while True:
            try:
                answer = httpx.post(url, json={}, timeout=5)
                break
            except httpx.TransportError:
                assert server.poll() is None and time.time() < deadline, server.stderr.read() if server.stderr else ""
                time.sleep(0.5)
        assert answer.status_code == 401  # no key
        wrong = httpx.post(url, json={}, headers={"Authorization": f"Bearer {bob.token}"}, timeout=5)
        assert wrong.status_code == 401  # another key than the server's

        headers = {"Authorization": f"Bearer {ana.token}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=120) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            assert {t.name for t in (await client.list_tools()).tools} == TOOLS
            stored = await call(client, "remember", text="Ana's favourite tram is the 28.", key="ana.tram")
            found = await call(client, "recall", query="Which tram does Ana like?", top_k=3)
            assert found["items"][0]["id"] == stored["id"]
            assert json.dumps(found["items"][0]["found_by"]) != "{}"
            assert "not found" in await call_error(client, "recall", query="x", scope=bob.scope.key)
    finally:
        server.terminate()
        server.wait(timeout=60)


async def test_tools_take_a_namespace_of_the_keys_path(
    neo4j_server: tuple[str, str], tmp_path: Path, ana: Tenant, conn: Neo4jConnection
) -> None:
    env = cli_env(neo4j_server, tmp_path)
    support = ana.scope.in_namespace("support")
    async with stdio(ana.token, env) as client:
        shared = await call(client, "remember", text="Ana prefers email over phone calls.", about="contact")
        ticket = await call(
            client, "remember", text="Ana's router ticket is open.", about="ticket", namespace="support"
        )
        lead = await call(
            client, "remember", text="Ana asked about the fibre upgrade.", about="lead", scope=f"{ana.scope.key}/@sales"
        )
        assert (shared["scope_key"], ticket["scope_key"]) == (ana.scope.key, support.key)
        assert lead["scope_key"] == ana.scope.in_namespace("sales").key

        seen = await call(
            client, "recall", query="Ana email phone router ticket fibre upgrade", top_k=10, namespace="support"
        )
        assert seen["scope_key"] == support.key
        ids = {i["id"] for i in seen["items"]}
        assert ticket["id"] in ids and shared["id"] in ids and lead["id"] not in ids
        assert "namespace" in await call_error(client, "recall", query="x", namespace="not a namespace")

    _, token = await create_key(KeyRepository(conn), support, "reader", name="mcp test support")
    async with stdio(token, env) as bound:
        own = await call(bound, "recall", query="Ana email phone router ticket fibre upgrade", top_k=10)
        assert own["scope_key"] == support.key and lead["id"] not in {i["id"] for i in own["items"]}
        assert "not found" in await call_error(bound, "recall", query="fibre", namespace="sales", scope=ana.scope.key)
        assert "not found" in await call_error(bound, "recall", query="fibre", scope=ana.scope.key)
