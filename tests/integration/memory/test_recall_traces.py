"""Recall and ingest over real Neo4j as spans: one ``hippograph.recall`` span with its stages
as children (the one statement's path and the stage-by-stage one), the scope key, the hits and
the timings on it; never the query's text."""

from __future__ import annotations

from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from hippograph.memory import ConversationTurn, Memory
from hippograph.scope import Scope
from hippograph.tracing import SCOPE_KEY
from tests.support.memory_internals import internals
from tests.support.recall_oracle import StagedRecallEngine
from tests.support.spans import children, one

TURNS = [
    ConversationTurn(
        turn_id="1", session_id="s1", speaker="Ann", text="I planted violets in the garden", occurred_at=1.0
    ),
    ConversationTurn(
        turn_id="2", session_id="s1", speaker="Bob", text="The garden needs a copper lantern", occurred_at=2.0
    ),
    ConversationTurn(
        turn_id="3", session_id="s1", speaker="Ann", text="Let us row on the river at dawn", occurred_at=3.0
    ),
]


async def test_a_recall_is_a_span_with_its_stages(memory: Memory, tenant: Scope, spans: InMemorySpanExporter) -> None:
    stored = await memory.ingest(tenant, TURNS)
    result = await memory.recall(tenant, "garden violets", top_k=2)
    assert result.items and not result.degraded

    finished = spans.get_finished_spans()
    ingest = one(finished, "hippograph.ingest")
    assert ingest.attributes is not None
    assert ingest.attributes[SCOPE_KEY] == tenant.key
    assert (
        ingest.attributes["hippograph.ingest.turns"]
        == 3
        == ingest.attributes["hippograph.ingest.stored"]
        == len(stored)
    )

    recall = one(finished, "hippograph.recall")
    assert recall.parent is None and recall.status.status_code is StatusCode.UNSET
    a = recall.attributes
    assert a is not None
    assert a[SCOPE_KEY] == tenant.key and a["hippograph.recall.top_k"] == 2
    assert a["hippograph.recall.hits"] == len(result.items)
    assert a["hippograph.recall.degraded"] == ()
    assert a["hippograph.recall.embed_ms"] == result.timings.embed_ms
    assert "garden violets" not in str(dict(a))  # the query never leaves as an attribute
    stages = [s.name for s in children(finished, recall)]
    assert stages == [
        "hippograph.recall.embed",
        "hippograph.recall.statement",
        "hippograph.recall.activation",
        "hippograph.recall.scoring",
    ]
    statement = one(finished, "hippograph.recall.statement")
    assert statement.attributes is not None
    assert statement.attributes["hippograph.recall.fulltext_candidates"] >= 1
    scoring = one(finished, "hippograph.recall.scoring")
    assert scoring.attributes is not None and scoring.attributes["hippograph.recall.hits"] == len(result.items)


async def test_a_staged_recall_shows_each_stage(memory: Memory, tenant: Scope, spans: InMemorySpanExporter) -> None:
    await memory.ingest(tenant, TURNS)
    spans.clear()
    staged = StagedRecallEngine(internals(memory).store, internals(memory).engine.embedder)
    result = await staged.recall(tenant, "garden violets", top_k=2)
    await staged.drain()
    assert result.items

    finished = spans.get_finished_spans()
    recall = one(finished, "hippograph.recall")
    assert [s.name for s in children(finished, recall)] == [
        "hippograph.recall.embed",
        "hippograph.recall.population",
        "hippograph.recall.channels",
        "hippograph.recall.activation",
        "hippograph.recall.scoring",
    ]
    population = one(finished, "hippograph.recall.population")
    assert population.attributes is not None and population.attributes["hippograph.recall.population"] >= 3
