"""Health, readiness, GraphiQL, metrics, and the key lifecycle over real HTTP."""

from __future__ import annotations

import httpx

from hippograph.app.api.auth import Role, list_keys, revoke_key
from tests.e2e.api.harness import Server, Tenant


def test_health_readiness_graphiql_and_metrics(api_server: Server) -> None:
    with httpx.Client(base_url=api_server.url) as http:
        assert http.get("/healthz").json() == {"status": "ok"}
        ready = http.get("/readyz")
        assert ready.status_code == 200 and ready.json()["neo4j"] == "ok"
        page = http.get("/graphql", headers={"Accept": "text/html"})
        assert page.status_code == 200 and "graphiql" in page.text.lower()
        metrics = http.get("/metrics")
        assert metrics.status_code == 200
        assert "hippograph_api_requests_total" in metrics.text
        assert 'route="/healthz"' in metrics.text


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
