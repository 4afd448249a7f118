"""Which bookmark manager a session gets: the connection's own outside any causal scope, one per
scope (and per connection) inside, inherited by the tasks a scope starts; the API runs every
request in a scope of its own. Real driver objects; nothing here reaches a server (a driver
connects on first use only)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest
from neo4j import AsyncGraphDatabase
from neo4j.api import AsyncBookmarkManager
from starlette.types import Receive, Scope, Send

import hippograph as hg
from hippograph.app.api.app import CausalScopes
from hippograph.store import Neo4jConnection, causal_scope

URI = "neo4j://127.0.0.1:9"  # never dialled: no test here runs a query


@pytest.fixture
async def conn() -> AsyncIterator[Neo4jConnection]:
    driver = AsyncGraphDatabase.driver(URI, auth=("neo4j", "unused"))
    yield Neo4jConnection(driver, uri=URI, database="neo4j")
    await driver.close()


async def test_outside_a_scope_every_session_shares_the_connections_bookmarks(conn: Neo4jConnection) -> None:
    assert conn.bookmark_manager() is conn.bookmarks
    assert conn.bookmark_manager() is conn.bookmarks


async def test_a_scope_has_its_own_manager_for_its_whole_life(conn: Neo4jConnection) -> None:
    with causal_scope():
        inside = conn.bookmark_manager()
        assert inside is not conn.bookmarks
        assert conn.bookmark_manager() is inside
    assert conn.bookmark_manager() is conn.bookmarks


async def test_two_scopes_never_share_a_manager(conn: Neo4jConnection) -> None:
    with causal_scope():
        first = conn.bookmark_manager()
    with causal_scope():
        second = conn.bookmark_manager()
    assert first is not second

    async def request() -> AsyncBookmarkManager:
        with causal_scope():
            manager = conn.bookmark_manager()
            await asyncio.sleep(0)  # the other request runs meanwhile
            assert conn.bookmark_manager() is manager
            return manager

    a, b = await asyncio.gather(request(), request())
    assert a is not b and conn.bookmarks not in (a, b)


async def test_a_scope_keeps_its_bookmarks_apart_from_other_scopes(conn: Neo4jConnection) -> None:
    with causal_scope():
        writer = conn.bookmark_manager()
        await writer.update_bookmarks([], ["bookmark-of-a-write"])
        assert await conn.bookmark_manager().get_bookmarks() == {"bookmark-of-a-write"}
        with causal_scope():  # an inner scope starts afresh
            assert await conn.bookmark_manager().get_bookmarks() == set()
        assert await conn.bookmark_manager().get_bookmarks() == {"bookmark-of-a-write"}
    with causal_scope():
        assert await conn.bookmark_manager().get_bookmarks() == set()
    assert await conn.bookmarks.get_bookmarks() == set()


async def test_tasks_started_in_a_scope_share_it(conn: Neo4jConnection) -> None:
    with causal_scope():
        manager = conn.bookmark_manager()
        inherited = await asyncio.create_task(_manager_of(conn))
    assert inherited is manager


async def _manager_of(conn: Neo4jConnection) -> AsyncBookmarkManager:
    return conn.bookmark_manager()


async def test_each_connection_gets_its_own_manager_in_a_scope(conn: Neo4jConnection) -> None:
    other_driver = AsyncGraphDatabase.driver("neo4j://127.0.0.2:9", auth=("neo4j", "unused"))
    other = Neo4jConnection(other_driver, uri="neo4j://127.0.0.2:9", database="neo4j")
    try:
        with causal_scope():  # a bookmark of one server means nothing to another
            assert conn.bookmark_manager() is not other.bookmark_manager()
    finally:
        await other_driver.close()


async def test_the_scope_is_on_the_front_door() -> None:
    assert hg.causal_scope is causal_scope


async def test_the_api_runs_each_request_in_a_scope_of_its_own(conn: Neo4jConnection) -> None:
    seen: list[AsyncBookmarkManager] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        seen.append(conn.bookmark_manager())
        seen.append(conn.bookmark_manager())  # the same one for the whole request
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    transport = httpx.ASGITransport(app=CausalScopes(app))
    async with httpx.AsyncClient(transport=transport, base_url="http://api") as client:
        assert (await client.get("/one")).status_code == 204
        assert (await client.get("/two")).status_code == 204
    first, again, second, _ = seen
    assert first is again and first is not second
    assert conn.bookmarks not in seen
