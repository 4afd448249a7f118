"""The property map a memory is stored as carries its scope's fields, including the chain
interval the vector indexes filter by, and reading it back drops them again."""

from __future__ import annotations

from hippograph.models import Layer, MemoryNode
from hippograph.scope import Scope
from hippograph.store.mapping import node_to_props, props_to_node


def test_props_carry_the_scope_chain_and_read_back_without_it() -> None:
    scope = Scope.parse("org:acme/team:x-1/user:bob", namespace="support")
    node = MemoryNode(layer=Layer.SEMANTIC, content="bob likes tea", embedding=[0.5, 0.5])
    props = node_to_props(node, scope)
    assert props["scope_key"] == "org:acme/team:x-1/user:bob/@support"
    assert props["scope_lo"] == "@support\x01org:acme\x01team:x-1\x01user:bob" == scope.chain_lo
    assert props["scope_hi"] == props["scope_lo"] + "\x02"
    back = props_to_node(props)
    assert back.content == node.content and back.scope_key == scope.key
    assert "scope_lo" not in back.model_dump() and "scope_hi" not in back.model_dump()
