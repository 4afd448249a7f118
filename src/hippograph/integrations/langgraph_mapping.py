"""The LangGraph store's pure mapping: namespaces to scopes and back, TTL settings and expiry,
item and search-item shapes, and LangGraph's value filters and namespace conditions. No I/O;
:class:`~hippograph.integrations.langgraph_store.HippographStore` builds on it."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote, unquote

from hippograph._extras import requires_extra
from hippograph.errors import ConfigurationError, InvalidInputError
from hippograph.models import MemoryNode
from hippograph.scope import MAX_DEPTH, MAX_ID_LENGTH, Scope

with requires_extra("langgraph"):
    from langgraph.store.base import InvalidNamespaceError, Item, MatchCondition, SearchItem, TTLConfig

__all__ = [
    "expiry",
    "is_expired",
    "matches_filter",
    "namespace_matches",
    "namespace_scope",
    "scope_namespace",
    "ttl_settings",
]

LEVEL_KIND = "ns{}"
MINUTE = 60.0
TTL_KEYS = frozenset({"default_ttl", "refresh_on_read", "sweep_interval_minutes", "omit_expired"})


def namespace_scope(root: Scope, namespace: Sequence[str]) -> Scope:
    """The scope of ``namespace`` below the store's scope ``root`` (``root`` for the empty one):
    one level per label, of kind ``ns<depth>``, the label percent-encoded into its id.

    Raises:
        InvalidNamespaceError: The namespace is too deep, or a label too long once encoded.
    """
    if root.depth + len(namespace) > MAX_DEPTH:
        raise InvalidNamespaceError(
            f"Namespace {tuple(namespace)} is deeper than this store allows ({MAX_DEPTH - root.depth} labels)"
        )
    scope = root
    for depth, label in enumerate(namespace, start=1):
        ident = quote(label, safe="")
        if len(ident) > MAX_ID_LENGTH:
            raise InvalidNamespaceError(
                f"Namespace label {label[:40]!r}… is longer than {MAX_ID_LENGTH} characters once encoded"
            )
        scope = scope.child(LEVEL_KIND.format(depth), ident)
    return scope


def scope_namespace(root: Scope, scope_key: str) -> tuple[str, ...]:
    """The namespace of a scope below ``root``: the inverse of :func:`namespace_scope`."""
    levels = Scope.parse(scope_key).levels[root.depth :]
    return tuple(unquote(level.id) for level in levels)


def ttl_settings(config: TTLConfig | Mapping[str, Any] | None) -> TTLConfig | None:
    """A checked copy of LangGraph's TTL configuration (None stays None).

    Raises:
        ConfigurationError: An unknown key, or a ttl or interval that is not a positive number.
    """
    if config is None:
        return None
    unknown = sorted(set(config) - TTL_KEYS)
    if unknown:
        raise ConfigurationError(f"HippographStore's ttl takes only {sorted(TTL_KEYS)} (got {unknown})")
    for name in ("default_ttl", "sweep_interval_minutes"):
        value = config.get(name)
        if value is not None:
            try:
                positive(name, value)
            except InvalidInputError as e:
                raise ConfigurationError(f"HippographStore's ttl: {e}") from None
    checked = TTLConfig()
    if "refresh_on_read" in config:
        checked["refresh_on_read"] = bool(config["refresh_on_read"])
    if "omit_expired" in config:
        checked["omit_expired"] = bool(config["omit_expired"])
    if "default_ttl" in config:
        checked["default_ttl"] = config["default_ttl"]
    if "sweep_interval_minutes" in config:
        checked["sweep_interval_minutes"] = config["sweep_interval_minutes"]
    return checked


def expiry(ttl_minutes: float | None, now: float) -> tuple[float | None, float | None]:
    """The ``ttl`` (seconds) and ``valid_until`` (epoch seconds) a put of an item with a ttl in
    minutes writes on its fact at ``now``; ``(None, None)`` for an item that never expires.

    Raises:
        InvalidInputError: The ttl is not a positive, finite number of minutes.
    """
    if ttl_minutes is None:
        return None, None
    seconds = positive("ttl", ttl_minutes) * MINUTE
    return seconds, now + seconds


def is_expired(node: MemoryNode, now: float) -> bool:
    """Whether an item's fact is past its expiry (its ``valid_until``) at ``now``."""
    return node.valid_until is not None and node.valid_until <= now


def positive(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value <= 0:
        raise InvalidInputError(name, f"minutes are a positive number, got {value!r:.40}")
    return float(value)


def to_item(node: MemoryNode, namespace: tuple[str, ...]) -> Item:
    return Item(
        value=dict(node.properties),
        key=node.key or node.label,
        namespace=namespace,
        created_at=_time(node.created_at),
        updated_at=_time(node.updated_at),
    )


def to_search_item(node: MemoryNode, namespace: tuple[str, ...], score: float | None) -> SearchItem:
    return SearchItem(
        namespace=namespace,
        key=node.key or node.label,
        value=dict(node.properties),
        created_at=_time(node.created_at),
        updated_at=_time(node.updated_at),
        score=score,
    )


def _time(epoch: float) -> datetime:
    return datetime.fromtimestamp(epoch, tz=UTC)


def matches_filter(value: Mapping[str, Any], conditions: Mapping[str, Any]) -> bool:
    """Whether every condition holds of ``value``'s field of its name: equal (a nested map: each
    of its conditions holds of the nested value), or an operator map such as ``{"$gte": 3}``."""
    return all(_compare(value.get(key), wanted) for key, wanted in conditions.items())


def _compare(actual: Any, wanted: Any) -> bool:
    if isinstance(wanted, dict):
        operators = {k: v for k, v in wanted.items() if k.startswith("$")}
        if operators:
            return all(_apply(actual, name, operand) for name, operand in operators.items())
        return isinstance(actual, dict) and matches_filter(actual, wanted)
    if isinstance(wanted, list | tuple):
        return (
            isinstance(actual, list | tuple)
            and len(actual) == len(wanted)
            and all(_compare(a, w) for a, w in zip(actual, wanted, strict=True))
        )
    return bool(actual == wanted)


def _apply(actual: Any, operator: str, operand: Any) -> bool:
    if operator == "$eq":
        return bool(actual == operand)
    if operator == "$ne":
        return bool(actual != operand)
    try:
        if operator == "$gt":
            return bool(actual > operand)
        if operator == "$gte":
            return bool(actual >= operand)
        if operator == "$lt":
            return bool(actual < operand)
        if operator == "$lte":
            return bool(actual <= operand)
    except TypeError:
        return False  # values of kinds that do not compare (a number and a string) never match
    raise InvalidInputError("filter", f"unknown operator {operator!r} (use $eq, $ne, $gt, $gte, $lt, $lte)")


def namespace_matches(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    """A prefix or suffix condition, ``"*"`` matching any one label."""
    path = tuple(condition.path)
    if len(path) > len(namespace):
        return False
    part = namespace[: len(path)] if condition.match_type == "prefix" else namespace[len(namespace) - len(path) :]
    return all(p in ("*", label) for p, label in zip(path, part, strict=True))
