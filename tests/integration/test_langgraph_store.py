"""HippographStore against a real Neo4j: LangGraph's store contract (put, get, delete, search,
list_namespaces, batches, the synchronous methods) and a compiled graph that keeps its memory
in it. LangGraph ships no conformance suite for stores (its own store tests run against its
stores' internals), so these cover the contract as ``BaseStore`` documents it and as
``InMemoryStore`` behaves."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict

import pytest
from langgraph.graph import StateGraph
from langgraph.runtime import Runtime
from langgraph.store.base import (
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    PutOp,
    SearchItem,
    SearchOp,
)

from hippograph.errors import ConfigurationError, InvalidInputError
from hippograph.integrations import HippographStore
from hippograph.memory import Memory
from hippograph.scope import Scope
from hippograph.testing import Neo4jTarget
from tests.support.memory_internals import internals

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guides" / "langgraph-store.md"


@pytest.fixture
async def lg_store(hippograph_memory: Memory, memory_scope: Scope) -> AsyncIterator[HippographStore]:
    yield HippographStore(hippograph_memory, memory_scope, loop=asyncio.get_running_loop())
    await internals(hippograph_memory).engine.drain()


async def test_put_get_update_and_delete(lg_store: HippographStore) -> None:
    ns = ("users", "ana")
    assert await lg_store.aget(ns, "prefs") is None
    await lg_store.aput(ns, "prefs", {"drink": "tea", "sugar": False})
    first = await lg_store.aget(ns, "prefs")
    assert isinstance(first, Item)
    assert (first.namespace, first.key, first.value) == (ns, "prefs", {"drink": "tea", "sugar": False})
    assert first.created_at <= first.updated_at

    await asyncio.sleep(0.01)
    await lg_store.aput(ns, "prefs", {"drink": "coffee"})
    second = await lg_store.aget(ns, "prefs")
    assert second is not None and second.value == {"drink": "coffee"}
    assert second.created_at == first.created_at and second.updated_at > first.updated_at
    assert await lg_store.aget(("users", "bob"), "prefs") is None  # a sibling namespace sees nothing
    assert await lg_store.aget(("users",), "prefs") is None  # nor does the parent

    await lg_store.adelete(ns, "prefs")
    assert await lg_store.aget(ns, "prefs") is None
    await lg_store.adelete(ns, "prefs")  # deleting what is not there is no error
    await lg_store.aput(ns, "prefs", {"drink": "water"})
    again = await lg_store.aget(ns, "prefs")
    assert again is not None and again.value == {"drink": "water"} and again.created_at > first.created_at


async def test_a_new_value_with_the_same_searched_text_is_still_stored(
    hippograph_memory: Memory, memory_scope: Scope
) -> None:
    store = HippographStore(hippograph_memory, memory_scope, index={"fields": ["text"]})
    await store.aput(("notes",), "n1", {"text": "Ana likes tea", "rating": 1})
    await store.aput(("notes",), "n1", {"text": "Ana likes tea", "rating": 5})
    item = await store.aget(("notes",), "n1")
    assert item is not None and item.value == {"text": "Ana likes tea", "rating": 5}


async def test_values_round_trip_whole(lg_store: HippographStore) -> None:
    value: dict[str, Any] = {
        "text": "Grüße, 東京 🚆",
        "n": 3,
        "x": 2.5,
        "ok": True,
        "none": None,
        "tags": ["a", "b"],
        "nested": {"deep": {"list": [1, {"k": "v"}]}},
        "api_key": "sk-ant-not-a-real-key-but-looks-like-one-0123456789",
    }
    await lg_store.aput(("docs",), "k", value)
    item = await lg_store.aget(("docs",), "k")
    assert item is not None and item.value == value


async def test_a_batch_runs_its_ops_in_order(lg_store: HippographStore) -> None:
    results = await lg_store.abatch(
        [
            PutOp(("a", "b"), "k1", {"v": 1}),
            GetOp(("a", "b"), "k1"),
            PutOp(("a", "c"), "k2", {"v": 2}),
            SearchOp(("a",), filter={"v": 2}),
            ListNamespacesOp(),
            PutOp(("a", "b"), "k1", None),
            GetOp(("a", "b"), "k1"),
            ListNamespacesOp(),
        ]
    )
    assert results[0] is None and results[2] is None and results[5] is None
    got = results[1]
    assert isinstance(got, Item) and got.value == {"v": 1}
    found = results[3]
    assert isinstance(found, list) and [(i.namespace, i.key) for i in found] == [(("a", "c"), "k2")]
    assert results[4] == [("a", "b"), ("a", "c")]
    assert results[6] is None
    assert results[7] == [("a", "c")]


async def test_search_without_a_query_lists_newest_first(lg_store: HippographStore) -> None:
    for i in range(5):
        await lg_store.aput(("proj", "x"), f"t{i}", {"i": i, "status": "open" if i % 2 == 0 else "done"})
        await asyncio.sleep(0.01)
    await lg_store.aput(("proj", "x", "sub"), "deep", {"i": 9, "status": "open"})
    await lg_store.aput(("other",), "far", {"i": 0, "status": "open"})

    everything = await lg_store.asearch(("proj",), limit=10)
    assert [i.key for i in everything] == ["deep", "t4", "t3", "t2", "t1", "t0"]
    assert all(isinstance(i, SearchItem) and i.score is None for i in everything)
    assert everything[0].namespace == ("proj", "x", "sub")
    assert [i.key for i in await lg_store.asearch(("proj",), limit=2, offset=1)] == ["t4", "t3"]
    assert [i.key for i in await lg_store.asearch(("proj", "x"), filter={"status": "open"})] == [
        "deep",
        "t4",
        "t2",
        "t0",
    ]
    assert [i.key for i in await lg_store.asearch(("proj",), filter={"i": {"$gte": 3, "$lt": 9}})] == ["t4", "t3"]
    assert {i.key for i in await lg_store.asearch((), limit=20)} == {"deep", "t0", "t1", "t2", "t3", "t4", "far"}


async def test_search_with_a_query_is_recall_in_each_namespace(lg_store: HippographStore) -> None:
    await lg_store.aput(("kb", "drinks"), "tea", {"text": "green tea is brewed at eighty degrees", "kind": "drink"})
    await lg_store.aput(("kb", "drinks"), "coffee", {"text": "espresso needs finely ground coffee", "kind": "drink"})
    await lg_store.aput(("kb", "travel"), "train", {"text": "the night train leaves at ten", "kind": "travel"})
    await lg_store.aput(("kb", "travel"), "teatrip", {"text": "a green tea plantation tour", "kind": "travel"})
    await lg_store.aput(("elsewhere",), "tea2", {"text": "green tea green tea green tea", "kind": "drink"})

    found = await lg_store.asearch(("kb",), query="green tea", limit=10)
    keys = [i.key for i in found]
    assert set(keys[:2]) == {"tea", "teatrip"}  # both namespaces answer; nothing from outside the prefix
    assert "tea2" not in keys
    assert all(i.score is not None and i.score > 0 for i in found)
    assert [i.score for i in found] == sorted((i.score for i in found), reverse=True)  # type: ignore[type-var]

    drinks = await lg_store.asearch(("kb",), query="green tea", filter={"kind": "drink"}, limit=10)
    assert drinks and drinks[0].key == "tea" and {i.value["kind"] for i in drinks} == {"drink"}
    # a recall counts as use (frequency, recency): close scores may swap between searches, so
    # pages are checked where the ranking is clear, the two tea items far above the rest
    assert {i.key for i in await lg_store.asearch(("kb",), query="green tea", limit=2)} == {"tea", "teatrip"}
    rest = await lg_store.asearch(("kb",), query="green tea", limit=10, offset=2)
    assert {i.key for i in rest} == set(keys[2:]) and len(rest) == len(keys) - 2


async def test_the_index_fields_decide_what_is_searched(hippograph_memory: Memory, memory_scope: Scope) -> None:
    store = HippographStore(hippograph_memory, memory_scope, index={"fields": ["title"]})
    await store.aput(("lib",), "a", {"title": "mountain railways", "body": "lighthouse keepers"})
    await store.aput(("lib",), "b", {"title": "lighthouse keepers", "body": "mountain railways"})
    await store.aput(("lib",), "c", {"title": "lighthouse keepers diary"}, index=["body"])  # no body: no text
    found = await store.asearch(("lib",), query="mountain railways", limit=3)
    assert found[0].key == "a"
    found = await store.asearch(("lib",), query="lighthouse keepers", limit=3)
    assert found[0].key == "b"
    await internals(hippograph_memory).engine.drain()


async def test_list_namespaces_with_conditions_depth_and_pages(lg_store: HippographStore) -> None:
    for ns in [
        ("users", "ana", "prefs"),
        ("users", "ana", "notes"),
        ("users", "bob", "prefs"),
        ("docs", "v1"),
        ("docs", "draft", "v1"),
        ("odd label", "a/b:c", "50%"),
    ]:
        await lg_store.aput(ns, "k", {"x": 1})
    every = await lg_store.alist_namespaces()
    assert every == sorted(every) and len(every) == 6
    assert ("odd label", "a/b:c", "50%") in every
    assert await lg_store.alist_namespaces(prefix=("users",)) == [
        ("users", "ana", "notes"),
        ("users", "ana", "prefs"),
        ("users", "bob", "prefs"),
    ]
    assert await lg_store.alist_namespaces(suffix=("v1",)) == [("docs", "draft", "v1"), ("docs", "v1")]
    assert await lg_store.alist_namespaces(prefix=("users", "*", "prefs")) == [
        ("users", "ana", "prefs"),
        ("users", "bob", "prefs"),
    ]
    assert await lg_store.alist_namespaces(prefix=("users",), max_depth=2) == [("users", "ana"), ("users", "bob")]
    assert await lg_store.alist_namespaces(prefix=("docs",), suffix=("v1",), max_depth=1) == [("docs",)]
    assert await lg_store.alist_namespaces(limit=2, offset=1) == every[1:3]
    await lg_store.adelete(("docs", "v1"), "k")
    assert await lg_store.alist_namespaces(prefix=("docs",)) == [("docs", "draft", "v1")]


async def test_bad_namespaces_and_ttls_are_refused(lg_store: HippographStore) -> None:
    with pytest.raises(InvalidNamespaceError):
        await lg_store.aput((), "k", {"x": 1})
    with pytest.raises(InvalidNamespaceError):
        await lg_store.aput(("langgraph", "x"), "k", {"x": 1})
    with pytest.raises(InvalidNamespaceError):
        await lg_store.abatch([PutOp(("a.b",), "k", {"x": 1})])
    with pytest.raises(InvalidNamespaceError):
        await lg_store.abatch([ListNamespacesOp(match_conditions=(MatchCondition("prefix", ("",)),))])
    with pytest.raises(InvalidNamespaceError, match="deeper"):
        await lg_store.aput(tuple("abcdefgh"), "k", {"x": 1})
    for ttl in (0, -1, float("nan")):
        with pytest.raises(InvalidInputError, match="ttl"):
            await lg_store.aput(("a",), "k", {"x": 1}, ttl=ttl)
    assert await lg_store.alist_namespaces() == []


async def test_the_synchronous_methods_from_a_thread(lg_store: HippographStore) -> None:
    def work() -> tuple[Item | None, list[SearchItem], list[tuple[str, ...]]]:
        lg_store.put(("sync",), "k", {"text": "written from a thread"})
        return lg_store.get(("sync",), "k"), lg_store.search(("sync",), query="thread"), lg_store.list_namespaces()

    item, found, namespaces = await asyncio.to_thread(work)
    assert item is not None and item.value == {"text": "written from a thread"}
    assert [i.key for i in found] == ["k"] and namespaces == [("sync",)]
    with pytest.raises(ConfigurationError, match="own event loop"):
        lg_store.get(("sync",), "k")


async def test_the_synchronous_methods_need_the_loop(hippograph_memory: Memory, memory_scope: Scope) -> None:
    store = HippographStore(hippograph_memory, memory_scope)
    with pytest.raises(ConfigurationError, match="loop="):
        await asyncio.to_thread(store.get, ("a",), "k")


@dataclass
class Context:
    user_id: str


class State(TypedDict, total=False):
    message: str
    reply: str


async def test_a_graph_keeps_its_memory_in_the_store(
    lg_store: HippographStore, hippograph_neo4j: Neo4jTarget, hippograph_embedder: Any, memory_scope: Scope
) -> None:
    async def remember(state: State, runtime: Runtime[Context]) -> State:
        assert runtime.store is not None
        namespace = ("memories", runtime.context.user_id)
        if state["message"].startswith("remember "):
            fact = state["message"].removeprefix("remember ")
            await runtime.store.aput(namespace, str(abs(hash(fact))), {"text": fact})
            return {"reply": "noted"}
        hits = await runtime.store.asearch(namespace, query=state["message"], limit=1)
        return {"reply": hits[0].value["text"] if hits else "nothing"}

    def recall_sync(state: State, runtime: Runtime[Context]) -> State:
        assert runtime.store is not None  # a sync node: LangGraph runs it in a worker thread
        hits = runtime.store.search(("memories", runtime.context.user_id), query=state["message"], limit=1)
        return {"reply": state["reply"] + " / " + (hits[0].value["text"] if hits else "nothing")}

    graph = (
        StateGraph(State, context_schema=Context)
        .add_node("remember", remember)
        .add_node("recall_sync", recall_sync)
        .add_edge("__start__", "remember")
        .add_edge("remember", "recall_sync")
        .compile(store=lg_store)
    )
    ana = Context(user_id="ana")
    await graph.ainvoke({"message": "remember Ana's cat is called Miso"}, context=ana)
    await graph.ainvoke({"message": "remember Ana flies to Lisbon on Friday"}, context=ana)
    out = await graph.ainvoke({"message": "what is the cat called"}, context=ana)
    assert out["reply"] == "Ana's cat is called Miso / Ana's cat is called Miso"
    out = await graph.ainvoke({"message": "what is the cat called"}, context=Context(user_id="bob"))
    assert out["reply"] == "nothing / nothing"

    target = hippograph_neo4j  # another process's view: a new connection reads what the graph wrote
    other = await Memory.connect(
        target.uri, user=target.user, password=target.password, database=target.database,
        embedder=hippograph_embedder, apply_schema=False, warm_plans=False,
    )  # fmt: skip
    try:
        reopened = HippographStore(other, memory_scope)
        assert await reopened.alist_namespaces() == [("memories", "ana")]
        found = await reopened.asearch(("memories", "ana"), query="Lisbon flight")
        assert found[0].value == {"text": "Ana flies to Lisbon on Friday"}
        await internals(other).engine.drain()
    finally:
        await other.close()


async def test_the_guide_example_runs(hippograph_neo4j: Neo4jTarget, hippograph_memory: Memory, tmp_path: Path) -> None:
    """The guide's agent, as a reader runs it: its own process, ``hg.open_memory()`` (the
    default embedder) finding the server through the environment."""
    [block] = [
        b for b in re.findall(r"^```python\n(.*?)^```", GUIDE.read_text("utf-8"), re.S | re.M) if "def main" in b
    ]
    tenant = f"lgguide-{uuid.uuid4().hex[:12]}"
    code = block.replace('Scope.root("org", "acme")', f'Scope.root("org", "{tenant}")')
    if "asyncio.run(main())" not in code:
        code += "\nasyncio.run(main())\n"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(GUIDE.parents[2] / "src"), os.environ.get("PYTHONPATH", "")]),
        "HIPPOGRAPH_NEO4J_URI": hippograph_neo4j.uri,
        "HIPPOGRAPH_NEO4J_PASSWORD": hippograph_neo4j.password,
        "HF_HUB_OFFLINE": "1",
        "TOKENIZERS_PARALLELISM": "false",
    }
    try:
        done = await asyncio.to_thread(
            subprocess.run, [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env,
            timeout=300, check=False,
        )  # fmt: skip
    finally:
        await hippograph_memory.forget(Scope.root("org", tenant))
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines() == ["Miso is Ana's cat", "I don't know yet.", "[('memories', 'ana')]"]
