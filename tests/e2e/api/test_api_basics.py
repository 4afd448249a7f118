"""Health, readiness, GraphiQL, metrics, and the key lifecycle over real HTTP."""

from __future__ import annotations

import asyncio
import gc
import threading
import uuid
from pathlib import Path

import httpx
import pytest

from hippograph.app.access.keys import Role, list_keys, revoke_key
from hippograph.app.api.app import create_app
from hippograph.app.api.settings import ApiSettings
from hippograph.errors import ConfigurationError
from tests.e2e.api.harness import Server, Tenant, start_server
from tests.support.memory_internals import internals


def test_health_readiness_graphiql_and_metrics(api_server: Server) -> None:
    with httpx.Client(base_url=api_server.url) as http:
        assert http.get("/healthz").json() == {"status": "ok"}
        ready = http.get("/readyz")
        assert ready.status_code == 200 and ready.json() == {"status": "ready", "neo4j": "ok", "warm_up": "done"}
        page = http.get("/graphql", headers={"Accept": "text/html"})
        assert page.status_code == 200 and "graphiql" in page.text.lower()
        metrics = http.get("/metrics")
        assert metrics.status_code == 200
        assert "hippograph_api_requests_total" in metrics.text
        assert 'route="/healthz"' in metrics.text
    assert gc.get_freeze_count() > 0  # start-up's objects are out of the full collections' way
    services = api_server.server.config.app.state.services
    assert services.warming is not None and services.warming.done()  # the harness waited for /readyz
    assert internals(services.memory).engine._warming is not None  # the recall statement is planned at start


def test_readyz_holds_until_the_warm_up_is_done(api_server: Server) -> None:
    services = api_server.server.config.app.state.services
    original = services.warming
    loop = original.get_loop()
    gate = threading.Event()

    async def warm_up(fail: bool) -> None:
        await asyncio.to_thread(gate.wait)
        if fail:
            raise ConfigurationError("no embedder")

    async def start(fail: bool) -> asyncio.Task[None]:
        return asyncio.create_task(warm_up(fail))

    try:
        for fail in (False, True):
            gate.clear()
            services.warming = asyncio.run_coroutine_threadsafe(start(fail), loop).result(10)
            waiting = httpx.get(api_server.url + "/readyz", timeout=30)
            assert waiting.status_code == 503 and waiting.json()["warm_up"] == "warming"
            assert "retry-after" in waiting.headers
            assert httpx.get(api_server.url + "/healthz", timeout=30).status_code == 200
            gate.set()
            asyncio.run_coroutine_threadsafe(asyncio.wait({services.warming}), loop).result(10)
            after = httpx.get(api_server.url + "/readyz", timeout=30)
            expected = (503, "failed") if fail else (200, "done")
            assert (after.status_code, after.json()["warm_up"]) == expected
    finally:
        services.warming = original


async def test_requests_without_a_valid_key_are_refused(api_tenant: Tenant) -> None:
    anonymous = api_tenant.client(None).post("{ __typename }")
    assert anonymous.status_code == 401
    assert anonymous.headers["www-authenticate"] == "Bearer"
    forged = api_tenant.client("hg_not-a-real-token").post("{ __typename }")
    assert forged.status_code == 401
    assert forged.json() == anonymous.json()


async def test_a_revoked_key_stops_working_at_once(api_tenant: Tenant) -> None:
    token = await api_tenant.key(api_tenant.org, Role.READER, name="dashboard")
    client = api_tenant.client(token)
    assert client.data("{ __typename }") == {"__typename": "Query"}
    [record] = [k for k in await list_keys(api_tenant.repo, api_tenant.org) if k.name == "dashboard"]
    assert record.role == "reader" and record.scope_key == api_tenant.org.key
    await revoke_key(api_tenant.repo, record.id)
    assert client.post("{ __typename }").status_code == 401


async def test_rate_limit_gives_429_with_retry_after(api_tenant: Tenant) -> None:
    token = await api_tenant.key(api_tenant.org, Role.READER, rate_limit=3)
    client = api_tenant.client(token)
    statuses = [client.post("{ __typename }").status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    limited = client.post("{ __typename }")
    assert limited.status_code == 429
    assert 1 <= int(limited.headers["retry-after"]) <= 60
    assert limited.json()["error"]["code"] == "RATE_LIMITED"


async def test_development_mode_needs_no_key_and_only_binds_to_localhost(
    neo4j_server: tuple[str, str], tmp_path: Path
) -> None:
    with pytest.raises(ConfigurationError, match=r"127\.0\.0\.1"):
        create_app(api=ApiSettings(dev_mode=True, host="0.0.0.0"))
    server = start_server(neo4j_server, tmp_path, dev_mode=True)
    try:
        scope = f"org:dev-{uuid.uuid4().hex[:8]}"
        body = httpx.post(
            server.url + "/graphql",
            json={"query": "query($s: String!) { scope(key: $s) { key exists } }", "variables": {"s": scope}},
            timeout=30,
        ).json()
        assert body["data"]["scope"] == {"key": scope, "exists": False}
    finally:
        server.stop()


async def test_depth_aliases_tokens_and_first_are_capped(api_tenant: Tenant) -> None:
    t = api_tenant
    client = t.client(await t.key(t.org, Role.READER))
    nested = "node(id: $id) { " + "neighbours { memory { " * 6 + "id" + " } }" * 6 + " }"
    deep = client.gql(f"query($id: ID!) {{ {nested} }}", id="x")
    assert "exceeds maximum operation depth" in deep["errors"][0]["message"]
    aliases = client.gql("{ " + " ".join(f"a{i}: __typename" for i in range(20)) + " }")
    assert "aliases" in aliases["errors"][0]["message"]
    tokens = client.gql("{ " + " ".join("__typename" for _ in range(2100)) + " }")
    # over HTTP Strawberry reports the aborted parse as "No GraphQL document available"
    assert tokens["errors"] and tokens.get("data") is None
    assert not any("data" in (e.get("extensions") or {}) for e in deep["errors"] + aliases["errors"])
    too_many = client.gql("query($s: String!) { memories(scope: $s, first: 101) { edges { cursor } } }", s=t.org.key)
    assert too_many["errors"][0]["extensions"]["code"] == "BAD_INPUT"
    assert "first" in too_many["errors"][0]["message"]
