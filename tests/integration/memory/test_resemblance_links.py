"""Resemblance links at ingest (issue 14): each turn is linked to the turns of *other* sessions
of the same scope it most resembles (``RESEMBLES``, weight = cosine), never across scopes and
never inside its own session; recall's spreading follows them to memories no channel found."""

from __future__ import annotations

from hippograph.memory import ConversationTurn, Memory
from hippograph.memory.ingest import RESEMBLANCE_K, RESEMBLANCE_MIN_COSINE, turn_node_id
from hippograph.models import Layer
from hippograph.retrieval.config import RecallConfig
from hippograph.scope import Scope
from tests.integration.memory.helpers import edges_of
from tests.support.memory_internals import internals

DAY = 86_400.0
T0 = 1_683_504_000.0


def turn(turn_id: str, session: int, text: str, speaker: str = "Mel") -> ConversationTurn:
    return ConversationTurn(
        turn_id=turn_id, session_id=f"s{session}", speaker=speaker, text=text, occurred_at=T0 + session * DAY
    )


def sessions() -> list[ConversationTurn]:
    return [
        turn("D1:1", 1, "pottery class clay bowls wheel glaze"),
        turn("D1:2", 1, "pottery class clay bowls wheel kiln"),  # same session: never linked to D1:1
        turn("D1:3", 1, "weather rain umbrella forecast"),
        turn("D2:1", 2, "clay bowls wheel glaze kiln pottery"),
        turn("D2:2", 2, "traffic jam highway commute"),
    ]


def resemblances(edges: list[dict]) -> set[frozenset[str]]:  # type: ignore[type-arg]
    return {frozenset((e["source"], e["target"])) for e in edges if e["type"] == "RESEMBLES"}


async def test_turns_link_to_resembling_turns_of_other_sessions_only(memory: Memory, tenant: Scope) -> None:
    await memory.ingest(tenant, sessions(), resemblance_links=RESEMBLANCE_K)
    edges = await edges_of(internals(memory).store.conn, tenant)
    ids = {t: turn_node_id(tenant, t) for t in ("D1:1", "D1:2", "D1:3", "D2:1", "D2:2")}
    links = resemblances(edges)
    assert frozenset((ids["D1:1"], ids["D2:1"])) in links
    assert frozenset((ids["D1:2"], ids["D2:1"])) in links
    assert frozenset((ids["D1:1"], ids["D1:2"])) not in links  # one session: NEXT links those
    assert all(ids["D1:3"] not in pair and ids["D2:2"] not in pair for pair in links)  # nothing resembles them
    weights = [e["weight"] for e in edges if e["type"] == "RESEMBLES"]
    assert all(RESEMBLANCE_MIN_COSINE <= w <= 1.0 + 1e-9 for w in weights)


async def test_ingesting_again_adds_no_link(memory: Memory, tenant: Scope) -> None:
    await memory.ingest(tenant, sessions(), resemblance_links=RESEMBLANCE_K)
    first = [e for e in await edges_of(internals(memory).store.conn, tenant) if e["type"] == "RESEMBLES"]
    await memory.ingest(tenant, sessions(), resemblance_links=RESEMBLANCE_K)
    again = [e for e in await edges_of(internals(memory).store.conn, tenant) if e["type"] == "RESEMBLES"]
    assert first and sorted(e["id"] for e in again) == sorted(e["id"] for e in first)


async def test_a_later_ingest_links_back_to_stored_turns(memory: Memory, tenant: Scope) -> None:
    turns = sessions()
    await memory.ingest(tenant, turns[:3], resemblance_links=RESEMBLANCE_K)
    await memory.ingest(tenant, turns[3:], resemblance_links=RESEMBLANCE_K)
    links = resemblances(await edges_of(internals(memory).store.conn, tenant))
    assert frozenset((turn_node_id(tenant, "D1:1"), turn_node_id(tenant, "D2:1"))) in links


async def test_no_link_crosses_scopes(memory: Memory, tenant: Scope) -> None:
    alice, bob = tenant.child("user", "alice"), tenant.child("user", "bob")
    turns = sessions()
    await memory.ingest(alice, turns[:3], resemblance_links=RESEMBLANCE_K)
    await memory.ingest(bob, turns[3:], resemblance_links=RESEMBLANCE_K)  # bob's D2:1 resembles alice's pottery turns
    lone = [turn("D3:1", 3, "pottery class clay bowls wheel glaze kiln")]
    await memory.ingest(tenant, lone, resemblance_links=RESEMBLANCE_K)
    edges = await edges_of(internals(memory).store.conn, tenant)
    assert not resemblances(edges)  # each scope alone has nothing resembling across its sessions
    assert all(e["type"] != "RESEMBLES" for e in edges)


async def test_recall_reaches_a_resembling_turn_through_the_link(memory: Memory, tenant: Scope) -> None:
    await memory.ingest(
        tenant,
        [
            turn("D1:1", 1, "harbor lantern pottery clay bowls wheel"),
            turn("D1:2", 1, "weather rain umbrella forecast"),
            turn("D2:1", 2, "pottery clay bowls wheel glaze"),
            turn("D2:2", 2, "traffic jam highway commute"),
        ],
        resemblance_links=RESEMBLANCE_K,
    )
    result = await memory.recall(
        tenant, "harbor lantern", layers=[Layer.EPISODIC], config=RecallConfig(top_k=10, track_access=False)
    )
    target = turn_node_id(tenant, "D2:1")
    reached = {a.id: a for a in result.activation.activated}
    assert target in reached
    assert [p.relationship for p in reached[target].path][-1] == "RESEMBLES"
    assert reached[target].path[0].node_id == turn_node_id(tenant, "D1:1")
