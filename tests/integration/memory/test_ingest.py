"""Conversation ingest: every turn an episodic memory, idempotent by turn id, a NEXT chain per
session, cues for speaker and session, retrieval context from the neighbouring turns."""

from __future__ import annotations

from itertools import pairwise

import pytest

from hippograph.errors import InvalidInputError
from hippograph.memory import ConversationTurn, Memory
from hippograph.memory.ingest import ingest_conversation, turn_node_id
from hippograph.models import Layer
from hippograph.scope import Scope
from tests.integration.memory.helpers import INJECTION, edges_of, raw_memories, run_file
from tests.support.memory_internals import internals

DAY1 = 1_683_504_000.0  # 8 May 2023
DAY2 = DAY1 + 86_400.0


def conversation() -> list[ConversationTurn]:
    s1 = [
        ("Caroline", "I went to the pride parade yesterday"),
        ("Melanie", "That sounds wonderful, Caroline"),
        ("Caroline", "It was my first time there"),
        ("Melanie", "I painted a lake sunrise last week"),
    ]
    s2 = [("Melanie", "The kids loved the camping trip"), ("Caroline", "Where did you camp, Melanie?"),
          ("Melanie", "Near the lake, by the old pine forest")]  # fmt: skip
    turns = [ConversationTurn(turn_id=f"D1:{i}", session_id="session_1", speaker=s, text=t, occurred_at=DAY1 + i)
             for i, (s, t) in enumerate(s1)]  # fmt: skip
    turns += [ConversationTurn(turn_id=f"D2:{i}", session_id="session_2", speaker=s, text=t, occurred_at=DAY2 + i)
              for i, (s, t) in enumerate(s2)]  # fmt: skip
    return turns


def chain(edges: list[dict], scope: Scope, *turn_ids: str) -> set[tuple[str, str]]:  # type: ignore[type-arg]
    ids = [turn_node_id(scope, t) for t in turn_ids]
    return set(pairwise(ids))


def nexts(edges: list[dict]) -> set[tuple[str, str]]:  # type: ignore[type-arg]
    return {(e["source"], e["target"]) for e in edges if e["type"] == "NEXT"}


async def test_every_turn_becomes_an_episodic_memory(memory: Memory, tenant: Scope) -> None:
    seen: list[tuple[int, int]] = []
    stored = await memory.ingest(tenant, conversation(), progress=lambda done, total: seen.append((done, total)))
    assert len(stored) == 7 and seen[-1] == (7, 7)
    first = await internals(memory).store.get_node(tenant, turn_node_id(tenant, "D1:0"))
    assert first is not None and first.layer is Layer.EPISODIC and first.importance == 3.0
    assert first.content == "I went to the pride parade yesterday" and first.session_id == "session_1"
    assert first.properties == {
        "kind": "turn",
        "turn_id": "D1:0",
        "speaker": "Caroline",
        "date": "8 May 2023",
    }
    assert first.occurred_at == DAY1
    assert (
        internals(memory).episodic.render_for_prompt(first)
        == "[episodic] (8 May 2023) Caroline: I went to the pride parade yesterday"
    )


async def test_turns_of_a_session_form_a_next_chain(memory: Memory, tenant: Scope) -> None:
    await memory.ingest(tenant, conversation())
    edges = await edges_of(internals(memory).store.conn, tenant)
    assert nexts(edges) == chain(edges, tenant, "D1:0", "D1:1", "D1:2", "D1:3") | chain(
        edges, tenant, "D2:0", "D2:1", "D2:2"
    )
    assert all(e["scope_key"] == tenant.key for e in edges)


async def test_ingest_is_idempotent_by_turn_id(memory: Memory, tenant: Scope) -> None:
    await memory.ingest(tenant, conversation())
    nodes_before = await raw_memories(internals(memory).store.conn, tenant)
    edges_before = await edges_of(internals(memory).store.conn, tenant)
    cues_before = await run_file(internals(memory).store.conn, "get_cue_members", kind="session", key="session_1",
                                 visible=[tenant.key])  # fmt: skip
    again = await memory.ingest(tenant, conversation())
    assert sorted(n.id for n in again) == sorted(nodes_before)
    assert await raw_memories(internals(memory).store.conn, tenant) == nodes_before
    assert await edges_of(internals(memory).store.conn, tenant) == edges_before
    assert await run_file(internals(memory).store.conn, "get_cue_members", kind="session", key="session_1",
                          visible=[tenant.key]) == cues_before  # fmt: skip
    assert len(cues_before[0]["ids"]) == 4


async def test_the_same_turn_ids_in_another_scope_are_other_memories(memory: Memory, tenant: Scope) -> None:
    a, b = tenant.child("conv", "a"), tenant.child("conv", "b")
    stored_a = await memory.ingest(a, conversation())
    stored_b = await memory.ingest(b, conversation())
    assert not {n.id for n in stored_a} & {n.id for n in stored_b}
    assert await internals(memory).episodic.count_events(a) == await internals(memory).episodic.count_events(b) == 7


async def test_a_later_ingest_extends_the_sessions_chain(memory: Memory, tenant: Scope) -> None:
    turns = conversation()
    await memory.ingest(tenant, turns[:2])
    await memory.ingest(tenant, turns[2:3])
    await memory.ingest(tenant, turns[3:5])
    await memory.ingest(tenant, turns[5:])
    edges = await edges_of(internals(memory).store.conn, tenant)
    assert nexts(edges) == chain(edges, tenant, "D1:0", "D1:1", "D1:2", "D1:3") | chain(
        edges, tenant, "D2:0", "D2:1", "D2:2"
    )
    await memory.ingest(tenant, turns[1:])  # overlapping: already stored turns change nothing
    await memory.ingest(tenant, turns[:1])  # an earlier turn again: no edge back to it
    assert await edges_of(internals(memory).store.conn, tenant) == edges


