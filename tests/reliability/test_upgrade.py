"""Upgrades lose nothing, on a Neo4j of this module alone.

An earlier release of hippograph — its own code, taken from this repository's git history — fills
a fresh database and records what it holds and what recall answers (tests/reliability/
upgrade_writer.py, in a subprocess). Then today's code opens that database the way the product
starts: the API server's start-up runs the schema migrations, then the library opens it again.
Checked: the schema is today's version; every memory, relationship, API key, audit entry and
scope the release wrote is still there with every property it had (today's code may add, never
drop or change); each memory keeps its cues; recall gives the same memories in the same order;
the release's API keys still authenticate (a revoked one still does not); and the second open
does no migration work: no node, relationship or property rewritten, no index built again.

Whatever migration steps today's schema has beyond the release's version run here, so a new
step is tested against a real older database as soon as it exists.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tarfile
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from hippograph.dbms import LocalNeo4j
from hippograph.dbms.local_server import free_port
from hippograph.memory import Memory
from hippograph.retrieval import RecallConfig
from hippograph.scope import Scope
from hippograph.store import Neo4jConnection
from hippograph.store.schema import SCHEMA_VERSION, missing_schema, schema_version
from hippograph.testing.server import served
from tests.e2e.api.harness import Client, Server, start_server
from tests.reliability.dump import canonical_dump, graph_rows, index_ids
from tests.support.memory_internals import internals

OLD_RELEASE = "0128b1b"
"""The release whose database is upgraded. Its recall ranks today's way with the kept-fact rules
added since turned off (:data:`RELEASE_RANKING`), so on the same data the answers must match
exactly."""
RELEASE_RANKING = RecallConfig(
    track_access=False,
    fact_evidence=False,
    question_turn_factor=1.0,
    facts_above_turns=False,
    importance_weight=0.0,
    current_facts_timeless=False,
    superseded_below_current=False,
)
"""Today's recall with the ranking rules the release did not have turned off."""
OLD_SCHEMA_VERSION = 4
ROOT = Path(__file__).resolve().parents[2]
WRITER = Path(__file__).with_name("upgrade_writer.py")

MAY_CHANGE = {"HippographSchema": {"version", "applied_at", "steps"}, "Cue": {"created_at"}}
"""Properties an upgrade may rewrite: the schema's own record, and which of two duplicate cues'
creation times survives when they are merged into one."""
LAYERS = {"Working", "Episodic", "Semantic", "Procedural", "Prospective"}


def _extract_release(dest: Path) -> Path:
    """``src`` and ``cypher`` of :data:`OLD_RELEASE` under ``dest``; fails (never skips) when the
    commit is not in this clone."""
    found = subprocess.run(
        ["git", "-C", str(ROOT), "cat-file", "-e", f"{OLD_RELEASE}^{{commit}}"], capture_output=True, check=False
    )
    if found.returncode != 0:
        pytest.fail(
            f"commit {OLD_RELEASE} is not in the git history at {ROOT} (a shallow clone?): the upgrade test "
            f"needs the release's code; fetch the history (git fetch --unshallow) and run it again"
        )
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", OLD_RELEASE, "src", "cypher"],
        capture_output=True,
        check=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(dest, filter="data")
    return dest


def _json(value: Any) -> Any:
    """``value`` as it reads back from JSON, like the writer's record."""
    return json.loads(json.dumps(value, default=list))


def _labels(node: dict[str, Any]) -> set[str]:
    return set(node["labels"])


def _identity(node: dict[str, Any]) -> tuple[str, ...]:
    """What a node is, whatever its element id: a memory by id, a cue by (scope, kind, key),
    anything else by its labels and its ``id``, else its ``key`` within its ``scope_key`` (a
    fact lock's), else every property."""
    labels, props = _labels(node), node["props"]
    if "Memory" in labels:
        return ("Memory", props["id"])
    if "Cue" in labels:
        return ("Cue", props["scope_key"], props["kind"], props["key"])
    if "id" in props:
        return (*sorted(labels), f"id={props['id']}")
    if "key" in props:
        return (*sorted(labels), f"scope_key={props.get('scope_key')}", f"key={props['key']}")
    return (*sorted(labels), json.dumps(props, sort_keys=True))


