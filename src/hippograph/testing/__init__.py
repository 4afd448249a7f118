"""pytest fixtures for projects that build on hippograph: a real Neo4j per test session and a
memory per test, in a fresh scope erased afterwards.

Installed with hippograph, the plugin is active in every pytest run (a ``pytest11`` entry
point; ``-p hippograph.testing`` loads it explicitly, ``-p no:hippograph.testing`` turns it
off). Its async fixtures need ``pytest-asyncio``. A host's test::

    async def test_my_agent_remembers(memory: MemoryCapability) -> None:
        await memory.record("I moved to Lisbon.", "Noted!")
        assert "Lisbon" in (await memory.recall("Where do I live?")).text

The fixtures:

- ``hippograph_neo4j`` (session): the :class:`~hippograph.testing.server.Neo4jTarget` of
  ``HIPPOGRAPH_NEO4J_URI`` (``HIPPOGRAPH_NEO4J_USER``, ``HIPPOGRAPH_NEO4J_PASSWORD``,
  ``HIPPOGRAPH_NEO4J_DATABASE``) when set, else of a local embedded Neo4j started in a
  temporary folder (built once, ~30–60 s to start) and stopped at the end of the session;
  ``HIPPOGRAPH_TEST_NEO4J_VERSION=5.26.31`` makes that one Neo4j 5.26 LTS (on Java 17–21). The
  schema is applied once. Nothing in the database is ever wiped.
- ``hippograph_embedder`` (session): the embedder of the test memories; bag-of-words hashing
  by default (fast, deterministic, no model). Override it in a ``conftest.py`` to test with
  the real model.
- ``memory_scope``: a root scope of this test alone (``test:<random>``).
- ``hippograph_memory``: a :class:`~hippograph.Memory` connected for this test (on the test's
  event loop); everything written in ``memory_scope`` and below is erased after the test.
- ``memory``: ``hippograph_memory.for_scope(memory_scope)``, the capability an agent host uses.
"""

from __future__ import annotations

import asyncio
import os
import threading
import uuid
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from typing import TYPE_CHECKING, Any, TypeVar, cast

import pytest

from hippograph.scope import Scope
from hippograph.testing.server import Neo4jTarget, served, session_neo4j

if TYPE_CHECKING:
    from hippograph.embeddings import EmbeddingProvider
    from hippograph.memory import Memory, MemoryCapability

__all__ = [
    "Neo4jTarget",
    "hippograph_embedder",
    "hippograph_memory",
    "hippograph_neo4j",
    "memory",
    "memory_scope",
    "served",
    "session_neo4j",
]

SCOPE_KIND = "test"
F = TypeVar("F", bound=Callable[..., Any])


def _async_fixture(function: F) -> F:
    """A pytest-asyncio fixture (in strict and auto mode alike); without pytest-asyncio, a
    fixture that says what is missing when a test asks for it (the plugin itself still loads,
    so a host's other tests run)."""
    try:
        import pytest_asyncio
    except ImportError:

        def missing() -> None:
            from hippograph.errors import MissingExtraError

            raise MissingExtraError("pytest_asyncio", "testing")

        missing.__name__ = function.__name__
        missing.__doc__ = function.__doc__
        return cast(F, pytest.fixture(name=function.__name__)(missing))
    return cast(F, pytest_asyncio.fixture(function))


@pytest.fixture(scope="session")
def hippograph_neo4j(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Neo4jTarget]:
    """The Neo4j of this test session, its schema applied (see the module's docstring)."""
    with session_neo4j(tmp_path_factory.mktemp("hippograph-neo4j"), os.environ) as target:
        _in_own_loop(lambda: _apply_schema(target))
        yield target


@pytest.fixture(scope="session")
def hippograph_embedder() -> EmbeddingProvider:
    """Bag-of-words hashing embeddings: texts sharing words are near. Override this fixture
    (``return hippograph.embeddings.default_embedder()``) to test with the real model."""
    from hippograph.embeddings import HashingEmbeddings

    return HashingEmbeddings()


@pytest.fixture
def memory_scope() -> Scope:
    """A fresh root scope of this test alone; erased after the test with everything below it."""
    return Scope.root(SCOPE_KIND, uuid.uuid4().hex[:16])


@_async_fixture
async def hippograph_memory(
    hippograph_neo4j: Neo4jTarget, hippograph_embedder: EmbeddingProvider, memory_scope: Scope
) -> AsyncIterator[Memory]:
    """A memory connected for this test; ``memory_scope`` is erased when the test ends."""
    from hippograph.memory import Memory

    target = hippograph_neo4j
    memory = await Memory.connect(
        target.uri, user=target.user, password=target.password, database=target.database,
        embedder=hippograph_embedder, apply_schema=False, warm_plans=False,
    )  # fmt: skip
    try:
        yield memory
        await memory.forget(memory_scope)
    finally:
        await memory.close()


@pytest.fixture
def memory(hippograph_memory: Memory, memory_scope: Scope) -> MemoryCapability:
    """The memory capability of ``memory_scope`` (recall, record, forget)."""
    return hippograph_memory.for_scope(memory_scope)


async def _apply_schema(target: Neo4jTarget) -> None:
    from hippograph.store import GraphStore

    store = await GraphStore.open(
        target.uri, user=target.user, password=target.password, database=target.database, apply_schema=True
    )
    await store.close()


def _in_own_loop(work: Callable[[], Coroutine[Any, Any, None]]) -> None:
    """Run ``work`` to the end on a new event loop in a thread of its own, whatever loop the
    calling thread may have (pytest-asyncio's, running or not)."""
    failure: list[BaseException] = []

    def run() -> None:
        try:
            asyncio.run(work())
        except BaseException as exc:
            failure.append(exc)

    thread = threading.Thread(target=run, name="hippograph-schema")
    thread.start()
    thread.join()
    if failure:
        raise failure[0]