async def test_re_ingesting_untimed_turns_adds_no_edge(memory: Memory, tenant: Scope) -> None:
    turns = [ConversationTurn(turn_id=f"u{i}", session_id="s", speaker="a", text=f"line {i}") for i in range(3)]
    await memory.ingest(tenant, turns)
    edges = await edges_of(internals(memory).store.conn, tenant)
    await memory.ingest(tenant, turns[:1])
    await memory.ingest(tenant, turns[1:2])
    assert await edges_of(internals(memory).store.conn, tenant) == edges and len(nexts(edges)) == 2
    await memory.ingest(tenant, [ConversationTurn(turn_id="u3", session_id="s", speaker="a", text="line 3")])
    assert nexts(await edges_of(internals(memory).store.conn, tenant)) == chain(edges, tenant, "u0", "u1", "u2", "u3")


async def test_interleaved_sessions_still_chain_each_session(memory: Memory, tenant: Scope) -> None:
    turns = conversation()
    interleaved = [turns[0], turns[4], turns[1], turns[5], turns[2], turns[6], turns[3]]
    await memory.ingest(tenant, interleaved)
    edges = await edges_of(internals(memory).store.conn, tenant)
    assert nexts(edges) == chain(edges, tenant, "D1:0", "D1:1", "D1:2", "D1:3") | chain(
        edges, tenant, "D2:0", "D2:1", "D2:2"
    )


async def test_retrieval_context_carries_the_neighbouring_turns(memory: Memory, tenant: Scope) -> None:
    await memory.ingest(tenant, conversation())
    # "wonderful" is said only in D1:1, but D1:0 and D1:2 carry it in their fulltext context
    result = await memory.recall(tenant, "wonderful", top_k=10)
    fulltext = {i.node.id for i in result.items if "fulltext" in {c.value for c in i.channels}}
    assert fulltext == {turn_node_id(tenant, t) for t in ("D1:0", "D1:1", "D1:2")}


async def test_speaker_and_session_cues_link_turns(memory: Memory, tenant: Scope) -> None:
    await memory.ingest(tenant, conversation())
    conn = internals(memory).store.conn
    rows = await run_file(conn, "get_cue_members", kind="person", key="melanie", visible=[tenant.key])
    assert sorted(rows[0]["ids"]) == sorted(turn_node_id(tenant, t) for t in ("D1:1", "D1:3", "D2:0", "D2:2"))
    rows = await run_file(conn, "get_cue_members", kind="session", key="session_2", visible=[tenant.key])
    assert sorted(rows[0]["ids"]) == sorted(turn_node_id(tenant, t) for t in ("D2:0", "D2:1", "D2:2"))


@pytest.mark.parametrize(
    ("turn", "field"),
    [
        ({"turn_id": "", "session_id": "s", "speaker": "a", "text": "hi"}, "turns[1]"),
        ({"turn_id": "t", "session_id": "s", "speaker": "a", "text": "   "}, "turns[1]"),
        (
            {"turn_id": "t", "session_id": "s", "speaker": "a", "text": "hi", "mood": "happy"},
            "turns[1]",
        ),
        ({"turn_id": "t", "session_id": "s" * 129, "speaker": "a", "text": "hi"}, "turns[1]"),
    ],
)
async def test_bad_turns_are_refused_before_anything_is_written(
    memory: Memory, tenant: Scope, turn: dict[str, str], field: str
) -> None:
    good = {"turn_id": "t0", "session_id": "s", "speaker": "a", "text": "fine"}
    with pytest.raises(InvalidInputError, match=field.replace("[", r"\[").replace("]", r"\]")):
        await memory.ingest(tenant, [good, turn])
    assert await internals(memory).episodic.count_events(tenant) == 0


async def test_injection_text_in_turns_is_stored_literally(memory: Memory, tenant: Scope) -> None:
    turn = ConversationTurn(turn_id=INJECTION, session_id=INJECTION, speaker=INJECTION, text=INJECTION)
    [stored] = await memory.ingest(tenant, [turn])
    node = await internals(memory).store.get_node(tenant, stored.id)
    assert node is not None and node.content == INJECTION and node.session_id == INJECTION
    assert node.properties["speaker"] == INJECTION and node.properties["turn_id"] == INJECTION


async def test_chunks_carry_the_next_edges_into_their_turns(memory: Memory, tenant: Scope) -> None:
    """Written in chunks of 2 turns (each chunk one transaction with the NEXT edges into its
    turns), sessions interleaved: every chain is whole, across chunk boundaries too."""
    turns = conversation()
    interleaved = [t for pair in zip(turns[:3], turns[4:], strict=True) for t in pair] + [turns[3]]
    progress: list[tuple[int, int]] = []
    await ingest_conversation(
        internals(memory).services,
        internals(memory).episodic,
        tenant,
        interleaved,
        batch_size=2,
        progress=lambda done, total: progress.append((done, total)),
    )
    assert progress == [(2, 7), (4, 7), (6, 7), (7, 7)]
    edges = await edges_of(internals(memory).store.conn, tenant)
    assert nexts(edges) == chain(edges, tenant, "D1:0", "D1:1", "D1:2", "D1:3") | chain(
        edges, tenant, "D2:0", "D2:1", "D2:2"
    )
