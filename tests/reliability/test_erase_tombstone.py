"""An erase no reader can see through. Erasing an org of 4,000 memories takes several batches; from
the moment it starts (its tombstone) every read leaves the org out — the store's reads, every
GraphQL query of the real HTTP API, export, a subscription, the MCP tools that read, the saved
Browser queries — for a key above the org, a key bound to the org itself, and after a crash
mid-erase. A sibling org and the parent see all of their own, exactly as before. Erasing again
finishes the job, and then nothing of the org is left anywhere."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from mcp import Client as McpClient
from pydantic import SecretStr
from websockets.sync.client import connect

from hippograph.analysis.browser import saved_queries
from hippograph.app.access.keys import Role, create_key
from hippograph.app.access.repository import KeyRepository
from hippograph.app.mcp.server import build_server
from hippograph.app.settings import Settings
from hippograph.audit import list_audit, record_audit
from hippograph.embeddings import HashingEmbeddings
from hippograph.memory import Memory
from hippograph.models import Layer, MemoryEdge, MemoryNode, Relationship
from hippograph.ops import SetTrigger
from hippograph.scope import Scope
from hippograph.store import GraphStore, Neo4jConnection
from tests.e2e.api.harness import Client, Server

SECRET = "quillwort"
"""A word only the erased org's memories hold."""
QUERY = f"{SECRET} note about topic3"
ORG_MEMORIES = 4_000
SIBLING_MEMORIES = 300
PARENT_MEMORIES = 50
BATCH = 1000

GRAPHQL: dict[str, tuple[str, Callable[[Tree], dict[str, Any]]]] = {
    "viewer.scopes": ("{ viewer { scopes(first: 100) { edges { node { key } } } } }", lambda t: {}),
    "scope": (
        """query($s: String!) { scope(key: $s) { exists counts(listing: SUBTREE) { total byLayer { layer total } }
           children(first: 100) { edges { node { key counts { total } } } } } }""",
        lambda t: {"s": t.target.key},
    ),
    "memories.subtree": (
        """query($s: String!) { memories(scope: $s, first: 100, where: {listing: SUBTREE}) { totalCount
           edges { node { id scopeKey content neighbours(first: 5) { memory { id } edge { id scopeKey } }
           supersessionChain { id } auditEntries { id target scopeKey } } } } }""",
        lambda t: {"s": t.target.key},
    ),
    "memories.visible": (
        """query($s: String!) { memories(scope: $s, first: 100, where: {listing: VISIBLE, text: "note"}) {
           totalCount edges { node { id content } } } }""",
        lambda t: {"s": t.user.key},
    ),
    "memories.own": (
        "query($s: String!) { memories(scope: $s, first: 50) { totalCount edges { node { id content } } } }",
        lambda t: {"s": t.user.key},
    ),
    "node": ("query($id: ID!) { node(id: $id) { id content scopeKey } }", lambda t: {"id": t.probe}),
    "neighbourhood": (
        "query($id: ID!) { neighbourhood(id: $id, hops: 2) { nodes { id content } edges { id scopeKey } } }",
        lambda t: {"id": t.probe},
    ),
    "neighbourhood.parent": (
        "query($id: ID!) { neighbourhood(id: $id, hops: 2) { nodes { id content } edges { id scopeKey } } }",
        lambda t: {"id": t.parent_probe},
    ),
    "paths": (
        "query($a: ID!, $b: ID!) { paths(from: $a, to: $b) { nodes { id content } edges { id } } }",
        lambda t: {"a": t.probe, "b": t.parent_probe},
    ),
    "recall": (
        f'query($s: String!) {{ recall(scope: $s, query: "{QUERY}", first: 20) {{ items {{ memory {{ id content }}'
        " path { nodeId } } activation { seeds } } }",
        lambda t: {"s": t.user.key},
    ),
    "context": (
        f'query($s: String!) {{ context(scope: $s, query: "{SECRET} note") {{ text entries {{ id text }} }} }}',
        lambda t: {"s": t.user.key},
    ),
    "procedures": ("query($s: String!) { procedures(scope: $s) { id content } }", lambda t: {"s": t.user.key}),
    "triggers": ("query($s: String!) { triggers(scope: $s) { id content } }", lambda t: {"s": t.user.key}),
    "consolidationRuns": (
        "query($s: String!) { consolidationRuns(scope: $s) { runId scopeKey } }",
        lambda t: {"s": t.user.key},
    ),
    "stats": (
        """query($s: String!) { stats(scope: $s) { counts { total byLayer { layer total } } pendingLinks
           growth(days: 3) { day created } } }""",
        lambda t: {"s": t.target.key},
    ),
}
"""Every query the API offers that reads, with its variables for one reader's view (a Tree)."""

