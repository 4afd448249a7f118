"""A small lived-in memory graph where every phase has something to do: 34 facts, 120 episodes
over 90 days (24 sessions of 5), working memory, pending links, a SOUL profile with
corrections, a near-duplicate pair, clusters, orphans, idle facts, expired and retracted ones.

``build_world(store, conn, scope, tag)`` writes the same graph for the same ``seed`` in any scope
(ids are prefixed with ``tag``), so two scopes can be compared after different histories.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

from hippograph.models import Durability, Layer, MemoryEdge, MemoryNode, Relationship
from hippograph.scope import Scope
from hippograph.store import GraphStore, Neo4jConnection
from tests.integration.consolidation.sleep_helpers import (
    DAY,
    HOUR,
    MINUTE,
    NOW,
    edge,
    event,
    fact,
    mem,
    near,
    pending,
    unit_vector,
)

SOUL_SCHEMA = ("name", "tone")
TOPICS = 9


async def build_world(store: GraphStore, conn: Neo4jConnection, scope: Scope, tag: str, seed: str) -> dict[str, str]:
    """Write the world into ``scope``; return {label: id} of the facts."""
    rng = random.Random(seed)

    def fid(name: str) -> str:
        return f"{tag}-{name}"

    def f(name: str, label: str, **kw: Any) -> MemoryNode:
        kw.setdefault("embedding", unit_vector(rng))
        return fact(label, nid=fid(name), **kw)

    hiking = unit_vector(rng)
    facts = [
        f(
            "soul",
            "SOUL:user",
            properties={"name": "Sam", "corrections": {"name": "Samantha", "shoe": 42}},
        ),
        f("identity", "AGENT_IDENTITY", importance=9.0, at=NOW - 80 * DAY),
        *[
            f(f"coffee{i}", f"coffee: {kind}", at=NOW - 20 * DAY)
            for i, kind in enumerate(["espresso", "latte", "mocha", "filter"])
        ],
        *[
            f(f"project{i}", f"project: {name}", at=NOW - 15 * DAY)
            for i, name in enumerate(["apollo", "gemini", "mercury"])
        ],
        f("hike1", "likes hiking", importance=6.0, embedding=hiking, at=NOW - 10 * DAY),
        f("hike2", "really likes hiking", embedding=near(hiking, rng), at=NOW - 9 * DAY),
        *[f(f"orphan{i}", f"stray thought {i}", importance=3.0, at=NOW - 20 * DAY) for i in range(4)],
        *[f(f"old{i}", f"old fact {i}", at=NOW - 60 * DAY) for i in range(4)],
        f("read", "read often", access_count=4, at=NOW - 5 * DAY),
        f("spread", "spread to often", spreading_access_count=6, at=NOW - 5 * DAY),
        f("risk", "server", content="Risk: the server may fail under load", at=NOW - 4 * DAY),
        f("ended", "old address", valid_until=NOW - DAY, at=NOW - 40 * DAY),
        f(
            "gone",
            "long retracted",
            retracted=True,
            retracted_at=NOW - 10 * DAY,
            retraction={"phase": "test", "rule": "seed", "reason": "seeded", "merged_into": None},
        ),
        f("transient", "passing note", durability=Durability.TRANSIENT, at=NOW - 3 * DAY),
        *[f(f"topic{i}", f"topic {i}", at=NOW - 50 * DAY) for i in range(TOPICS)],
    ]
    working = [
        mem(
            Layer.WORKING,
            "old turn",
            at=NOW - 3 * HOUR,
            ttl=HOUR,
            durability=Durability.TRANSIENT,
            nid=fid("w1"),
        ),
        mem(
            Layer.WORKING,
            "old thought",
            at=NOW - 2 * DAY,
            ttl=DAY,
            durability=Durability.TRANSIENT,
            nid=fid("w2"),
        ),
        mem(
            Layer.WORKING,
            "current turn",
            at=NOW - MINUTE,
            ttl=HOUR,
            durability=Durability.TRANSIENT,
            nid=fid("w3"),
        ),
    ]
    episodes: list[MemoryNode] = []
    for s in range(24):
        start = NOW - 90 * DAY + s * 3.75 * DAY
        for t in range(5):
            at = start + t * 3 * MINUTE
            n = s * 5 + t
            if t == 4 and start > NOW - 30 * DAY:
                label, kind, content = (
                    f"Deploy release {s}",
                    "event",
                    f"Deployed release {s}. All green.",
                )
            else:
                note = " Warning: disk almost full." if n % 17 == 0 else ""
                label, kind = f"session {s} turn {t}", "turn"
                content = f"User: question {n}? | Agent: answer {n}.{note}"
            episodes.append(
                event(
                    label,
                    at=at,
                    kind=kind,
                    content=content,
                    importance=3.0,
                    nid=fid(f"e{n:03d}"),
                    properties={"session_id": f"{tag}-s{s}"},
                )
            )
    await store.add_nodes(scope, [*facts, *working, *episodes])
    edges: list[MemoryEdge] = []
    for s in range(24):
        edges += [edge(episodes[s * 5 + t], episodes[s * 5 + t + 1], Relationship.NEXT) for t in range(4)]
    by_name = {n.id: n for n in facts}
    for n, ep in enumerate(episodes):
        for k in (n % TOPICS, (n + 1) % TOPICS):
            edges.append(
                edge(
                    ep,
                    by_name[fid(f"topic{k}")],
                    Relationship.MENTIONS,
                    source_episodic_ids=[ep.id],
                )
            )
    edges.append(edge(by_name[fid("coffee0")], by_name[fid("coffee1")], Relationship.RELATES_TO))
    await store.upsert_edges(scope, edges)
    await pending(
        conn,
        scope,
        (fid("topic0"), fid("topic5"), 0.6),
        (fid("read"), fid("spread"), 0.4),
        (fid("topic1"), fid("missing"), 0.9),
    )
    return {n.label: n.id for n in facts}


def canonical(nodes: list[dict[str, Any]], scope: Scope, tag: str) -> str:
    """The snapshot as one string with scope keys, run-made ids and edge ids made neutral, so
    the same history in two scopes compares equal."""
    names: dict[str, str] = {}
    for node in nodes:
        nid = str(node["id"])
        names[nid] = (
            nid.replace(f"{tag}-", "W-", 1)
            if nid.startswith(f"{tag}-")
            else (f"{node['layer']}|{node['label']}|{node.get('content', '')[:80]}")
        )
    cleaned = []
    for node in nodes:
        # scope_lo / scope_hi are the scope key's chain interval: compared through scope_key
        kept = {k: v for k, v in node.items() if k not in ("id", "scope_tag", "scope_lo", "scope_hi")}
        kept["out"] = sorted(json.dumps({k: v for k, v in r.items() if k != "id"}, sort_keys=True) for r in node["out"])
        cleaned.append((names[str(node["id"])], kept))
    text = json.dumps(sorted(cleaned, key=lambda kv: kv[0]), sort_keys=True, default=str)
    text = text.replace(scope.key, "SCOPE").replace(f"{tag}-", "W-")  # also ids of deleted memories
    for nid in sorted(names, key=len, reverse=True):
        text = text.replace(nid, names[nid])
    return re.sub(r"\s+", " ", text)
