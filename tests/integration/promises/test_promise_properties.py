"""Issue 9, the property-based test: random scope trees (with ids that are prefixes of each
other) and random operation sequences — write, supersede, link, merge via consolidation,
retract, restore, erase — against the real Neo4j, asserting the memory's promises:

1. no memory of scope A ever appears in a recall or context of a scope that may not see A;
2. no operation at scope A changes what a sibling of A (neither above nor below it) sees;
3. after erasing A nothing in the database carries A's key or an erased memory's id;
4. superseded versions stay in history;
5. consolidation never retracts a shallower scope's fact for a deeper duplicate.

Each promise is its own test over the same machinery, so each can be marked on its own."""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from hippograph.consolidation import ConsolidationConfig, SleepConsolidator
from hippograph.errors import ConflictError, InvalidInputError, NotFoundError
from hippograph.memory import Memory
from hippograph.models import Layer, MemoryNode, Relationship
from hippograph.scope import Scope
from hippograph.store import Neo4jConnection
from tests.integration.promises.conftest import Inspector
from tests.support.memory_internals import internals

DAY = 86_400.0
KINDS = ("org", "team", "user", "conversation")
NAMES = ("u", "u1", "u12", "acme", "acme2")
TEXTS = (
    "Bob lives in Lisbon by the river",
    "Bob lives in Porto by the river",
    "Ana has a grey cat called Miso",
    "The office opens at nine every weekday",
    "Expenses go through Ana in finance",
)
KEYS = (None, None, "bob.city", "office.hours")
IMPORTANCE = (3.0, 5.0, 9.0)
QUERIES = ("where does Bob live", "Ana cat", "office hours", "expenses finance")

trees = st.integers(min_value=2, max_value=6).flatmap(
    lambda n: st.tuples(*[st.integers(0, max(i - 1, 0)) for i in range(n)])
)
names = st.lists(st.sampled_from(NAMES), min_size=6, max_size=6)
ops = st.lists(
    st.one_of(
        st.tuples(st.just("write"), st.integers(0, 5), st.sampled_from(TEXTS), st.sampled_from(KEYS),
                  st.sampled_from(IMPORTANCE)),
        st.tuples(st.just("link"), st.integers(0, 5), st.integers(0, 99), st.integers(0, 99)),
        st.tuples(st.just("consolidate"), st.integers(0, 5)),
        st.tuples(st.just("retract"), st.integers(0, 5), st.integers(0, 99)),
        st.tuples(st.just("restore"), st.integers(0, 5), st.integers(0, 99)),
        st.tuples(st.just("erase"), st.integers(0, 5)),
    ),
    min_size=4,
    max_size=12,
)  # fmt: skip


def build_scopes(root: str, parents: tuple[int, ...], ids: list[str]) -> list[Scope]:
    scopes: list[Scope] = []
    for i, parent in enumerate(parents):
        if i == 0 or scopes[parent].depth >= len(KINDS):
            scopes.append(Scope.root("org", f"{root}{ids[i]}"))
        else:
            p = scopes[parent]
            scopes.append(p.child(KINDS[p.depth], ids[i]))
    return list(dict.fromkeys(scopes))


def related(a: Scope, b: Scope) -> bool:
    return a.is_ancestor_of(b) or b.is_ancestor_of(a)


@dataclass
class World:
    """What the sequence did, and what each promise saw break (empty when kept)."""

    scopes: list[Scope]
    erased: set[Scope] = field(default_factory=set)
    versions: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    retracted: set[str] = field(default_factory=set)
    """Versions the sequence itself retracted (until restored): out of history by design."""
    broken: dict[int, list[str]] = field(default_factory=lambda: {i: [] for i in range(1, 6)})
    days: float = 0.0

    def live(self) -> list[Scope]:
        return [s for s in self.scopes if not any(e.is_ancestor_of(s) for e in self.erased)]


async def _seen(memory: Memory, scope: Scope) -> dict[str, tuple[Any, ...]]:
    nodes = await internals(memory).store.query_nodes(scope, {"include_retracted": True}, limit=None)
    return {n.id: (n.retracted, n.superseded_by, n.label, n.content, n.importance, n.valid_until) for n in nodes}


async def _owned(memory: Memory, scope: Scope) -> list[MemoryNode]:
    return await internals(memory).store.query_subtree(scope, {"include_retracted": True}, limit=None)


