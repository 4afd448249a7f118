"""The memory capability of one scope, against the real Neo4j: recall within a UTF-8 byte
budget, never a sibling's memories, record → recall on the next turn, extraction after the
final round, the nap cadence, erase."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from hippograph.agent import ModelExtractor, demo_extractor, demo_model
from hippograph.consolidation import ConsolidationConfig, ConsolidationReport, SleepConsolidator
from hippograph.errors import ConfigurationError, InvalidInputError, StoreError
from hippograph.llm import ScriptedModel, ScriptedReply
from hippograph.memory import Exchange, Memory, MemoryCapability, RecordPolicy
from hippograph.ops import MemoryOp, UpsertNode
from hippograph.scope import Scope
from hippograph.store import Neo4jConnection
from tests.integration.agent.conftest import MakeAgent
from tests.support.memory_internals import internals

pytestmark = pytest.mark.integration

CITIES = [
    ("Zürich", "Die Nutzerin wohnt in Zürich, nahe dem Seeufer — Grüße! 🏔️"),
    ("東京", "ユーザーの妹は東京に住んでいて、毎朝コーヒーを飲みます ☕"),
    ("Kraków", "Użytkownik lubi pierogi z Krakowa i żurek w niedzielę 🥟"),
    ("Αθήνα", "Ο χρήστης ταξιδεύει στην Αθήνα κάθε καλοκαίρι για διακοπές ☀️"),
]


def _upsert(label: str, content: str) -> UpsertNode:
    return UpsertNode(op="upsert_node", label=label, content=content)


async def test_recall_stays_within_the_utf8_byte_budget(tenant: Scope, memory: Memory) -> None:
    for label, content in CITIES:
        await memory.remember(tenant, f"{label} note", content)
    query = "Zürich 東京 Kraków Αθήνα"
    unbounded = await memory.for_scope(tenant, limit=10).recall(query, include_working=False)
    assert len(unbounded.ids) >= 2 and unbounded.bytes > len(unbounded.text)  # multibyte text
    sizes = [len(line.encode("utf-8")) for line in unbounded.text.splitlines() if line != "Associated Context:"]

    for budget in (min(sizes) - 1, min(sizes), unbounded.bytes // 2, unbounded.bytes - 1, unbounded.bytes):
        found = await memory.for_scope(tenant, limit=10, budget=budget).recall(query, include_working=False)
        assert found.bytes == len(found.text.encode("utf-8")) <= budget
        assert set(found.ids) | set(found.dropped) >= set(unbounded.ids)
        kept = [line for line in found.text.splitlines() if line != "Associated Context:"]
        assert len(kept) == len(found.ids)  # whole memories only, never a cut character
        assert all(line in unbounded.text.splitlines() for line in kept)
        if budget < min(sizes):
            assert found.ids == [] and found.text == ""
        elif budget < unbounded.bytes:
            assert len(found.ids) < len(unbounded.ids)
        else:
            assert found.ids == unbounded.ids and found.text == unbounded.text


async def test_a_bound_scope_never_reads_a_sibling(tenant: Scope, memory: Memory) -> None:
    alice = memory.for_scope(tenant.child("user", "alice"))
    bob = memory.for_scope(tenant.child("user", "bob"))
    await memory.remember(tenant, "office", "The team's office is in Porto.")
    await alice.record("My dog is called Rex.", "Noted.", ops=[_upsert("user's dog", "The user's dog is called Rex.")])

    mine = await alice.recall("What is my dog called? Where is the office?")
    theirs = await bob.recall("What is my dog called? Where is the office?")
    assert "Rex" in mine.text and "Porto" in mine.text
    assert "Rex" not in theirs.text and "Porto" in theirs.text  # the parent is shared, the sibling is not
    assert all("Rex" not in item.node.content for item in theirs.result.items)
    assert alice.scope == tenant.child("user", "alice")


async def test_a_recorded_exchange_is_recalled_on_the_next_turn(tenant: Scope, memory: Memory) -> None:
    me = memory.for_scope(tenant.child("user", "carol"), budget=2_000)
    first = await me.recall("What is my cat called?")
    assert "Tom" not in first.text

    report = await me.record(
        "My cat is called Tom.", "Nice to meet Tom!", session_id="chat-1", thinking="A fact to keep.",
        ops=[_upsert("user's cat", "The user's cat is called Tom.")],
    )  # fmt: skip
    assert report.failures == [] and report.turn_event_id is not None
    [fact_id] = report.mentions
    assert len(report.working_ids) == 2

    second = await me.recall("What is my cat called?")
    assert fact_id in second.ids and "The user's cat is called Tom." in second.text
    assert "[working] User: My cat is called Tom. | Agent: Nice to meet Tom!" in second.text
    await me.flush()


class _Failing:
    async def extract(self, exchange: Exchange) -> Sequence[MemoryOp]:
        raise StoreError("extraction model down")


async def test_the_extractor_runs_after_the_final_round_and_its_ops_are_written(tenant: Scope, memory: Memory) -> None:
    model = ScriptedModel(
        [
            ScriptedReply(
                text='Here you go:\n<MEMORY_EXTRACT>{"ops": [{"op": "upsert_node", "label": "user\'s bike", '
                '"content": "The user rides a red bike.", "importance": 6}, {"op": "bogus"}]}</MEMORY_EXTRACT>'
            )
        ]
    )
    extractor = ModelExtractor(model, max_tokens=256)
    me = memory.for_scope(tenant, extractor=extractor)
    report = await me.record("I ride a red bike to work.", "A red bike, nice.")
    assert [op.op for op in report.extracted] == ["upsert_node"]
    assert extractor.last is not None and [i.index for i in extractor.last.invalid] == [1]
    [request] = model.requests
    assert '"I ride a red bike to work."' in request.messages[0].text
    assert '"A red bike, nice."' in request.messages[0].text
    assert report.commit is not None and len(report.mentions) == 1
    found = await me.recall("What do I ride?")
    assert "The user rides a red bike." in found.text

    offline = memory.for_scope(tenant.child("user", "dan"), extractor=demo_extractor())
    kept = await offline.record("I live in Lisbon.", "Lisbon is lovely.")
    assert [op.model_dump()["content"] for op in kept.extracted] == ["The user lives in Lisbon."]
    asked = await offline.record("Where do I live?", "In Lisbon.")
    assert asked.extracted == []

    broken = memory.for_scope(tenant.child("user", "erin"), extractor=_Failing())
    failed = await broken.record("My name is Erin.", "Hi Erin.")
    assert [(f.step, f.error_type) for f in failed.failures] == [("extract", "StoreError")]
    assert failed.turn_event_id is not None and failed.working_ids, "the exchange is still recorded"


async def test_the_cadence_triggers_a_quick_nap(tenant: Scope, memory: Memory, conn: Neo4jConnection) -> None:
    consolidator = SleepConsolidator(conn, ConsolidationConfig(turns_between_naps=2))
    me = memory.for_scope(tenant, consolidation=consolidator)
    reports = []
    for i in range(4):
        reports.append(await me.record(f"Message {i}.", f"Reply {i}."))
        assert await me.wait_idle() == []  # the nap runs in the background; this waits for it
    assert [r.nap_due for r in reports] == [False, True, False, True]
    assert [isinstance(r.nap, ConsolidationReport) for r in reports] == [False, True, False, True]
    assert all(r.failures == [] for r in reports)
    told = await me.record("One more.", "Sure.", nap=False)  # a host that counts turns itself
    assert not told.nap_due and told.nap is None


async def test_forget_erases_the_scope_and_nothing_else(tenant: Scope, memory: Memory) -> None:
    frank = memory.for_scope(tenant.child("user", "frank"))
    gina = memory.for_scope(tenant.child("user", "gina"))
    for me in (frank, gina):
        await me.record("My bird is called Kiwi.", "Noted.", ops=[_upsert("user's bird", "The user's bird is Kiwi.")])
    assert await frank.forget() > 0
    assert "Kiwi" not in (await frank.recall("What is my bird called?")).text
    assert "Kiwi" in (await gina.recall("What is my bird called?")).text


async def test_the_policy_decides_what_is_recorded(tenant: Scope, memory: Memory) -> None:
    policy = RecordPolicy(store_turn_episodic=False, store_turn_working=False, apply_ops=False)
    me = memory.for_scope(tenant, policy=policy)
    report = await me.record("My fish is Nemo.", "Nice.", ops=[_upsert("user's fish", "Nemo")])
    assert report.turn_event_id is None and report.working_ids == [] and report.commit is None
    assert await internals(memory).store.query_subtree(tenant) == []


async def test_bad_construction_and_input_are_refused(tenant: Scope, memory: Memory) -> None:
    with pytest.raises(InvalidInputError, match="limit"):
        memory.for_scope(tenant, limit=0)
    with pytest.raises(InvalidInputError, match="budget"):
        memory.for_scope(tenant, budget=0)
    with pytest.raises(InvalidInputError, match="scope"):
        memory.for_scope("org/acme")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="extractor"):
        memory.for_scope(tenant, extractor=object())  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="consolidation"):
        memory.for_scope(tenant, consolidation=object())  # type: ignore[arg-type]
    capability = memory.for_scope(tenant)
    assert isinstance(capability, MemoryCapability)
    with pytest.raises(InvalidInputError, match="exchange"):
        await capability.record(" ", "")


async def test_the_agent_records_through_the_capability_with_its_extractor(
    tenant: Scope, make_agent: MakeAgent
) -> None:
    extraction = ScriptedModel(
        [ScriptedReply(text='<MEMORY_EXTRACT>{"ops": [{"op": "upsert_node", "label": "weather", '
                            '"content": "The user enjoys sunny weather."}]}</MEMORY_EXTRACT>')]
    )  # fmt: skip
    agent = make_agent(demo_model(), extractor=ModelExtractor(extraction))
    first = await agent.run(tenant, "The sun is out and I am happy about it.")
    assert first.memory is not None and first.memory.ops == []  # the reply itself kept nothing
    [report] = await agent.drain()
    assert report.errors == [] and [op.op for op in report.extracted] == ["upsert_node"]
    assert len(report.mentions) == 1 and report.turn_event_id is not None
    second = await agent.run(tenant, "What weather do I enjoy?")
    assert second.text == "From what I remember: weather: The user enjoys sunny weather."
