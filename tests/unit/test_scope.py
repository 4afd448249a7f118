from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hippograph.errors import InvalidScopeError
from hippograph.scope import MAX_DEPTH, Scope, scope_weight

ids = st.text(alphabet=st.characters(categories=["L", "N"], include_characters="-_.@"), min_size=1, max_size=20)


def test_root_child_key_and_ancestors() -> None:
    s = Scope.root("org", "acme").child("user", "bob").child("conversation", "c1")
    assert s.key == "org:acme/user:bob/conversation:c1"
    assert s.ancestor_keys() == ["org:acme", "org:acme/user:bob", "org:acme/user:bob/conversation:c1"]
    assert s.parent == Scope.root("org", "acme").child("user", "bob")
    assert s.depth == 3 and s.kind == "conversation" and s.id == "c1"
    assert Scope.parse(s.key) == s
    assert Scope.from_path(s.to_path()) == s
    assert Scope.from_path([("org", "acme")]) == Scope.root("org", "acme")


def test_distance_and_visibility() -> None:
    org = Scope.root("org", "acme")
    conv = org.child("user", "bob").child("conversation", "c1")
    assert conv.distance_to(org.key) == 2
    assert conv.distance_to(conv.key) == 0
    assert conv.distance_to("org:other") is None
    assert org.is_ancestor_of(conv) and not conv.is_ancestor_of(org)
    sibling = org.child("user", "alice")
    assert sibling.distance_to(conv.key) is None
    assert scope_weight(0) == 1.0 and scope_weight(1) == 0.5 and scope_weight(2) == 0.25


@pytest.mark.parametrize(
    ("kind", "ident", "field"),
    [
        ("org", "", "scope[0].id"),
        ("org", "a/b", "scope[0].id"),
        ("org", "a:b", "scope[0].id"),
        ("org", "x`}) DETACH DELETE n //", "scope[0].id"),
        ("org", "tab\there", "scope[0].id"),
        ("Org", "acme", "scope[0].kind"),
        ("", "acme", "scope[0].kind"),
        ("org", "x" * 200, "scope[0].id"),
    ],
)
def test_invalid_levels_name_the_field(kind: str, ident: str, field: str) -> None:
    with pytest.raises(InvalidScopeError) as err:
        Scope.root(kind, ident)
    assert err.value.field == field
    assert isinstance(err.value, ValueError)


def test_kinds_unique_and_depth_bounded() -> None:
    with pytest.raises(InvalidScopeError, match="unique"):
        Scope.root("org", "a").child("org", "b")
    s = Scope.root("l0", "x")
    for i in range(1, MAX_DEPTH):
        s = s.child(f"l{i}", "x")
    with pytest.raises(InvalidScopeError, match="deeper"):
        s.child("extra", "x")


@given(st.lists(ids, min_size=1, max_size=5))
def test_key_roundtrip(levels: list[str]) -> None:
    s = Scope.from_path([(f"k{i}", v) for i, v in enumerate(levels)])
    assert Scope.parse(s.key) == s
    assert s.ancestor_keys()[-1] == s.key
    assert all(a.is_ancestor_of(s) for a in s.ancestors())