async def _apply(memory: Memory, conn: Neo4jConnection, inspector: Inspector, world: World,
                 op: tuple[Any, ...]) -> None:  # fmt: skip
    live = world.live()
    if not live:
        return
    scope = live[op[1] % len(live)]
    kind = op[0]
    if kind == "write":
        _, _, text, key, importance = op
        node = await memory.remember(scope, text, text, key=key, importance=importance)
        if key is not None:
            chain = world.versions.setdefault((scope.key, key), [])
            if node.id not in chain:
                chain.append(node.id)
    elif kind == "link":
        visible = sorted(n.id for n in await internals(memory).store.query_nodes(scope, limit=None))
        if len(visible) >= 2:
            a, b = visible[op[2] % len(visible)], visible[op[3] % len(visible)]
            if a != b:
                await internals(memory).semantic.link(scope, a, b, Relationship.RELATES_TO)
    elif kind == "consolidate":
        world.days += 3.0
        later = time.time() + world.days * DAY
        sleeper = SleepConsolidator(conn, ConsolidationConfig(), clock=lambda: later)
        await sleeper.run(scope)
        by_id = {n.id: n for n in await _owned(memory, scope)}
        for n in by_id.values():
            into = (n.retraction or {}).get("merged_into")
            survivor = by_id.get(str(into)) if into else None
            if survivor is not None and Scope.parse(n.scope_key).depth < Scope.parse(survivor.scope_key).depth:
                world.broken[5].append(f"{n.scope_key} fact retracted for a duplicate of {survivor.scope_key}")
    elif kind == "retract":
        candidates = sorted(n.id for n in await _owned(memory, scope) if not n.retracted)
        if candidates:
            chosen = candidates[op[2] % len(candidates)]
            await memory.retract(scope, chosen, reason="wrong", actor="test")
            world.retracted.add(chosen)
    elif kind == "restore":
        retracted = sorted(n.id for n in await _owned(memory, scope) if n.retracted)
        if retracted:
            later = time.time() + world.days * DAY
            sleeper = SleepConsolidator(conn, ConsolidationConfig(), clock=lambda: later)
            chosen = retracted[op[2] % len(retracted)]
            with contextlib.suppress(ConflictError):  # the grace period is over: a refusal
                await sleeper.restore(scope, chosen, "carol")
                world.retracted.discard(chosen)
    elif kind == "erase":
        ids = [n.id for n in await _owned(memory, scope)]
        await memory.forget(scope)
        world.erased.add(scope)
        left = await inspector.run("search_named_anywhere", key=scope.key, ids=ids)
        world.broken[3].extend(f"{r['what']} {r['owner']}.{r['k']} = {r['value']}" for r in left)


async def run_world(
    memory: Memory, conn: Neo4jConnection, inspector: Inspector,
    parents: tuple[int, ...], ids: list[str], sequence: list[tuple[Any, ...]],
) -> World:  # fmt: skip
    world = World(build_scopes(f"p-{uuid.uuid4().hex[:8]}-", parents, ids))
    try:
        for op in sequence:
            live = world.live()
            if not live:
                break
            at = live[op[1] % len(live)]
            others = [s for s in live if not related(s, at)]
            before = {s.key: await _seen(memory, s) for s in others}
            with contextlib.suppress(InvalidInputError, NotFoundError):  # e.g. a link to a removed memory
                await _apply(memory, conn, inspector, world, op)
            await internals(memory).engine.drain()
            for s in others:
                if await _seen(memory, s) != before[s.key]:
                    world.broken[2].append(f"{op[0]} at {at.key} changed what {s.key} sees")
            for (key, k), chain in world.versions.items():
                scope = Scope.parse(key)
                if scope not in world.live():
                    continue
                history = [f.id for f in await internals(memory).semantic.history(scope, k) if f.scope_key == key]
                if history != [i for i in chain if i not in world.retracted]:
                    world.broken[4].append(f"history of {k} at {key}: {len(history)} of {len(chain)} versions")
        for scope in world.live():
            visible = set(scope.ancestor_keys())
            for query in QUERIES:
                result, ctx = await memory.context(scope, query, layers=[Layer.SEMANTIC, Layer.EPISODIC])
                keys = {i.node.scope_key for i in result.items}
                if not keys <= visible:
                    world.broken[1].append(f"{scope.key} recalled memories of {sorted(keys - visible)}")
                known = {i.node.id for i in result.items} | {
                    n.id for n in await internals(memory).store.query_nodes(scope)
                }
                if any(e.id not in known for e in ctx.entries if e.layer is not Layer.WORKING):
                    world.broken[1].append(f"{scope.key} context shows a memory it may not see")
        await internals(memory).engine.drain()
    finally:
        for root in {Scope((s.levels[0],)) for s in world.scopes}:
            await internals(memory).store.delete_subtree(root)
    return world