@dataclass(frozen=True)
class Graph:
    """A database's nodes and relationships, as JSON reads them back."""

    nodes: list[dict[str, Any]]
    relationships: list[dict[str, Any]]

    @classmethod
    def of(cls, nodes: list[dict[str, Any]], relationships: list[dict[str, Any]]) -> Graph:
        return cls(_json(nodes), _json(relationships))

    def by_identity(self) -> dict[tuple[str, ...], list[dict[str, Any]]]:
        found: dict[tuple[str, ...], list[dict[str, Any]]] = {}
        for node in self.nodes:
            found.setdefault(_identity(node), []).append(node)
        return found

    def edges(self) -> dict[tuple[Any, ...], list[dict[str, Any]]]:
        """Relationships by (type, start's identity, end's identity), with their properties."""
        ident = {n["eid"]: _identity(n) for n in self.nodes}
        found: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
        for r in self.relationships:
            found.setdefault((r["type"], ident[r["source"]], ident[r["target"]]), []).append(r["props"])
        return found

    def of_label(self, label: str) -> list[dict[str, Any]]:
        return [n for n in self.nodes if label in _labels(n)]

    def cue_links(self) -> dict[str, set[tuple[str, ...]]]:
        """Each memory's cues, as (scope, kind, key)."""
        links: dict[str, set[tuple[str, ...]]] = {}
        for (kind, start, end), _ in self.edges().items():
            if kind == "HAS_CUE":
                links.setdefault(start[1], set()).add(end[1:])
        return links


@dataclass(frozen=True)
class Opened:
    """What the database held after one open by today's code."""

    graph: Graph
    indexes: list[tuple[str, int, str]]

    @classmethod
    async def read(cls, conn: Neo4jConnection) -> Opened:
        return cls(Graph.of(*await graph_rows(conn)), await index_ids(conn))


@dataclass(frozen=True)
class Upgrade:
    written: dict[str, Any]
    old: Graph
    first: Opened
    second: Opened
    memory: Memory
    api: Server


