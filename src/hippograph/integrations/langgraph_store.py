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
model's free text).

TTL is LangGraph's (``supports_ttl`` is True): a put's ``ttl`` in minutes (or the ``ttl``
configuration's ``default_ttl``) is kept on the fact as its ``ttl`` in seconds and its
expiry as ``valid_until``. An item past it is gone from every read at once; ``get`` and
``search`` with ``refresh_ttl`` push the expiry of what they return to now plus the ttl,
without moving ``updated_at``. :meth:`HippographStore.asweep_ttl` deletes expired items as
a delete does, and :meth:`HippographStore.start_ttl_sweeper` runs it every
``sweep_interval_minutes`` on the memory's loop. Time is the memory's clock.

The store is asynchronous at heart; the synchronous methods (``get``, ``put``, ``search`` …,
used by graphs run with ``invoke``) run on ``loop``, the event loop that owns the memory,
from another thread.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import logging
from collections.abc import Coroutine, Iterable, Mapping, Sequence
from typing import Any, TypedDict, TypeVar

from hippograph._extras import requires_extra
from hippograph.cues import cues_of
from hippograph.errors import ConfigurationError, InvalidInputError
from hippograph.integrations._sync import on_loop_thread, run_on_loop, running_loop
from hippograph.integrations.langgraph_mapping import (
    MINUTE,
    expiry,
    is_expired,
    matches_filter,
    namespace_matches,
    namespace_scope,
    positive,
    scope_namespace,
    to_item,
    to_search_item,
    ttl_settings,
)
from hippograph.layers.base import make_node
from hippograph.memory import Memory
from hippograph.models import MAX_LABEL, MAX_TEXT, Layer, MemoryNode
from hippograph.scope import MAX_DEPTH, Scope
from hippograph.store.locked import LockedTx

with requires_extra("langgraph"):
    from langgraph.store.base import (
        BaseStore,
        GetOp,
        InvalidNamespaceError,
        Item,
        ListNamespacesOp,
        Op,
        PutOp,
        Result,
        SearchItem,
        SearchOp,
        TTLConfig,
        validate_op_namespace,
    )
    from langgraph.store.base.embed import get_text_at_path, tokenize_path

__all__ = [
    "HippographStore",
    "StoreIndex",
    "expiry",
    "is_expired",
    "matches_filter",
    "namespace_matches",
    "namespace_scope",
    "scope_namespace",
    "ttl_settings",
]

log = logging.getLogger(__name__)

ACTOR = "langgraph-store"
WHOLE_VALUE = "$"
RECALL_CAP = 500
"""The most items one recall returns (the recall configuration's bound on ``top_k``)."""
DEFAULT_SWEEP_MINUTES = 5.0
"""Minutes between sweeps when neither ``start_ttl_sweeper`` nor the TTL config names them."""
SWEEP_REASON = "expired in the LangGraph store (its ttl passed)"
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
        actor: Who the audit trail names for deletes (and for the sweeper's).
        ttl: LangGraph's TTL configuration: ``default_ttl`` (minutes, for puts that name no
            ttl), ``refresh_on_read`` (the default of ``refresh_ttl``, True when not given) and
            ``sweep_interval_minutes`` (for :meth:`start_ttl_sweeper`). Expired items are never
            returned, whatever ``omit_expired`` says.
    """

    supports_ttl = True

    def __init__(
        self,
        memory: Memory,
        scope: Scope,
        *,
        index: StoreIndex | None = None,
        loop: asyncio.AbstractEventLoop | None = None,
        timeout: float = 60.0,
        actor: str = ACTOR,
        ttl: TTLConfig | None = None,
    ) -> None:
        unknown = sorted(set(index or {}) - {"fields"})
        if unknown:
            raise ConfigurationError(
                f"HippographStore's index takes only 'fields' (got {unknown}): hippograph embeds every item "
                "with the memory's own embedder"
            )
        if scope.depth >= MAX_DEPTH:
            raise ConfigurationError(f"the store's scope leaves no room for namespaces (at most {MAX_DEPTH} levels)")
        if scope.namespace:
            raise ConfigurationError(
                "the store's scope cannot be in a hippograph namespace (its LangGraph namespaces are scopes "
                f"below it): use a scope path, e.g. {scope.path_key}/partition:{scope.namespace}"
            )
        self.memory = memory
        self.scope = scope
        self.fields: list[str] = list((index or {}).get("fields") or [WHOLE_VALUE])
        self.loop = loop
        self.timeout = timeout
        self.actor = actor
        self.ttl_config = ttl_settings(ttl)
        self._sweeper: concurrent.futures.Future[None] | None = None
        self._sweeper_stop: asyncio.Event | None = None
        self._sweeper_loop: asyncio.AbstractEventLoop | None = None

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
        node = await self.memory.current_fact(scope, op.key)
        now = self.memory.now()
        if node is None or is_expired(node, now):
            return None
        if op.refresh_ttl:
            await self._renew(scope, [node], now)
        return to_item(node, op.namespace)

    async def _put(self, op: PutOp) -> None:
        if not op.namespace:
            raise InvalidNamespaceError("Namespace cannot be empty.")
        if op.namespace[0] == "langgraph":
            raise InvalidNamespaceError(f'Root label for namespace cannot be "langgraph". Got: {op.namespace}')
        if not op.key or len(op.key) > MAX_LABEL:
            raise InvalidInputError("key", f"a key is 1 to {MAX_LABEL} characters")
        scope = self._namespace_scope(op.namespace)
        if op.value is None:
            await self._delete(scope, op.key)
            return
        content = self._text(op.value, op.index)
        now = self.memory.now()
        ttl, valid_until = expiry(op.ttl, now)
        node = make_node(
            Layer.SEMANTIC,
            {
                "label": op.key, "content": content, "properties": dict(op.value), "key": op.key,
                "valid_from": now, "created_at": now, "updated_at": now, "ttl": ttl, "valid_until": valid_until,
            },
            field_prefix="item",
        )  # fmt: skip
        embedding = await self.memory.embed(node.text)
        node = node.model_copy(update={"embedding": embedding})
        cues = cues_of(node)

        async def decide(tx: LockedTx) -> MemoryNode:
            previous = await tx.current_fact(op.key)
            if previous is None:
                return await tx.add_node(node, cues)
            updates = {
                "label": node.label, "content": node.content, "properties": node.properties,
                "ttl": ttl, "valid_until": valid_until,
            }  # fmt: skip
            return await tx.update_node(previous, {**updates, "embedding": embedding})

        await self.memory.run_locked(scope, [op.key], decide)

    async def _delete(self, scope: Scope, key: str) -> None:
        node = await self.memory.current_fact(scope, key)
        if node is not None:
            await self.memory.retract(scope, node.id, reason="deleted from the LangGraph store", actor=self.actor)

    async def _search(self, op: SearchOp) -> list[SearchItem]:
        items = await self._items(op.namespace_prefix)
        if op.filter:
            items = [n for n in items if matches_filter(n.properties, op.filter)]
        end = op.offset + op.limit
        if op.query is None or not op.query.strip():
            items.sort(key=lambda n: (-n.updated_at, n.key or ""))
            page = items[op.offset : end]
            if op.refresh_ttl:
                await self._renew(self.scope, page, self.memory.now())
            return [to_search_item(n, self._namespace(n.scope_key), None) for n in page]
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
        ranked = sorted(scored.values(), key=lambda s: (-s[0], -s[1].updated_at, s[1].key or ""))[op.offset : end]
        if op.refresh_ttl:
            await self._renew(self.scope, [n for _, n in ranked], self.memory.now())
        return [to_search_item(n, self._namespace(n.scope_key), score) for score, n in ranked]

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

    async def _items(self, prefix: Sequence[str], *, expired: bool = False) -> list[MemoryNode]:
        """The current items in the namespaces that start with ``prefix``: those not expired, or
        (``expired``) only those whose ttl has passed."""
        scope = self._namespace_scope(prefix)
        nodes = await self.memory.query_subtree(scope, {"layers": [Layer.SEMANTIC]}, limit=None)
        below = self.scope.subtree_prefix
        now = self.memory.now()
        return [
            n
            for n in nodes
            if n.key is not None
            and n.superseded_by is None
            and not n.retracted
            and n.scope_key.startswith(below)
            and is_expired(n, now) == expired
        ]

    async def _renew(self, scope: Scope, nodes: Sequence[MemoryNode], now: float) -> None:
        """Push the expiry of the items that have a ttl to ``now`` plus their ttl."""
        ids = [n.id for n in nodes if n.ttl is not None]
        if ids:
            await self.memory.renew_validity(scope, ids, now=now)

    # -- expiry ----------------------------------------------------------------------------
    async def asweep_ttl(self) -> int:
        """Delete the items whose ttl has passed (as :meth:`adelete` does: retracted, restorable,
        audited); how many were deleted. Reads hide expired items already: the sweep frees
        their place in recall and in the graph."""
        swept = 0
        for node in await self._items((), expired=True):
            scope = Scope.parse(node.scope_key)
            current = await self.memory.current_fact(scope, node.key or node.label)
            if current is None or current.id != node.id or not is_expired(current, self.memory.now()):
                continue  # put again or renewed since the read
            await self.memory.retract(scope, node.id, reason=SWEEP_REASON, actor=self.actor)
            swept += 1
        return swept

    def sweep_ttl(self) -> int:
        """:meth:`asweep_ttl` on :attr:`loop`, from another thread."""
        return self._run(self.asweep_ttl())

    def start_ttl_sweeper(self, sweep_interval_minutes: float | None = None) -> concurrent.futures.Future[None]:
        """Sweep expired items every ``sweep_interval_minutes`` (else the TTL config's, else
        five), on the memory's event loop, until :meth:`stop_ttl_sweeper`. Callable from any
        thread, the loop's own included; a sweeper already running is returned as it is.

        Returns:
            A future done when the sweeper stops (cancelling it stops the sweeper too); done at
            once when the store has no TTL config and no interval is given, as LangGraph's own
            stores do.
        """
        if self._sweeper is not None and not self._sweeper.done():
            return self._sweeper
        config = self.ttl_config or {}
        minutes = sweep_interval_minutes or config.get("sweep_interval_minutes")
        if self.ttl_config is None and minutes is None:
            done: concurrent.futures.Future[None] = concurrent.futures.Future()
            done.set_result(None)
            return done
        interval = positive("sweep_interval_minutes", minutes if minutes is not None else DEFAULT_SWEEP_MINUTES)
        loop = self.loop or running_loop()
        if loop is None:
            raise ConfigurationError(
                "HippographStore's TTL sweeper runs on the memory's event loop: pass loop=..., "
                "or start it from a coroutine on that loop"
            )
        stop = asyncio.Event()
        self._sweeper_stop, self._sweeper_loop = stop, loop
        self._sweeper = asyncio.run_coroutine_threadsafe(self._sweep_every(interval * MINUTE, stop), loop)
        log.info("LangGraph store TTL sweeper started (every %s minutes)", interval)
        return self._sweeper

    def stop_ttl_sweeper(self, timeout: float | None = None) -> bool:
        """Stop the sweeper and wait (at most ``timeout`` seconds) for it to end, from a thread
        other than the loop's (there: :meth:`astop_ttl_sweeper`).

        Returns:
            True when it stopped or was not running; False when the timeout came first.
        """
        loop = self._sweeper_loop
        if loop is not None and on_loop_thread(loop):
            raise ConfigurationError(
                "stop_ttl_sweeper was called on the memory's own event loop thread, where it would wait on "
                "itself: use astop_ttl_sweeper"
            )
        sweeper = self._signal_stop()
        if sweeper is None:
            return True
        try:
            sweeper.result(timeout)
        except concurrent.futures.TimeoutError:
            return False
        except concurrent.futures.CancelledError:
            pass
        return self._stopped(sweeper)

    async def astop_ttl_sweeper(self, timeout: float | None = None) -> bool:
        """:meth:`stop_ttl_sweeper` for a coroutine on the memory's event loop."""
        sweeper = self._signal_stop()
        if sweeper is None:
            return True
        await asyncio.wait([asyncio.wrap_future(sweeper)], timeout=timeout)
        return self._stopped(sweeper)

    def _signal_stop(self) -> concurrent.futures.Future[None] | None:
        sweeper, stop, loop = self._sweeper, self._sweeper_stop, self._sweeper_loop
        if sweeper is None or sweeper.done() or stop is None or loop is None:
            self._sweeper = None
            return None
        loop.call_soon_threadsafe(stop.set)
        return sweeper

    def _stopped(self, sweeper: concurrent.futures.Future[None]) -> bool:
        if not sweeper.done():
            return False
        if self._sweeper is sweeper:
            self._sweeper = None
        log.info("LangGraph store TTL sweeper stopped")
        return True

    async def _sweep_every(self, seconds: float, stop: asyncio.Event) -> None:
        while True:
            try:
                await asyncio.wait_for(stop.wait(), timeout=seconds)
                return
            except TimeoutError:
                pass
            try:
                swept = await self.asweep_ttl()
            except Exception:
                log.exception("LangGraph store TTL sweep failed; the next one tries again")
                continue
            if swept:
                log.info("LangGraph store TTL sweep deleted %d expired items", swept)

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
        return run_on_loop(
            self.loop,
            work,
            self.timeout,
            "HippographStore's synchronous methods were called on the memory's own event loop thread, where "
            "they would wait on themselves: call them from another thread, or use the async methods",
        )
