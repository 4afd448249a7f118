"""HippographStore's TTL against a real Neo4j: expiry hides an item from every read at once,
reads with ``refresh_ttl`` push the expiry forward, ``default_ttl`` applies to puts that name
no ttl, and the sweep (once, or every few moments) deletes expired items as a delete does.

Time is the memory's clock, moved by hand: no test waits for a minute to pass."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest

from hippograph.errors import ConfigurationError
from hippograph.integrations import HippographStore
from hippograph.memory import Memory
from hippograph.models import Layer
from hippograph.scope import Scope
from tests.support.memory_internals import internals


class Clock:
    """Wall-clock time, moved forward by hand."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def timed(hippograph_memory: Memory, clock: Clock) -> AsyncIterator[Memory]:
    """The test's memory on the same store, reading time from ``clock``."""
    memory = Memory(internals(hippograph_memory).store, internals(hippograph_memory).services.embedder, clock=clock)
    yield memory
    await internals(memory).engine.drain()


def store_of(memory: Memory, scope: Scope, **ttl: object) -> HippographStore:
    return HippographStore(memory, scope, loop=asyncio.get_running_loop(), ttl=ttl or None)  # type: ignore[arg-type]


async def test_an_expired_item_is_hidden_from_every_read_and_one_without_ttl_never_expires(
    timed: Memory, memory_scope: Scope, clock: Clock
) -> None:
    store = store_of(timed, memory_scope)
    assert store.supports_ttl is True
    await store.aput(("short",), "k", {"text": "a passing note"}, ttl=1)
    await store.aput(("kept",), "k", {"text": "a lasting note"})
    clock.advance(59)
    assert await store.aget(("short",), "k", refresh_ttl=False) is not None

    clock.advance(2)  # past the minute: gone from get, search (with and without a query), namespaces
    assert await store.aget(("short",), "k") is None
    assert await store.asearch(("short",)) == []
    assert await store.asearch(("short",), query="passing note") == []
    assert [i.key for i in await store.asearch(())] == ["k"]
    assert await store.alist_namespaces() == [("kept",)]

    clock.advance(365 * 24 * 3600)
    kept = await store.aget(("kept",), "k")
    assert kept is not None and kept.value == {"text": "a lasting note"}
    [found] = await store.asearch((), query="lasting note")
    assert found.namespace == ("kept",)


async def test_reads_renew_the_ttl_unless_asked_not_to(timed: Memory, memory_scope: Scope, clock: Clock) -> None:
    store = store_of(timed, memory_scope)
    await store.aput(("notes",), "got", {"text": "renewed by get"}, ttl=1)
    await store.aput(("notes",), "found", {"text": "renewed by search"}, ttl=1)
    await store.aput(("notes",), "left", {"text": "read without renewal"}, ttl=1)
    before = await store.aget(("notes",), "got", refresh_ttl=False)
    assert before is not None

    clock.advance(40)
    renewed = await store.aget(("notes",), "got")
    assert renewed is not None and renewed.updated_at == before.updated_at  # a renewal is no update
    assert [i.key for i in await store.asearch(("notes",), query="renewed by search", limit=1)] == ["found"]
    assert await store.aget(("notes",), "left", refresh_ttl=False) is not None
    assert len(await store.asearch(("notes",), filter={"text": "read without renewal"}, refresh_ttl=False)) == 1

    clock.advance(40)  # 80 s after the puts, 40 s after the renewals
    assert await store.aget(("notes",), "left") is None
    assert sorted(i.key for i in await store.asearch(("notes",), refresh_ttl=False)) == ["found", "got"]

    clock.advance(21)  # 61 s after the renewals
    assert await store.asearch(("notes",)) == []


async def test_a_put_sets_or_clears_the_ttl_again(timed: Memory, memory_scope: Scope, clock: Clock) -> None:
    store = store_of(timed, memory_scope)
    await store.aput(("n",), "k", {"v": 1}, ttl=1)
    await store.aput(("n",), "k", {"v": 2})  # a put without ttl: the item no longer expires
    clock.advance(120)
    item = await store.aget(("n",), "k")
    assert item is not None and item.value == {"v": 2}
    await store.aput(("n",), "k", {"v": 3}, ttl=0.5)  # fractions of a minute are minutes too
    clock.advance(29)
    assert await store.aget(("n",), "k", refresh_ttl=False) is not None
    clock.advance(2)
    assert await store.aget(("n",), "k") is None