PARENTS_OWN = {"viewer.scopes", "scope", "memories.subtree", "stats", "neighbourhood.parent", "query_subtree", "audit"}
PARENTS_OWN |= {"retracted_memories", "memory_neighbourhood", "scope_tree"}
"""The parent's reads of its own subtree (export of it too); its other reads start at the org."""
MUTABLE = {"recall", "context"}
"""Reads whose answer may shift with what recall itself writes (access counts): compared by leak only."""


@dataclass(frozen=True)
class Tree:
    """One reader's view: the scope its listings target, a user below it, a memory it reads by id
    and a memory of the parent to walk to."""

    target: Scope
    user: Scope
    probe: str
    parent_probe: str


@dataclass
class World:
    parent: Scope
    org: Scope
    sibling: Scope
    alice: Scope
    sam: Scope
    org_ids: set[str]
    sibling_ids: set[str]
    parent_ids: set[str]
    fact_key: str
    probes: dict[str, str]
    """A memory of each tree that an edge links to the parent's ``probes["parent"]``."""


def ids_in(value: Any) -> set[str]:
    """Every string in an answer (ids, keys, texts), to intersect with the org's ids."""
    if isinstance(value, dict):
        return set().union(*(ids_in(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(ids_in(v) for v in value)) if value else set()
    return {value} if isinstance(value, str) else set()


def leaks(world: World, answer: Any) -> list[str]:
    """What of the erased org an answer shows: its key, its word, its memories' ids."""
    text = json.dumps(answer)
    found = [w for w in (world.org.key, SECRET) if w in text]
    return found + sorted(ids_in(answer) & world.org_ids)[:3]


async def _fill(store: GraphStore, scope: Scope, count: int, word: str) -> list[str]:
    embedder = HashingEmbeddings()
    ids: list[str] = []
    for start in range(0, count, BATCH):
        texts = [f"{word} note {i} about topic{i % 40} in {scope.id}" for i in range(start, min(count, start + BATCH))]
        vectors = await embedder.embed_batch(texts)
        nodes = [
            MemoryNode(layer=Layer.EPISODIC, label=f"{word} {i}", content=text, session_id=f"s{i // 100}", embedding=v)
            for i, (text, v) in enumerate(zip(texts, vectors, strict=True))
        ]
        edges = [MemoryEdge(source=a.id, target=b.id, relationship=Relationship.NEXT) for a, b in pairwise(nodes)]
        await store.add_nodes(scope, nodes, edges=edges)
        ids += [n.id for n in nodes]
    return ids


@pytest.fixture
async def world(store: GraphStore, conn: Neo4jConnection, api_repo: KeyRepository) -> AsyncIterator[World]:
    parent = Scope.root("platform", f"erase-{uuid.uuid4().hex[:8]}")
    org, sibling = parent.child("org", "gone"), parent.child("org", "kept")
    users = [org.child("team", f"t{t}").child("user", f"u{u}") for t in range(3) for u in range(2)]
    scopes = [org, *{u.parent for u in users if u.parent}, *users]
    memory = Memory(store, HashingEmbeddings())
    started = time.monotonic()
    org_ids: set[str] = set()
    for n, scope in enumerate(scopes):
        share = ORG_MEMORIES // len(scopes) + (1 if n < ORG_MEMORIES % len(scopes) else 0)
        org_ids.update(await _fill(store, scope, share, SECRET))
    sam = sibling.child("user", "sam")
    sibling_ids = set(await _fill(store, sam, SIBLING_MEMORIES, "kept"))
    parent_ids = set(await _fill(store, parent, PARENT_MEMORIES, "shared"))
    alice, key = users[0], "alice.city"
    probes = {"parent": sorted(parent_ids)[0]}
    for person, home, word in ((alice, "Lisbon", SECRET), (sam, "Oslo", "kept")):
        old = await memory.remember(person, f"{word} home", f"{word} lives in Porto.", key=key)
        new = await memory.remember(person, f"{word} home", f"{word} lives in {home}.", key=key)
        doomed = await memory.remember(person, f"{word} shoe", f"{word} wears size 44.")
        await memory.retract(person, doomed.id, reason=f"{word} asked", actor="user")
        trigger = SetTrigger(op="set_trigger", condition=f"{word} returns", task=f"ask {word} about the trip")
        written = await memory.write(person, trigger, actor="test")
        skill = MemoryNode(layer=Layer.PROCEDURAL, label=f"{word} skill", content=f"{word} procedure")
        await store.add_nodes(person, [skill])
        await record_audit(conn, person, "user", "approve", skill.id, {"why": f"{word} approved it"})
        await store.upsert_edges(  # an edge from the person's memory to the parent's
            person, [MemoryEdge(source=new.id, target=probes["parent"], relationship=Relationship.RELATES_TO)]
        )
        ids = {old.id, new.id, doomed.id, written.stored.id, skill.id}
        (org_ids if person is alice else sibling_ids).update(ids)
        probes["org" if person is alice else "sibling"] = new.id
    print(
        f"seeded {len(org_ids)} + {len(sibling_ids)} + {len(parent_ids)} memories in {time.monotonic() - started:.0f} s"
    )
    yield World(parent, org, sibling, alice, sam, org_ids, sibling_ids, parent_ids, key, probes)
    await api_repo.delete_keys(parent)
    await store.delete_subtree(parent)


@dataclass
class Readers:
    """The clients that read: a key above the org, a key bound to the org, the sibling's key."""

    parent: Client
    org: Client
    sibling: Client
    tokens: dict[str, str]
    views: dict[str, Tree]

    def clients(self) -> dict[str, Client]:
        return {"parent": self.parent, "org": self.org, "sibling": self.sibling}


@pytest.fixture
async def readers(world: World, api_server: Server, api_repo: KeyRepository) -> Readers:
    tokens = {
        "parent": (await create_key(api_repo, world.parent, Role.ADMIN))[1],
        "org": (await create_key(api_repo, world.org, Role.WRITER))[1],
        "sibling": (await create_key(api_repo, world.sibling, Role.WRITER))[1],
    }
    probe, parent_probe = world.probes["org"], world.probes["parent"]
    views = {
        "parent": Tree(world.parent, world.alice, probe, parent_probe),
        "org": Tree(world.org, world.alice, probe, parent_probe),
        "sibling": Tree(world.sibling, world.sam, world.probes["sibling"], parent_probe),
    }
    return Readers(*(Client(api_server.url, tokens[k]) for k in ("parent", "org", "sibling")), tokens, views)


def graphql_answers(readers: Readers) -> dict[tuple[str, str], Any]:
    answers = {}
    for who, client in readers.clients().items():
        for name, (query, variables) in GRAPHQL.items():
            body = client.gql(query, **variables(readers.views[who]))
            assert not body.get("errors"), (who, name, body["errors"])
            answers[(who, name)] = body["data"]
        for scope in {readers.views[who].target.key, readers.views[who].user.key}:
            response = client.http.get("/v1/export", params={"scope": scope})
            assert response.status_code == 200, response.text[:300]
            header, *lines = [json.loads(line) for line in response.text.splitlines()]
            assert header["type"] == "header"  # it names the scope asked for: not checked for leaks
            answers[(who, f"export {scope}")] = lines
    return answers


def subscription_answer(server: Server, token: str, scope: str) -> list[Any]:
    """What consolidationProgress(includeRecent: 5) sends within a few seconds."""
    query = "subscription($s: String!) { consolidationProgress(scope: $s, includeRecent: 5) { runId scopeKey } }"
    sent: list[Any] = []
    with connect(server.ws_url, subprotocols=["graphql-transport-ws"], open_timeout=30) as ws:  # type: ignore[list-item]
        ws.send(json.dumps({"type": "connection_init", "payload": {"authorization": f"Bearer {token}"}}))
        assert json.loads(ws.recv(timeout=30))["type"] == "connection_ack"
        ws.send(json.dumps({"id": "p", "type": "subscribe", "payload": {"query": query, "variables": {"s": scope}}}))
        deadline = time.monotonic() + 3
        while (left := deadline - time.monotonic()) > 0:
            try:
                sent.append(json.loads(ws.recv(timeout=left)))
            except TimeoutError:
                break
        ws.send(json.dumps({"id": "p", "type": "complete"}))
    return sent


async def store_answers(store: GraphStore, conn: Neo4jConnection, world: World) -> dict[str, Any]:
    """The library's own reads, at the org's user, the org, the parent and the sibling."""
    vector = await HashingEmbeddings().embed(QUERY)
    parent_probe = world.probes["parent"]
    out: dict[str, Any] = {}
    for who, user, top in (("org", world.alice, world.org), ("sibling", world.sam, world.sibling)):
        out[f"{who} get_node"] = await store.get_node(user, world.probes[who])
        out[f"{who} get_nodes"] = await store.get_nodes(user, sorted(world.org_ids | world.sibling_ids)[:200])
        out[f"{who} query_nodes"] = await store.query_nodes(user, limit=None)
        out[f"{who} query_subtree"] = await store.query_subtree(top, limit=None)
        out[f"{who} neighbors"] = await store.get_neighbors(user, parent_probe)
        out[f"{who} traverse"] = await store.traverse(user, parent_probe, 2)
        out[f"{who} edges"] = await store.query_edges(user, limit=10_000)
        out[f"{who} vectors"] = await store.search_vectors(user, vector, 20)
        out[f"{who} vector_count"] = await store.count_vectors(user)
        out[f"{who} audit"] = await list_audit(conn, top)
    out["parent query_subtree"] = await store.query_subtree(world.parent, limit=None)
    out["parent vector_count"] = await store.count_vectors(world.parent)
    out["parent audit"] = await list_audit(conn, world.parent)
    return {k: _plain(v) for k, v in out.items()}


def _plain(value: Any) -> Any:
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", exclude={"embedding", *VOLATILE})
    if hasattr(value, "__dataclass_fields__"):
        return {k: _plain(getattr(value, k)) for k in value.__dataclass_fields__}
    return value


async def mcp_answers(neo4j_server: tuple[str, str], tmp_path: Path, readers: Readers, world: World) -> dict[str, Any]:
    uri, password = neo4j_server
    settings = Settings(neo4j_uri=uri, neo4j_password=SecretStr(password), data_dir=tmp_path)
    out: dict[str, Any] = {}
    for who, user in (("org", world.alice), ("sibling", world.sam)):
        server = build_server(readers.tokens[who], settings, embedder=HashingEmbeddings())
        async with McpClient(server) as client:
            for tool, args in (
                ("recall", {"query": f"{SECRET} note about topic3", "top_k": 20}),
                ("pending_triggers", {}),
            ):
                result = await client.call_tool(tool, {**args, "scope": user.key})
                assert not result.is_error, result.content
                assert isinstance(result.structured_content, dict)
                echoed = {"query", "scope_key"}  # the query and the scope asked for, repeated
                out[f"{who} {tool}"] = {k: v for k, v in result.structured_content.items() if k not in echoed}
    return out


async def browser_answers(conn: Neo4jConnection, world: World) -> dict[str, Any]:
    queries = saved_queries()
    probe, org_ids = world.probes["org"], sorted(world.org_ids)
    runs: list[tuple[str, str, dict[str, Any]]] = [
        ("org", "scope_memories_by_layer", {"scope_key": world.alice.key}),
        ("sibling", "scope_memories_by_layer", {"scope_key": world.sam.key}),
        ("org", "memory_neighbourhood", {"memory_id": probe}),
        ("parent", "memory_neighbourhood", {"memory_id": world.probes["parent"]}),
        ("org", "recall_activation_paths", {"seeds": org_ids[:50], "reached": [], "sources": [probe],
                                            "targets": [world.probes["parent"]], "relationships": ["RELATES_TO"]}),
        ("parent", "retracted_memories", {"scope_key": world.parent.key}),
        ("org", "retracted_memories", {"scope_key": world.org.key}),
        ("org", "supersession_chain", {"scope_key": world.alice.key, "fact_key": world.fact_key}),
        ("sibling", "supersession_chain", {"scope_key": world.sam.key, "fact_key": world.fact_key}),
        ("org", "consolidation_history", {"scope_key": world.alice.key}),
        ("sibling", "consolidation_history", {"scope_key": world.sam.key}),
        ("parent", "scope_tree", {"scope_key": world.parent.key}),
        ("org", "scope_tree", {"scope_key": world.alice.key}),
    ]  # fmt: skip
    assert {name for _, name, _ in runs} == set(queries), "a saved query is not read here"
    out: dict[str, Any] = {}
    async with conn.driver.session(database=conn.database) as session:
        for who, name, params in runs:
            result = await session.run(queries[name].statement, {**queries[name].params, **params})
            rows = [r.data() for r in await result.fetch(100_000)]
            out[f"{who} {name}"] = json.loads(json.dumps(rows, default=str))
    return out


async def count_left(conn: Neo4jConnection, org: Scope) -> int:
    async with conn.driver.session(database=conn.database) as session:
        result = await session.run(
            "MATCH (m:Memory) WHERE m.scope_key = $k OR m.scope_key STARTS WITH $p RETURN count(m) AS n",
            k=org.key,
            p=org.subtree_prefix,
        )
        record = await result.single()
    assert record is not None
    return int(record["n"])


@pytest.fixture
def consolidated(world: World, readers: Readers) -> Iterator[None]:
    """A consolidation run on the org's user and on the sibling's, so run histories have rows."""
    mutation = "mutation($s: String!) { consolidate(scope: $s, mode: QUICK) { ... on ConsolidationReport { runId } } }"
    for client, user in ((readers.org, world.alice), (readers.sibling, world.sam)):
        assert client.data(mutation, s=user.key)["consolidate"]["runId"]
    yield


async def test_an_erase_hides_the_org_from_every_reader_from_its_first_moment(
    world: World,
    readers: Readers,
    consolidated: None,
    api_server: Server,
    store: GraphStore,
    conn: Neo4jConnection,
    neo4j_server: tuple[str, str],
    tmp_path: Path,
) -> None:
    async def everything() -> dict[str, Any]:
        """Every read, named ``<where> <reader> <read>``; reader: parent, org or sibling."""
        answers: dict[str, Any] = {f"api {who} {name}": a for (who, name), a in graphql_answers(readers).items()}
        for who, user in (("org", world.alice), ("sibling", world.sam)):
            answers[f"subscription {who}"] = subscription_answer(api_server, readers.tokens[who], user.key)
        answers.update({f"store {k}": v for k, v in (await store_answers(store, conn, world)).items()})
        answers.update({f"mcp {k}": v for k, v in (await mcp_answers(neo4j_server, tmp_path, readers, world)).items()})
        answers.update({f"browser {k}": v for k, v in (await browser_answers(conn, world)).items()})
        return answers

    before = await everything()
    silent = {n for n, a in before.items() if n.split()[1] != "sibling" and not leaks(world, a)}
    proved_nothing = sorted(silent - COUNTS_ONLY - NUMBERS - ROWS_ONLY)
    assert proved_nothing == [], f"these reads showed nothing of the org before the erase: {proved_nothing}"
    assert all(before[n] for n in ROWS_ONLY)
    totals = {n: _totals(before[n]) for n in COUNTS_ONLY}
    org_total = totals["api org stats"][".stats.counts.total"]
    assert org_total > 0.9 * ORG_MEMORIES and before["store org vector_count"] > before["store parent vector_count"]

    memory = Memory(store, HashingEmbeddings())

    def crash(done: int, total: int) -> None:
        raise RuntimeError(f"the process died after {done} of {total}")

    with pytest.raises(RuntimeError, match="died after"):
        await memory.forget(world.org, progress=crash)
    left = await count_left(conn, world.org)
    assert ORG_MEMORIES // 2 < left < len(world.org_ids), f"{left} left: the erase is not mid-way"

    for stage in ("mid-erase", "erased"):
        now = await everything()
        seen = {name: found for name, answer in now.items() if (found := leaks(world, answer))}
        assert seen == {}, f"{stage}, these reads still show the erased org:\n" + "\n".join(
            f"  {name}: {found}" for name, found in sorted(seen.items())
        )
        for name in COUNTS_ONLY:  # the org's memories are not counted any more
            expected = {k: v - org_total if name.split()[1] == "parent" else 0 for k, v in totals[name].items()}
            assert _totals(now[name]) == expected, (stage, name)
        assert now["store org vector_count"] == now["store parent vector_count"] == before["store parent vector_count"]
        assert all(now[n] == [] for n in ROWS_ONLY), stage
        for name, answer in before.items():
            reader, read = name.split()[1], name.split()[-1]
            if reader == "sibling" and read not in MUTABLE:  # the sibling sees all of its own, as before
                assert _stable(now[name]) == _stable(answer), f"{stage}: {name} changed for the sibling org"
            if reader == "parent" and read in PARENTS_OWN | {world.parent.key}:  # the parent keeps all of its own
                assert ids_in(now[name]) >= ids_in(answer) & (world.parent_ids | world.sibling_ids), (stage, name)
        if stage == "mid-erase":
            assert await memory.forget(world.org) == left  # erasing again finishes the job
            assert await count_left(conn, world.org) == 0


COUNTS_ONLY = {"api parent stats", "api org stats", "api org scope"}
"""Reads whose answer about the org is a number (checked against the totals before)."""
ROWS_ONLY = {"browser org consolidation_history"}
"""Reads whose rows about the org name neither it nor its memories: there before, none after."""
NUMBERS = {"store org vector_count", "store parent vector_count"}
"""Vectors visible from the org's user: the parent's and the org's; then the parent's alone."""


def _totals(answer: Any) -> dict[str, int]:
    """The ``total`` / ``totalCount`` numbers of an answer, by path (a bare number: its own)."""
    if isinstance(answer, int):
        return {"": answer}
    found: dict[str, int] = {}

    def walk(value: Any, path: str) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                if k in ("total", "totalCount") and isinstance(v, int) and "byLayer" not in path:
                    found[f"{path}.{k}"] = v
                else:
                    walk(v, f"{path}.{k}")

    walk(answer, "")
    return found


VOLATILE = {"access_count", "spreading_access_count", "last_accessed_at", "updated_at", "accessCount"}


def _stable(value: Any) -> Any:
    """An answer without what recall itself changes (access counts, update times)."""
    if isinstance(value, dict):
        return {k: _stable(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [_stable(v) for v in value]
    return value