# Known counterexamples, run first on every run (and kept when the promise holds, as
# regression cases): parents (0, 0) is an org with one team below it.
ORG_AND_TEAM = ((0, 0), ["acme", "u", "u", "u", "u", "u"])
SUPERSEDE_THEN_SLEEP = [
    ("write", 0, TEXTS[0], "bob.city", 5.0),
    ("write", 0, TEXTS[3], "bob.city", 5.0),
    ("consolidate", 0), ("consolidate", 0), ("consolidate", 0), ("consolidate", 0),
]  # fmt: skip
DEEPER_DUPLICATE_MORE_IMPORTANT = [
    ("write", 1, TEXTS[4], None, 9.0),
    ("write", 0, TEXTS[4], None, 5.0),
    ("consolidate", 0),
]
LINK_FOR_THE_TEAM_THEN_ERASE = [
    ("write", 0, TEXTS[2], None, 5.0),
    ("write", 0, TEXTS[3], None, 5.0),
    ("link", 1, 0, 1),
    ("erase", 1),
]
# Found by this test (promise 4): a keyed write whose text duplicates an unkeyed fact (or a
# version of another key) was merged into it by write-time dedup, so the key's history never
# listed what the write returned.
KEYED_WRITE_OF_AN_UNKEYED_TEXT = [
    ("write", 0, TEXTS[0], None, 5.0),
    ("write", 0, TEXTS[0], "bob.city", 3.0),
    ("write", 0, TEXTS[3], "office.hours", 5.0),
    ("write", 0, TEXTS[3], "bob.city", 5.0),
]
# Also (by reading the phases): phase 3 pruned an unimportant idle keyed fact (its key lost its
# present), and phase 13 absorbed a keyed fact into an ancestor's unkeyed duplicate.
UNIMPORTANT_KEYED_FACT_SLEEPS = [
    ("write", 1, TEXTS[2], "office.hours", 3.0),
    ("consolidate", 1), ("consolidate", 1), ("consolidate", 1), ("consolidate", 0),
]  # fmt: skip
KEYED_DUPLICATE_OF_AN_ANCESTOR_FACT = [
    ("write", 1, TEXTS[4], "office.hours", 5.0),
    ("write", 0, TEXTS[4], None, 5.0),
    ("consolidate", 0),
]
EXAMPLES = [
    SUPERSEDE_THEN_SLEEP, DEEPER_DUPLICATE_MORE_IMPORTANT, LINK_FOR_THE_TEAM_THEN_ERASE,
    KEYED_WRITE_OF_AN_UNKEYED_TEXT, UNIMPORTANT_KEYED_FACT_SLEEPS, KEYED_DUPLICATE_OF_AN_ANCESTOR_FACT,
]  # fmt: skip


def promise_test(number: int) -> Callable[..., Any]:
    """The property test of promise ``number``: the known counterexamples, then random worlds
    (not shrunk: a failing world is reported as found, which keeps a failing run short)."""

    @settings(
        max_examples=6,
        deadline=None,
        phases=[Phase.explicit, Phase.reuse, Phase.generate],
        suppress_health_check=[HealthCheck.function_scoped_fixture],
    )
    @given(parents=trees, ids=names, sequence=ops)
    async def check(
        memory: Memory, conn: Neo4jConnection, inspector: Inspector,
        parents: tuple[int, ...], ids: list[str], sequence: list[tuple[Any, ...]],
    ) -> None:  # fmt: skip
        world = await run_world(memory, conn, inspector, parents, ids, sequence)
        assert world.broken[number] == []

    for sequence in EXAMPLES:
        check = example(parents=ORG_AND_TEAM[0], ids=ORG_AND_TEAM[1], sequence=sequence)(check)
    return check


test_no_memory_reaches_a_scope_that_may_not_see_it = promise_test(1)
test_an_operation_never_changes_what_a_sibling_sees = promise_test(2)
test_after_an_erase_nothing_carries_the_scope = promise_test(3)
test_superseded_versions_stay_in_history = promise_test(4)
test_consolidation_never_retracts_a_shallower_fact_for_a_deeper_one = promise_test(5)