async def test_the_ttl_config_gives_the_default_ttl_and_refresh(
    timed: Memory, memory_scope: Scope, clock: Clock
) -> None:
    store = store_of(timed, memory_scope, default_ttl=1, refresh_on_read=False)
    await store.aput(("d",), "default", {"v": 1})
    await store.aput(("d",), "forever", {"v": 2}, ttl=None)  # an explicit None: no expiry
    await store.aput(("d",), "longer", {"v": 3}, ttl=10)
    clock.advance(40)
    assert await store.aget(("d",), "default") is not None  # not renewed: refresh_on_read is False
    clock.advance(21)
    assert await store.aget(("d",), "default") is None
    assert sorted(i.key for i in await store.asearch(("d",))) == ["forever", "longer"]

    renewing = store_of(timed, memory_scope, default_ttl=1)
    await renewing.aput(("r",), "k", {"v": 1})
    clock.advance(40)
    assert await renewing.aget(("r",), "k") is not None  # refresh_on_read defaults to True
    clock.advance(40)
    assert await renewing.aget(("r",), "k") is not None


async def test_the_sweep_deletes_expired_items_as_a_delete_does(
    timed: Memory, memory_scope: Scope, clock: Clock
) -> None:
    store = store_of(timed, memory_scope)
    await store.aput(("a",), "gone", {"v": 1}, ttl=1)
    await store.aput(("a", "b"), "gone", {"v": 2}, ttl=1)
    await store.aput(("a",), "kept", {"v": 3}, ttl=5)
    await store.aput(("c",), "kept", {"v": 4})
    assert await store.asweep_ttl() == 0
    clock.advance(61)
    assert await asyncio.to_thread(store.sweep_ttl) == 2  # the synchronous form, from a thread
    assert await store.asweep_ttl() == 0

    facts = await internals(timed).store.query_subtree(
        memory_scope, {"layers": [Layer.SEMANTIC], "include_retracted": True}, limit=None
    )
    retracted = sorted((f.scope_key, f.key) for f in facts if f.retracted)
    assert [key for _, key in retracted] == ["gone", "gone"]
    assert all(f.retraction and "ttl" in str(f.retraction.get("reason")) for f in facts if f.retracted)
    assert sorted(f.key or "" for f in facts if not f.retracted) == ["kept", "kept"]

    await store.aput(("a",), "gone", {"v": 5}, ttl=1)  # a new item under the swept key
    again = await store.aget(("a",), "gone")
    assert again is not None and again.value == {"v": 5}


async def test_the_sweeper_runs_until_stopped(timed: Memory, memory_scope: Scope, clock: Clock) -> None:
    store = store_of(timed, memory_scope, sweep_interval_minutes=1)
    await store.aput(("s",), "k", {"v": 1}, ttl=1)
    clock.advance(61)
    sweeper = store.start_ttl_sweeper(sweep_interval_minutes=0.002)  # every 0.12 s
    assert store.start_ttl_sweeper() is sweeper  # one sweeper at a time
    deadline = time.monotonic() + 10
    while not await _all_retracted(timed, memory_scope):
        assert time.monotonic() < deadline, "the sweeper did not sweep"
        await asyncio.sleep(0.1)
    assert not sweeper.done()
    with pytest.raises(ConfigurationError, match="astop_ttl_sweeper"):
        store.stop_ttl_sweeper()
    assert await store.astop_ttl_sweeper(timeout=5) is True
    assert sweeper.done() and sweeper.exception() is None

    again = store.start_ttl_sweeper()  # the config's interval; stopped from another thread
    assert again is not sweeper and not again.done()
    assert await asyncio.to_thread(store.stop_ttl_sweeper, 5) is True
    assert again.done()
    assert await store.astop_ttl_sweeper() is True  # nothing left to stop


async def test_without_a_ttl_config_or_interval_no_sweeper_starts(timed: Memory, memory_scope: Scope) -> None:
    store = store_of(timed, memory_scope)
    assert store.start_ttl_sweeper().done()
    assert store.stop_ttl_sweeper() is True


async def _all_retracted(memory: Memory, scope: Scope) -> bool:
    facts = await internals(memory).store.query_subtree(
        scope, {"layers": [Layer.SEMANTIC], "include_retracted": True}, limit=None
    )
    return bool(facts) and all(f.retracted for f in facts)
