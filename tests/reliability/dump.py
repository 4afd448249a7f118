"""A full dump of a database, as a multiset of canonical lines: one per node (labels and every
property) and one per relationship (type, properties and both ends' canonical lines). Element
ids are left out, so two dumps compare equal when the graphs are the same, byte for byte in
every property, including after a restore. Runs the test-only statements of ``cypher/``."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from hippograph.store import Neo4jConnection

_CYPHER = Path(__file__).parent / "cypher"


async def _run(conn: Neo4jConnection, name: str, **params: Any) -> list[dict[str, Any]]:
    text = (_CYPHER / f"{name}.cypher").read_text()

    async def work(tx: Any) -> list[dict[str, Any]]:
        return await (await tx.run(text, params)).data()  # type: ignore[no-any-return]

    async with conn.driver.session(database=conn.database) as session:
        return await session.execute_read(work)  # a managed read: retried across a restart


def _line(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=repr)


async def graph_rows(conn: Neo4jConnection) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every node (``eid``, ``labels``, ``props``) and every relationship (``source``, ``type``,
    ``props``, ``target``; the ends are element ids), as the test-only statements return them."""
    return await _run(conn, "get_all_nodes"), await _run(conn, "get_all_relationships")


def canonical_dump(node_rows: list[dict[str, Any]], relationship_rows: list[dict[str, Any]]) -> Counter[str]:
    """The multiset of canonical lines of :func:`graph_rows`' rows."""
    nodes = {r["eid"]: {"labels": sorted(r["labels"]), "props": r["props"]} for r in node_rows}
    dump: Counter[str] = Counter(_line(node) for node in nodes.values())
    for r in relationship_rows:
        dump[_line({"type": r["type"], "props": r["props"], "from": nodes[r["source"]], "to": nodes[r["target"]]})] += 1
    return dump


async def full_dump(conn: Neo4jConnection) -> Counter[str]:
    return canonical_dump(*await graph_rows(conn))


async def index_ids(conn: Neo4jConnection) -> list[tuple[str, int, str]]:
    """(name, id, state) of every index, constraints' own indexes included: an index dropped and
    built again comes back under a new id."""
    return [(r["name"], r["id"], r["state"]) for r in await _run(conn, "get_index_ids")]


def mentions(line: str, key: str) -> bool:
    """The dump line names ``key`` or a scope below it (as a whole property value)."""
    return f'"{key}"' in line or f'"{key}/' in line


async def raw_fulltext_scores(conn: Neo4jConnection, query: str, scope_key_prefix: str) -> list[tuple[str, float]]:
    """The fulltext index's own BM25 scores for ``query`` over the memories under the prefix."""
    rows = await _run(conn, "search_memory_text_raw", query=query, scope_key_prefix=scope_key_prefix)
    return [(r["id"], r["score"]) for r in rows]


async def rebuild_fulltext_index(conn: Neo4jConnection) -> None:
    """Drop the memory fulltext index and build it afresh (``migrate`` creates what is missing)."""
    from hippograph.store import migrate

    async with conn.driver.session(database=conn.database) as session:
        await (await session.run((_CYPHER / "drop_fulltext_index_memory_text.cypher").read_text())).consume()
    await migrate(conn)
