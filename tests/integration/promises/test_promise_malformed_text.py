"""Issue 9 #11: every malformed text is an InvalidInputError on every path — a query with a
lone surrogate included (writes already refuse it; recall used to raise a raw TypeError from
the tokenizer)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest

from hippograph.agent import Agent, AgentConfig
from hippograph.embeddings import SentenceTransformerEmbeddings
from hippograph.errors import InvalidInputError
from hippograph.llm import ScriptedModel
from hippograph.memory import Memory
from hippograph.models import Layer
from hippograph.scope import Scope
from hippograph.store import GraphStore
from tests.integration.memory.helpers import TickingClock
from tests.support.memory_internals import internals

LONE = ["\ud800", "Bob \udfff lives where?", "a\ud83d"]


@pytest.fixture(scope="module")
def minilm() -> SentenceTransformerEmbeddings:
    return SentenceTransformerEmbeddings()


def _paths(memory: Memory, scope: Scope, text: str) -> dict[str, Callable[[], Awaitable[object]]]:
    return {
        "recall": lambda: memory.recall(scope, text),
        "context": lambda: memory.context(scope, text),
        "semantic.retrieve": lambda: internals(memory).semantic.retrieve(scope, text),
        "episodic.retrieve": lambda: memory.get_layer(Layer.EPISODIC).retrieve(scope, text),
        "remember": lambda: memory.remember(scope, text, text),
        "working.push": lambda: internals(memory).working.push(scope, text),
        "episodic.store_event": lambda: internals(memory).episodic.store_event(scope, text),
        "prospective.set_trigger": lambda: internals(memory).prospective.set_trigger(scope, text, "say hi"),
        "procedural.store_skill": lambda: internals(memory).procedural.store_skill(scope, text, ["step one"]),
        "semantic.query_facts": lambda: internals(memory).semantic.query_facts(scope, label=text),
        "episodic.query_events": lambda: internals(memory).episodic.query_events(scope, session_id=text),
        "agent.run": lambda: Agent(memory, ScriptedModel(lambda request: "ok"), AgentConfig()).run(scope, text),
    }


@pytest.mark.parametrize("embedder", ["hashing", "minilm"])
async def test_a_lone_surrogate_is_an_invalid_input_on_every_path(
    store: GraphStore, tenant: Scope, embedder: str, request: pytest.FixtureRequest
) -> None:
    memory = Memory(store, request.getfixturevalue(embedder), clock=TickingClock())
    await memory.remember(tenant, "Bob's city", "Bob lives in Lisbon.")
    wrong: dict[str, str] = {}
    for text in LONE:
        for name, call in _paths(memory, tenant, text).items():
            try:
                await call()
            except InvalidInputError:
                continue
            except Exception as exc:  # anything else is the defect
                wrong[f"{name}({text!r})"] = type(exc).__name__
            else:
                wrong[f"{name}({text!r})"] = "accepted"
    await internals(memory).engine.drain()
    assert wrong == {}
    assert len(await store.query_subtree(tenant)) == 1  # nothing of the malformed writes was stored
