"""Fixtures of the promise tests (issue 9): a memory over the test Neo4j with deterministic
bag-of-words embeddings and a strictly increasing clock, and a plain driver that runs the
few inspection statements of ``cypher/`` (whole-database scans no library query makes)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import neo4j
import pytest

from hippograph.embeddings import HashingEmbeddings
from hippograph.memory import Memory
from hippograph.scope import Scope
from hippograph.store import GraphStore
from tests.integration.memory.helpers import TickingClock
from tests.support.memory_internals import internals

_CYPHER = Path(__file__).parent / "cypher"


class Inspector:
    """Runs the inspection statements of ``cypher/`` (files, never strings built here)."""

    def __init__(self, driver: neo4j.AsyncDriver) -> None:
        self.driver = driver

    async def run(self, name: str, **params: Any) -> list[dict[str, Any]]:
        text = (_CYPHER / f"{name}.cypher").read_text()
        records, _, _ = await self.driver.execute_query(text, params)  # type: ignore[arg-type]
        return [r.data() for r in records]


@pytest.fixture(scope="session")
async def inspector(neo4j_server: tuple[str, str]) -> AsyncIterator[Inspector]:
    uri, password = neo4j_server
    driver = neo4j.AsyncGraphDatabase.driver(uri, auth=("neo4j", password))
    yield Inspector(driver)
    await driver.close()


@pytest.fixture(scope="session")
def hashing() -> HashingEmbeddings:
    return HashingEmbeddings()


@pytest.fixture
async def memory(store: GraphStore, hashing: HashingEmbeddings, tenant: Scope) -> AsyncIterator[Memory]:
    orchestrator = Memory(store, hashing, clock=TickingClock())
    yield orchestrator
    await internals(orchestrator).engine.drain()
