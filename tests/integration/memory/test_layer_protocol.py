"""The uniform layer protocol (reference §1): every layer answers retrieve, write, summarize,
link, delete and render_for_prompt; what means nothing for a layer is a no-op, never an error."""

from __future__ import annotations

import pytest

from hippograph.errors import InvalidInputError
from hippograph.layers import MemoryLayer
from hippograph.memory import Memory
from hippograph.models import Layer, MemoryNode, Relationship
from hippograph.retrieval.types import RecallItem, ScoreParts
from hippograph.scope import Scope
from hippograph.scrub import REDACTED
from tests.support.memory_internals import internals

LAYERS = list(Layer)


@pytest.mark.parametrize("layer", LAYERS)
async def test_write_accepts_text_a_map_or_a_node_of_its_layer(memory: Memory, tenant: Scope, layer: Layer) -> None:
    impl = memory.get_layer(layer.value)
    assert impl is memory.get_layer(layer)
    from_text = await impl.write(tenant, "the harbor lantern")
    from_map = await impl.write(tenant, {"label": "map entry", "content": "from a map", "layer": "semantic"})
    from_node = await impl.write(tenant, MemoryNode(layer=layer, content="from a node"))
    for written in (from_text, from_map, from_node):
        assert written is not None and written.layer is layer and written.scope_key == tenant.key
        stored = await internals(memory).store.get_node(tenant, written.id)
        assert stored is not None and stored.layer is layer
    assert from_text is not None and from_text.label == "the harbor lantern"
    assert await impl.count(tenant) == 3


@pytest.mark.parametrize("layer", LAYERS)
async def test_write_refuses_bad_entries_and_writes_nothing(memory: Memory, tenant: Scope, layer: Layer) -> None:
    impl = memory.get_layer(layer)
    other = next(x for x in Layer if x is not layer)
    with pytest.raises(InvalidInputError, match=r"entry\.layer"):
        await impl.write(tenant, MemoryNode(layer=other, content="wrong layer"))
    with pytest.raises(InvalidInputError, match=r"entry\.importance"):
        await impl.write(tenant, {"content": "x", "importance": 99})
    with pytest.raises(InvalidInputError, match=r"entry\.id"):
        await impl.write(tenant, {"content": "x", "id": "bad id with spaces"})
    with pytest.raises(InvalidInputError, match=r"entry\.colour"):
        await impl.write(tenant, {"content": "x", "colour": "blue"})
    assert await impl.count(tenant) == 0


@pytest.mark.parametrize("layer", LAYERS)
async def test_summarize_is_extractive_over_texts_nodes_and_items(memory: Memory, tenant: Scope, layer: Layer) -> None:
    node = MemoryNode(layer=layer, content="First point. Middle. Last point.")
    item = RecallItem(node=MemoryNode(layer=layer, content="Only sentence"), score=1.0, parts=ScoreParts())
    summary = await memory.get_layer(layer).summarize(tenant, ["Alpha. Beta.", node, item])
    assert summary == "Alpha. … Beta.\nFirst point. … Last point.\nOnly sentence"
    assert await memory.get_layer(layer).summarize(tenant, []) == ""


@pytest.mark.parametrize("layer", LAYERS)
async def test_link_and_delete(memory: Memory, tenant: Scope, layer: Layer) -> None:
    impl = memory.get_layer(layer)
    a = await impl.write(tenant, "first entry for linking")
    b = await impl.write(tenant, "second entry for linking")
    assert a is not None and b is not None
    edge = await impl.link(tenant, a.id, b.id, Relationship.RELATES_TO)
    assert edge is not None and (edge.source, edge.target, edge.weight) == (a.id, b.id, 1.0)
    assert await impl.delete(tenant, a.id) is True  # cascades its edges
    assert await impl.delete(tenant, a.id) is False  # already gone: a no-op
    assert await internals(memory).store.get_node(tenant, a.id) is None
    assert await internals(memory).store.get_neighbors(tenant, b.id) == []


@pytest.mark.parametrize("layer", LAYERS)
async def test_a_child_cannot_delete_its_parents_memory(memory: Memory, tenant: Scope, layer: Layer) -> None:
    impl = memory.get_layer(layer)
    parent_entry = await impl.write(tenant, "belongs to the parent")
    assert parent_entry is not None
    assert await impl.delete(tenant.child("user", "u"), parent_entry.id) is False
    assert await internals(memory).store.get_node(tenant, parent_entry.id) is not None


@pytest.mark.parametrize("layer", LAYERS)
async def test_retrieve_on_an_empty_scope_is_empty_not_an_error(memory: Memory, tenant: Scope, layer: Layer) -> None:
    assert await memory.get_layer(layer).retrieve(tenant, "anything at all") == []


async def test_prospective_retrieve_is_a_no_op(memory: Memory, tenant: Scope) -> None:
    written = await internals(memory).prospective.write(tenant, "harbor lantern")
    assert written is not None and await internals(memory).prospective.retrieve(tenant, "harbor lantern") == []


@pytest.mark.parametrize("layer", LAYERS)
async def test_render_for_prompt_names_the_layer_and_scrubs_credentials(
    memory: Memory, tenant: Scope, layer: Layer
) -> None:
    impl: MemoryLayer = memory.get_layer(layer)
    node = MemoryNode(
        layer=layer, label="access", content="use Bearer abcdefghijklmnopqrstuvwxyz to log in",
        properties={"api_key": "sk-ant-0123456789abcdefghij", "note": "password=hunter2", "steps": ["token: s3cr3t"],
                    "condition": "login needed", "task": "password is hunter2"},
    )  # fmt: skip
    for entry in (node, RecallItem(node=node, score=1.0, parts=ScoreParts())):
        text = impl.render_for_prompt(entry)
        assert text.startswith(f"[{layer.value}")
        for secret in (
            "abcdefghijklmnopqrstuvwxyz",
            "sk-ant-0123456789abcdefghij",
            "hunter2",
            "s3cr3t",
        ):
            assert secret not in text
        assert REDACTED in text


async def test_thinking_renders_as_thinking(memory: Memory, tenant: Scope) -> None:
    thought = await internals(memory).working.push(tenant, "maybe the user wants the tram tour", kind="thinking")
    assert (
        internals(memory).working.render_for_prompt(thought) == "[working thinking] maybe the user wants the tram tour"
    )


@pytest.mark.parametrize("name", ["Semantic", "facts", "", "semantic ", "x`}) DETACH DELETE n //", None, 3])
async def test_get_layer_refuses_unknown_names(memory: Memory, name: object) -> None:
    with pytest.raises(InvalidInputError, match="layer"):
        memory.get_layer(name)  # type: ignore[arg-type]