@pytest.fixture(scope="module")
def neo4j_alone(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    server = LocalNeo4j(
        tmp_path_factory.mktemp("upgrade-neo4j"), port=free_port(), heap="768m", pagecache_mb=64, stop_with_parent=True
    )
    with served(server) as address:
        yield address


@pytest.fixture(scope="module")
def written(neo4j_alone: tuple[str, str], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The release's record of what it wrote (see upgrade_writer.py)."""
    release = _extract_release(tmp_path_factory.mktemp("release"))
    out = tmp_path_factory.mktemp("written") / "inventory.json"
    env = {
        **os.environ,
        "PYTHONPATH": str(release / "src"),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "TOKENIZERS_PARALLELISM": "false",
    }
    uri, password = neo4j_alone
    done = subprocess.run(
        [sys.executable, str(WRITER), uri, password, str(out)],
        env=env,
        cwd=release,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, f"the release's writer failed:\n{done.stdout[-3000:]}\n{done.stderr[-6000:]}"
    record: dict[str, Any] = json.loads(out.read_text())
    assert Path(record["release"]).is_relative_to(release), f"the writer ran today's code: {record['release']}"
    return record


@pytest.fixture(scope="module")
async def upgrade(
    written: dict[str, Any], neo4j_alone: tuple[str, str], tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Upgrade]:
    uri, password = neo4j_alone
    api = start_server(neo4j_alone, tmp_path_factory.mktemp("api"))  # start-up runs the migrations
    try:
        probe = await Neo4jConnection.connect(uri, password=password)
        try:
            first = await Opened.read(probe)
            memory = await Memory.connect(uri, password=password)  # the library's open: migrations again
            try:
                second = await Opened.read(probe)
                old = Graph.of(written["nodes"], written["relationships"])
                yield Upgrade(written, old, first, second, memory, api)
            finally:
                await memory.close()
        finally:
            await probe.close()
    finally:
        api.stop()


async def test_the_release_wrote_every_kind_of_thing(upgrade: Upgrade) -> None:
    """Not a check of today's code: a guard that the comparisons below compare something."""
    old = upgrade.old
    assert upgrade.written["schema_version"] == OLD_SCHEMA_VERSION
    assert {label for n in old.of_label("Memory") for label in _labels(n)} >= LAYERS | {"Memory"}
    assert any(n["props"].get("superseded_by") for n in old.of_label("Semantic"))
    kinds = Counter(kind for kind, _, _ in old.edges())
    assert {"MENTIONS", "NEXT", "RELATES_TO", "HAS_CUE", "IN_SCOPE"} <= set(kinds)
    assert len(old.of_label("ApiKey")) == 4 and len(old.of_label("AuditEntry")) >= 3
    for label in ("FactLock", "TokenBudget", "ConsolidationRun", "HippographSchema"):
        assert old.of_label(label), label
    duplicates = [i for i, nodes in old.by_identity().items() if len(nodes) > 1]
    assert [i[0] for i in duplicates] == ["Cue"], duplicates  # nodes are told apart but the hand-made pair
    assert {n["props"]["key"] for n in old.of_label("Scope")} >= {
        "org:acme/team:core/user:ana",
        "org:globex/user:carl",
    }
    cues = [tuple(n["props"][k] for k in ("scope_key", "kind", "key")) for n in old.of_label("Cue")]
    assert len(cues) > len(set(cues)), "the release's database has no duplicate cue to merge"
    assert all(r["ids"] for r in upgrade.written["recalls"])


async def test_the_schema_is_todays(upgrade: Upgrade) -> None:
    conn = internals(upgrade.memory).store.conn
    assert await schema_version(conn) == SCHEMA_VERSION
    assert await missing_schema(conn) == []
    [record] = upgrade.first.graph.of_label("HippographSchema")
    assert record["props"]["version"] == SCHEMA_VERSION


async def test_nothing_the_release_wrote_is_lost(upgrade: Upgrade) -> None:
    now = upgrade.first.graph.by_identity()
    lost: list[str] = []
    for identity, olds in upgrade.old.by_identity().items():
        if identity not in now:
            lost.append(f"node {identity} is gone")
            continue
        for old in olds:
            labels = _labels(old)
            allowed = set().union(*(MAY_CHANGE.get(label, set()) for label in labels))
            kept = {k: v for k, v in old["props"].items() if k not in allowed}
            if not any(labels <= _labels(n) and kept.items() <= n["props"].items() for n in now[identity]):
                lost.append(f"node {identity} lost labels or properties: {sorted(labels)} {sorted(kept)}")
    edges = upgrade.first.graph.edges()
    for key, olds in upgrade.old.edges().items():
        for props in olds:
            if not any(props.items() <= p.items() for p in edges.get(key, [])):
                lost.append(f"relationship {key} {props} is gone or changed")
    assert lost == []


async def test_memories_keep_their_cues(upgrade: Upgrade) -> None:
    def cues(graph: Graph) -> set[tuple[str, ...]]:
        return {tuple(n["props"][k] for k in ("scope_key", "kind", "key")) for n in graph.of_label("Cue")}

    assert cues(upgrade.first.graph) == cues(upgrade.old)
    assert upgrade.first.graph.cue_links() == upgrade.old.cue_links()


async def test_recall_answers_as_the_release_did(upgrade: Upgrade) -> None:
    at = upgrade.written["now"]
    for asked in upgrade.written["recalls"]:
        scope = Scope.parse(asked["scope"])
        result = await upgrade.memory.recall(scope, asked["query"], config=RELEASE_RANKING, now=at)
        assert [i.node.id for i in result.items] == asked["ids"], asked["query"]


async def test_the_second_open_does_no_migration_work(upgrade: Upgrade) -> None:
    first, second = upgrade.first, upgrade.second
    assert second.indexes == first.indexes  # nothing dropped and built again
    before = canonical_dump(first.graph.nodes, first.graph.relationships)
    after = canonical_dump(second.graph.nodes, second.graph.relationships)
    changed = [f"- {line:.300}" for line in before - after] + [f"+ {line:.300}" for line in after - before]
    assert changed == []  # nothing written: not even the schema record's time


async def test_the_releases_api_keys_still_work(upgrade: Upgrade) -> None:
    for key_id, key in upgrade.written["tokens"].items():
        client = Client(upgrade.api.url, key["token"])
        if key["revoked"]:
            assert client.post("{ __typename }").status_code == 401
        else:
            assert client.data("{ viewer { keyId role } }")["viewer"] == {"keyId": key_id, "role": key["role"]}
