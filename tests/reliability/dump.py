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


async def full_dump(conn: Neo4jConnection) -> Counter[str]:
    nodes = {r["eid"]: {"labels": sorted(r["labels"]), "props": r["props"]} for r in await _run(conn, "get_all_nodes")}
    dump: Counter[str] = Counter(_line(node) for node in nodes.values())
    for r in await _run(conn, "get_all_relationships"):
        dump[_line({"type": r["type"], "props": r["props"], "from": nodes[r["source"]], "to": nodes[r["target"]]})] += 1
    return dump


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
