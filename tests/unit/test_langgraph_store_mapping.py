"""The LangGraph store's pure parts: namespaces as scopes and back, value filters, namespace
match conditions, the searched text of a value, a ttl as the fact's expiry and the TTL config."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from langgraph.store.base import InvalidNamespaceError, MatchCondition

from hippograph.errors import ConfigurationError, InvalidInputError
from hippograph.integrations.langgraph_store import (
    HippographStore,
    expiry,
    is_expired,
    matches_filter,
    namespace_matches,
    namespace_scope,
    scope_namespace,
    ttl_settings,
)
from hippograph.models import Layer, MemoryNode
from hippograph.scope import Scope

ROOT = Scope.root("app", "agent")
LABEL = st.text(min_size=1, max_size=20).filter(lambda s: "." not in s and "\x00" not in s)


def test_a_namespace_is_one_scope_level_per_label() -> None:
    scope = namespace_scope(ROOT, ("users", "ana", "prefs"))
    assert scope.key == "app:agent/ns1:users/ns2:ana/ns3:prefs"
    assert namespace_scope(ROOT, ()) == ROOT
    assert scope_namespace(ROOT, scope.key) == ("users", "ana", "prefs")


@given(st.lists(LABEL, min_size=1, max_size=7))
def test_any_label_langgraph_accepts_maps_to_a_scope_and_back(labels: list[str]) -> None:
    namespace = tuple(labels)
    try:
        scope = namespace_scope(ROOT, namespace)
    except InvalidNamespaceError as exc:  # only a label too long once encoded is refused
        assert "once encoded" in str(exc)
        return
    assert scope_namespace(ROOT, scope.key) == namespace
    assert Scope.parse(scope.key) == scope


def test_separators_and_spaces_in_labels_are_encoded() -> None:
    scope = namespace_scope(ROOT, ("a/b", "c:d", "e f", "`x`\\", "50%"))
    assert scope.key == "app:agent/ns1:a%2Fb/ns2:c%3Ad/ns3:e%20f/ns4:%60x%60%5C/ns5:50%25"
    assert scope_namespace(ROOT, scope.key) == ("a/b", "c:d", "e f", "`x`\\", "50%")


def test_too_deep_or_too_long_namespaces_are_refused() -> None:
    with pytest.raises(InvalidNamespaceError, match="deeper"):
        namespace_scope(ROOT, tuple("abcdefgh"))
    with pytest.raises(InvalidNamespaceError, match="once encoded"):
        namespace_scope(ROOT, ("é" * 30,))


@pytest.mark.parametrize(
    ("conditions", "expected"),
    [
        ({"kind": "note"}, True),
        ({"kind": "todo"}, False),
        ({"n": {"$gt": 2, "$lte": 3}}, True),
        ({"n": {"$lt": 3}}, False),
        ({"n": {"$ne": 4}}, True),
        ({"missing": {"$ne": 1}}, True),
        ({"missing": {"$gt": 1}}, False),
        ({"kind": {"$gt": 1}}, False),
        ({"meta": {"lang": "en"}}, True),
        ({"meta": {"lang": "fr"}}, False),
        ({"tags": ["a", "b"]}, True),
        ({"tags": ["a"]}, False),
        ({"kind": "note", "n": 3}, True),
    ],
)
def test_filters_compare_value_fields(conditions: dict[str, Any], expected: bool) -> None:
    value = {"kind": "note", "n": 3, "meta": {"lang": "en"}, "tags": ["a", "b"]}
    assert matches_filter(value, conditions) is expected


def test_an_unknown_filter_operator_is_a_caller_error() -> None:
    with pytest.raises(InvalidInputError, match=r"\$in"):
        matches_filter({"n": 1}, {"n": {"$in": [1]}})


@pytest.mark.parametrize(
    ("condition", "namespace", "expected"),
    [
        (MatchCondition("prefix", ("users",)), ("users", "ana"), True),
        (MatchCondition("prefix", ("users", "*", "prefs")), ("users", "ana", "prefs"), True),
        (MatchCondition("prefix", ("docs",)), ("users", "ana"), False),
        (MatchCondition("suffix", ("prefs",)), ("users", "ana", "prefs"), True),
        (MatchCondition("suffix", ("*", "prefs")), ("users", "ana", "prefs"), True),
        (MatchCondition("suffix", ("ana",)), ("users", "ana", "prefs"), False),
        (MatchCondition("prefix", ("users", "ana", "prefs", "x")), ("users", "ana", "prefs"), False),
    ],
)
def test_namespace_conditions(condition: MatchCondition, namespace: tuple[str, ...], expected: bool) -> None:
    assert namespace_matches(condition, namespace) is expected


def test_the_index_takes_only_fields() -> None:
    with pytest.raises(ConfigurationError, match="own embedder"):
        HippographStore(None, ROOT, index={"dims": 1536, "fields": ["text"]})  # type: ignore[arg-type,typeddict-unknown-key]


@pytest.mark.parametrize(
    ("fields", "index", "expected"),
    [
        (None, None, '{"n": 3, "notes": [{"body": "first"}, {"body": "second"}], "text": "Ana likes tea"}'),
        (["text"], None, "Ana likes tea"),
        (["notes[*].body"], None, "first\nsecond"),
        (["text"], ["notes[0].body"], "first"),
        (["text"], False, ""),
        (["absent"], None, ""),
    ],
)
def test_the_searched_text_of_a_value(fields: list[str] | None, index: Any, expected: str) -> None:
    store = HippographStore(None, ROOT, index={"fields": fields})  # type: ignore[arg-type]
    value = {"text": "Ana likes tea", "n": 3, "notes": [{"body": "first"}, {"body": "second"}]}
    assert store._text(value, index) == expected


def test_a_ttl_in_minutes_is_the_facts_ttl_and_expiry_in_seconds() -> None:
    assert expiry(None, 1000.0) == (None, None)
    assert expiry(2, 1000.0) == (120.0, 1120.0)
    assert expiry(0.25, 1000.0) == (15.0, 1015.0)
    for bad in (0, -1, float("nan"), float("inf"), True, "5"):
        with pytest.raises(InvalidInputError, match="ttl"):
            expiry(bad, 1000.0)  # type: ignore[arg-type]


def test_an_item_is_expired_from_its_valid_until_on() -> None:
    fact = MemoryNode(layer=Layer.SEMANTIC, key="k", ttl=60.0, valid_until=1060.0)
    assert not is_expired(fact, 1059.9)
    assert is_expired(fact, 1060.0) and is_expired(fact, 2000.0)
    assert not is_expired(MemoryNode(layer=Layer.SEMANTIC, key="k"), 1e12)


def test_the_ttl_config_is_checked() -> None:
    assert ttl_settings(None) is None
    config = {"default_ttl": 5, "refresh_on_read": False, "sweep_interval_minutes": 1, "omit_expired": False}
    assert ttl_settings(config) == config
    assert ttl_settings({"default_ttl": None}) == {"default_ttl": None}
    with pytest.raises(ConfigurationError, match="strategy"):
        ttl_settings({"strategy": "delete"})
    for bad in ({"default_ttl": 0}, {"default_ttl": -5}, {"sweep_interval_minutes": float("nan")}):
        with pytest.raises(ConfigurationError, match="positive"):
            ttl_settings(bad)


def test_the_store_takes_the_ttl_config() -> None:
    store = HippographStore(None, ROOT, ttl={"default_ttl": 10})  # type: ignore[arg-type]
    assert store.supports_ttl is True and store.ttl_config == {"default_ttl": 10}
    assert HippographStore(None, ROOT).ttl_config is None  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError):
        HippographStore(None, ROOT, ttl={"default_ttl": -1})  # type: ignore[arg-type]


def test_the_sweeper_needs_the_loop() -> None:
    store = HippographStore(None, ROOT, ttl={"sweep_interval_minutes": 1})  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="event loop"):
        store.start_ttl_sweeper()
    assert store.stop_ttl_sweeper() is True  # nothing to stop


def test_the_store_refuses_a_namespaced_scope() -> None:
    with pytest.raises(ConfigurationError, match="namespace"):
        HippographStore(None, ROOT.in_namespace("support"))  # type: ignore[arg-type]
