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


# -- namespaces -------------------------------------------------------------------------------

namespaces = st.sampled_from([None, "support", "sales", "s", "s1"])


def test_namespace_is_part_of_the_key_and_round_trips() -> None:
    bob = Scope.root("org", "acme").child("user", "bob")
    support = bob.in_namespace("support")
    assert support.key == "org:acme/user:bob/@support"
    assert support.path_key == bob.key and support.path == bob and bob.path == bob
    assert support != bob and support != bob.in_namespace("sales")
    assert Scope.parse(support.key) == support
    assert Scope.parse(bob.key, namespace="support") == support
    assert Scope.parse(support.key, namespace="support") == support
    assert Scope.from_path(bob.to_path(), namespace="support") == support
    assert Scope.root("org", "acme", namespace="support").key == "org:acme/@support"
    assert support.child("conversation", "c1").namespace == "support"
    assert bob.in_namespace("") == bob and bob.in_namespace(None) == bob and support.in_namespace(None) == bob
    assert str(support) == support.key


def test_without_namespace_nothing_changes() -> None:
    conv = Scope.root("org", "acme").child("user", "bob").child("conversation", "c1")
    assert conv.namespace is None and conv.key == conv.path_key
    assert conv.ancestor_keys() == ["org:acme", "org:acme/user:bob", "org:acme/user:bob/conversation:c1"]
    assert conv.ancestor_distances() == {"org:acme": 2, "org:acme/user:bob": 1, conv.key: 0}


def test_tenant_accessors() -> None:
    org = Scope.root("org", "acme")
    assert org.tenant_id == "acme" and org.sub_tenant_id is None
    conv = org.child("user", "bob").child("conversation", "c1").in_namespace("support")
    assert conv.tenant_id == "acme" and conv.sub_tenant_id == "bob"


def test_namespaced_visibility_shares_only_the_default_namespace() -> None:
    bob = Scope.root("org", "acme").child("user", "bob")
    support, sales = bob.in_namespace("support"), bob.in_namespace("sales")
    conv = support.child("conversation", "c1")
    assert conv.ancestor_keys() == [
        "org:acme",
        "org:acme/@support",
        "org:acme/user:bob",
        "org:acme/user:bob/@support",
        "org:acme/user:bob/conversation:c1",
        "org:acme/user:bob/conversation:c1/@support",
    ]
    assert conv.distance_to("org:acme") == 2 and conv.distance_to("org:acme/@support") == 2
    assert conv.distance_to(bob.key) == 1 and conv.distance_to(support.key) == 1
    assert conv.distance_to(sales.key) is None and conv.distance_to("org:acme/@sales") is None
    assert support.sees(bob) and support.sees(support) and not support.sees(sales)
    assert not bob.sees(support), "the default namespace does not see into a namespace"
    assert conv.sees(support) and not support.sees(conv)
    assert Scope.root("org", "acme", namespace="s").key not in support.ancestor_keys()


def test_namespaced_scope_sits_below_its_path_in_the_key_tree() -> None:
    bob = Scope.root("org", "acme").child("user", "bob")
    support = bob.in_namespace("support")
    assert support.parent == bob
    assert bob.is_ancestor_of(support) and bob.is_ancestor_of(support.child("conversation", "c1"))
    assert support.is_ancestor_of(support) and not support.is_ancestor_of(bob)
    assert not support.is_ancestor_of(support.child("conversation", "c1"))
    assert not support.is_ancestor_of(bob.in_namespace("support2"))
    assert support.key.startswith(bob.subtree_prefix)


@pytest.mark.parametrize("bad", ["has space", "a/b", "a:b", "@x", "-lead", "x" * 65, "tab\t", 5])
def test_invalid_namespaces_are_refused(bad: object) -> None:
    with pytest.raises(InvalidScopeError) as err:
        Scope.root("org", "acme", namespace=bad)  # type: ignore[arg-type]
    assert err.value.field == "namespace"


def test_parse_refuses_conflicting_or_empty_namespaces() -> None:
    with pytest.raises(InvalidScopeError, match="namespace"):
        Scope.parse("org:acme/@support", namespace="sales")
    with pytest.raises(InvalidScopeError):
        Scope.parse("org:acme/@")
    with pytest.raises(InvalidScopeError):
        Scope.parse("@support")
    with pytest.raises(InvalidScopeError):
        Scope.parse("org:acme/@a/@b")


@given(st.lists(ids, min_size=1, max_size=5), namespaces, namespaces)
def test_namespaced_key_roundtrip_and_sight(levels: list[str], ns: str | None, other: str | None) -> None:
    s = Scope.from_path([(f"k{i}", v) for i, v in enumerate(levels)], namespace=ns)
    assert Scope.parse(s.key) == s
    assert s.ancestor_keys()[-1] == s.key and s.ancestor_keys()[0] == Scope(s.levels[:1]).key
    assert all(s.sees(a) for a in s.ancestors())
    assert set(s.ancestor_keys()) == {a.key for a in s.ancestors()}
    for n in range(1, len(s.levels) + 1):
        up = Scope(s.levels[:n], other)
        assert (up.key in s.ancestor_keys()) == s.sees(up) == (other in (None, ns))


# ids near each other in order (prefixes, '-', '.', and characters far above ASCII) and any id
# the validation lets through, so the chain interval is tried against prefix traps
chain_ids = st.one_of(
    st.sampled_from(["c", "cc", "c-", "c.", "c_d", "-", ".", "Ω", "c\U0001f600", "\uffee", "é"]),
    st.text(alphabet=st.characters(exclude_categories=["C", "Z"], exclude_characters="/:`\\"), min_size=1, max_size=6),
)
chain_kinds = st.sampled_from(["a", "ab", "b", "z9", "a_"])


@st.composite
def scope_pairs(draw: st.DrawFn) -> tuple[Scope, Scope]:
    """A query scope and a memory scope, the latter often a near miss of one of its ancestors."""
    kinds = draw(st.lists(chain_kinds, min_size=1, max_size=4, unique=True))
    query = Scope.from_path([(k, draw(chain_ids)) for k in kinds], namespace=draw(namespaces))
    cut = draw(st.integers(1, len(kinds) + 1))
    levels = list(query.levels[:cut])
    if draw(st.booleans()):  # change one level: a sibling, a cousin or a prefix of one
        n = draw(st.integers(0, len(levels) - 1))
        levels[n] = (levels[n].kind, draw(chain_ids))
    if draw(st.booleans()):
        extra = [k for k in ("a", "b", "c") if k not in {lvl[0] for lvl in levels}]
        levels.append((extra[0], draw(chain_ids)))
    return query, Scope.from_path(levels, namespace=draw(namespaces))


@given(scope_pairs())
def test_the_chain_interval_holds_exactly_the_visible_scopes(pair: tuple[Scope, Scope]) -> None:
    query, memory = pair
    inside = any(memory.chain_lo <= x < memory.chain_hi for x in query.chain_points())
    assert inside == (memory.key in query.ancestor_keys()) == query.sees(memory)


@given(scope_pairs())
def test_every_ancestor_contains_a_point(pair: tuple[Scope, Scope]) -> None:
    query, _ = pair
    for ancestor in query.ancestors():
        assert any(ancestor.chain_lo <= x < ancestor.chain_hi for x in query.chain_points())
    assert len(query.chain_points()) == (2 if query.namespace else 1)
