"""A LangGraph store (``langgraph.store.base.BaseStore``) kept in hippograph.

LangGraph agents read and write long-term memory through a store: items (a JSON ``value``
under a ``key``) in namespaces (tuples of strings). :class:`HippographStore` keeps them in a
hippograph memory, in place of ``InMemoryStore`` or ``PostgresStore``::

    memory = await hippograph.open_memory()
    store = HippographStore(memory, Scope.root("app", "my-agent"), index={"fields": ["text"]})
    graph = builder.compile(store=store)

Namespaces are scopes below the store's own ``scope``: ``("users", "ana")`` is the scope
``<scope>/ns1:users/ns2:ana``, one level per label, the level kinds ``ns1``, ``ns2`` … by
depth. A label is percent-encoded into its level's id (``"a b"`` → ``a%20b``), so any label
LangGraph accepts maps to one scope and back; a namespace is as deep as the scope may grow
(eight levels in all, the store's own included), and an encoded label is at most 128
characters. Erasing the store's scope (``memory.forget(scope)``) erases every namespace.

An item is a semantic fact of its namespace's scope: the item's key is the fact's subject
``key`` and its label, the value is kept whole as the fact's properties, and the fact's content
is the item's text for search: the whole value as JSON, or the texts at the ``index`` fields
(LangGraph's path syntax: ``"text"``, ``"meta.title"``, ``"notes[*].body"``), or none when a
put says ``index=False``. Search with a ``query`` is hippograph's recall (vector and full-text,
spreading activation) in each namespace under the prefix, each item carrying its recall
score; without a query, items come newest update first. ``filter`` compares value fields
(``{"status": "open"}``, or the operators ``$eq``, ``$ne``, ``$gt``, ``$gte``, ``$lt``,
``$lte``), as LangGraph's own stores do.

A put replaces the item's value in place (its ``created_at`` stays, ``updated_at`` moves);
a delete (or a put of ``None``) retracts the fact: restorable, audited. Items are written
as they are: the store does not scrub credentials from values (an agent's store is not a
model's free text). TTL is not supported (``supports_ttl`` is False): hippograph's own
expiry is by layer and durability, not by minutes since the last read.

The store is asynchronous at heart; the synchronous methods (``get``, ``put``, ``search`` …,
used by graphs run with ``invoke``) run on ``loop``, the event loop that owns the memory,
from another thread.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Coroutine, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, TypedDict, TypeVar
from urllib.parse import quote, unquote

from hippograph._extras import requires_extra
from hippograph.cues import cues_of
from hippograph.errors import ConfigurationError, InvalidInputError
from hippograph.layers.base import make_node
from hippograph.memory import Memory
from hippograph.models import MAX_LABEL, MAX_TEXT, Layer, MemoryNode
from hippograph.scope import MAX_DEPTH, MAX_ID_LENGTH, Scope
from hippograph.store.locked import LockedTx, run_locked

with requires_extra("langgraph"):
    from langgraph.store.base import (
        BaseStore,
        GetOp,
        InvalidNamespaceError,
        Item,
        ListNamespacesOp,
        MatchCondition,
        Op,
        PutOp,
        Result,
        SearchItem,
        SearchOp,
        validate_op_namespace,
    )
    from langgraph.store.base.embed import get_text_at_path, tokenize_path

__all__ = ["HippographStore", "StoreIndex", "matches_filter", "namespace_matches", "namespace_scope", "scope_namespace"]

ACTOR = "langgraph-store"
LEVEL_KIND = "ns{}"
WHOLE_VALUE = "$"
RECALL_CAP = 500
"""The most items one recall returns (the recall configuration's bound on ``top_k``)."""
T = TypeVar("T")


class StoreIndex(TypedDict, total=False):
    """What of a value is searched (LangGraph's ``index`` argument, without ``dims`` and
    ``embed``: hippograph embeds with the memory's own embedder)."""

    fields: list[str] | None
    """Paths into the value whose texts are searched; ``["$"]`` or None: the whole value."""


class HippographStore(BaseStore):
    """A LangGraph ``BaseStore`` whose items are facts of a hippograph memory.

    Args:
        memory: The hippograph memory (its store and embedder).
        scope: The store's own scope: every namespace is a scope below it. Give the store a
            scope of its own (nothing else writes facts there).
        index: Which fields of a value are searched (``{"fields": ["text"]}``); None: the whole
            value as JSON.
        loop: The event loop the memory was opened on, for the synchronous methods.
        timeout: Seconds the synchronous methods wait for one batch.
        actor: Who the audit trail names for deletes.
    """

    supports_ttl = False

    def __init__(
        self,
        memory: Memory,
        scope: Scope,
        *,
        index: StoreIndex | None = None,
        loop: asyncio.AbstractEventLoop | None = None,
        timeout: float = 60.0,
        actor: str = ACTOR,
    ) -> None:
        unknown = sorted(set(index or {}) - {"fields"})
        if unknown:
            raise ConfigurationError(
                f"HippographStore's index takes only 'fields' (got {unknown}): hippograph embeds every item "
                "with the memory's own embedder"
            )
        if scope.depth >= MAX_DEPTH:
            raise ConfigurationError(f"the store's scope leaves no room for namespaces (at most {MAX_DEPTH} levels)")
        self.memory = memory
        self.scope = scope
        self.fields: list[str] = list((index or {}).get("fields") or [WHOLE_VALUE])
        self.loop = loop
        self.timeout = timeout
        self.actor = actor

    # -- the batch contract ----------------------------------------------------------------
    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """Run the ops in order; each result at its op's position."""
        results: list[Result] = []
        for op in ops:
            validate_op_namespace(op)
            if isinstance(op, GetOp):
                results.append(await self._get(op))
            elif isinstance(op, PutOp):
                await self._put(op)
                results.append(None)
            elif isinstance(op, SearchOp):
                results.append(await self._search(op))
            elif isinstance(op, ListNamespacesOp):
                results.append(await self._list_namespaces(op))
            else:
                raise InvalidInputError("op", f"not a store operation: {op!r:.60}")
        return results

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """:meth:`abatch` on :attr:`loop`, from another thread."""
        return self._run(self.abatch(list(ops)))

    # -- the operations --------------------------------------------------------------------
    async def _get(self, op: GetOp) -> Item | None:
        scope = self._namespace_scope(op.namespace)
        node = await self.memory.semantic.repo.current_fact(scope, op.key)
        return _item(node, op.namespace) if node is not None else None

    async def _put(self, op: PutOp) -> None:
        if not op.namespace:
            raise InvalidNamespaceError("Namespace cannot be empty.")
        if op.namespace[0] == "langgraph":
            raise InvalidNamespaceError(f'Root label for namespace cannot be "langgraph". Got: {op.namespace}')
        if not op.key or len(op.key) > MAX_LABEL:
            raise InvalidInputError("key", f"a key is 1 to {MAX_LABEL} characters")
        if op.ttl is not None:
            raise NotImplementedError("HippographStore does not support TTL: put with ttl=None")
        scope = self._namespace_scope(op.namespace)
        if op.value is None:
            await self._delete(scope, op.key)
            return
        content = self._text(op.value, op.index)
        now = self.memory.services.clock()
        node = make_node(
            Layer.SEMANTIC,
            {
                "label": op.key, "content": content, "properties": dict(op.value), "key": op.key,
                "valid_from": now, "created_at": now, "updated_at": now,
            },
            field_prefix="item",
        )  # fmt: skip
        embedding = await self.memory.services.embedder.embed(node.text)
        node = node.model_copy(update={"embedding": embedding})
        cues = cues_of(node)

        async def decide(tx: LockedTx) -> MemoryNode:
            previous = await tx.current_fact(op.key)
            if previous is None:
                return await tx.add_node(node, cues)
            updates = {"label": node.label, "content": node.content, "properties": node.properties}
            return await tx.update_node(previous, {**updates, "embedding": embedding})

        await run_locked(self.memory.store, scope, [op.key], decide)

    async def _delete(self, scope: Scope, key: str) -> None:
        node = await self.memory.semantic.repo.current_fact(scope, key)
        if node is not None:
            await self.memory.retract(scope, node.id, reason="deleted from the LangGraph store", actor=self.actor)

    async def _search(self, op: SearchOp) -> list[SearchItem]:
        items = await self._items(op.namespace_prefix)
        if op.filter:
            items = [n for n in items if matches_filter(n.properties, op.filter)]
        end = op.offset + op.limit
        if op.query is None or not op.query.strip():
            items.sort(key=lambda n: (-n.updated_at, n.key or ""))
            return [_search_item(n, self._namespace(n.scope_key), None) for n in items[op.offset : end]]
        wanted = {n.id for n in items}
        by_scope: dict[str, int] = {}
        for n in items:
            by_scope[n.scope_key] = by_scope.get(n.scope_key, 0) + 1
        recalls = await asyncio.gather(
            *(
                self.memory.recall(Scope.parse(key), op.query, layers=[Layer.SEMANTIC], top_k=min(count, RECALL_CAP))
                for key, count in sorted(by_scope.items())
            )
        )
        scored: dict[str, tuple[float, MemoryNode]] = {}
        for result in recalls:
            for hit in result.items:
                if hit.node.id in wanted and hit.score > scored.get(hit.node.id, (-1.0, hit.node))[0]:
                    scored[hit.node.id] = (hit.score, hit.node)  # a namespace's own recall weighs it most
        ranked = sorted(scored.values(), key=lambda s: (-s[0], -s[1].updated_at, s[1].key or ""))
        return [_search_item(n, self._namespace(n.scope_key), score) for score, n in ranked[op.offset : end]]

    async def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        namespaces = {self._namespace(n.scope_key) for n in await self._items(())}
        conditions = op.match_conditions or ()
        found = {
            ns[: op.max_depth] if op.max_depth is not None else ns
            for ns in namespaces
            if all(namespace_matches(c, ns) for c in conditions)
        }
        return sorted(found)[op.offset : op.offset + op.limit]

    # -- namespaces as scopes --------------------------------------------------------------
    def _namespace_scope(self, namespace: Sequence[str]) -> Scope:
        return namespace_scope(self.scope, namespace)

    def _namespace(self, scope_key: str) -> tuple[str, ...]:
        return scope_namespace(self.scope, scope_key)

    async def _items(self, prefix: Sequence[str]) -> list[MemoryNode]:
        """The current items in the namespaces that start with ``prefix``."""
        scope = self._namespace_scope(prefix)
        nodes = await self.memory.store.query_subtree(scope, {"layers": [Layer.SEMANTIC]}, limit=None)
        below = self.scope.subtree_prefix
        return [
            n
            for n in nodes
            if n.key is not None and n.superseded_by is None and not n.retracted and n.scope_key.startswith(below)
        ]

    def _text(self, value: Mapping[str, Any], index: Any) -> str:
        """The searched text of ``value``: the whole value as JSON, or the texts at the fields."""
        if index is False:
            return ""
        fields = list(index) if isinstance(index, list) else self.fields
        if WHOLE_VALUE in fields:
            texts = [json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)]
        else:
            texts = [text for field in fields for text in get_text_at_path(value, tokenize_path(field))]
        return "\n".join(t for t in texts if t.strip())[:MAX_TEXT]

    def _run(self, work: Coroutine[Any, Any, T]) -> T:
        if self.loop is None:
            work.close()
            raise ConfigurationError(
                "HippographStore's synchronous methods need the memory's event loop: pass loop=..., "
                "or use the async methods (aget, aput, asearch …)"
            )
        if _running_loop() is self.loop or getattr(self.loop, "_thread_id", None) == threading.get_ident():
            work.close()
            raise ConfigurationError(
                "HippographStore's synchronous methods were called on the memory's own event loop thread, where "
                "they would wait on themselves: call them from another thread, or use the async methods"
            )
        return asyncio.run_coroutine_threadsafe(work, self.loop).result(self.timeout)


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


def _item(node: MemoryNode, namespace: tuple[str, ...]) -> Item:
    return Item(
        value=dict(node.properties),
        key=node.key or node.label,
        namespace=namespace,
        created_at=_time(node.created_at),
        updated_at=_time(node.updated_at),
    )


def _search_item(node: MemoryNode, namespace: tuple[str, ...], score: float | None) -> SearchItem:
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


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


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
