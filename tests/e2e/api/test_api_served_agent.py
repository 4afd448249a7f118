"""The served agent as an API user meets it: it naps on its own cadence (every 10 turns of a
scope by default, nothing else called), it is configured by a config file and the environment,
an admin key reads the settings it runs with (secrets masked) and no other key does, its
fabrication policy's refusal streams as ``FabricationBlockedEvent``, and the nightly run
scheduled in the settings happens by itself."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from hippograph.app.access.keys import Role, create_key
from hippograph.app.settings import Settings
from hippograph.llm import ScriptedModel
from hippograph.llm.provider import ModelProvider
from hippograph.scope import Scope
from tests.e2e.api.harness import Client, Server, Tenant, start_server
from tests.e2e.api.test_api_streams import open_ws, subscribe

TURN = """mutation($scope: String!, $message: String!, $session: String) {
  turn(scope: $scope, message: $message, sessionId: $session) {
    __typename ... on TurnSuccess { reply sessionId } } }"""
RUNS = """query($scope: String!) { consolidationRuns(scope: $scope) { entryPoint status scopeKey } }"""
SETTINGS = "{ serverSettings }"
BLOCKED = """subscription($scope: String!, $message: String!) { turn(scope: $scope, message: $message) {
  __typename
  ... on FabricationDetectedEvent { action }
  ... on FabricationBlockedEvent { confidence minConfidence findings droppedOps reply }
  ... on TextDeltaEvent { text }
} }"""
FABRICATED = "I deployed build 4f3a9c2e1b7d8a6f to production."
SAFE_REPLY = "I can't confirm that from what I know."
CONFIG = f"""
daily_token_budget = 123456

[agent]
agent_name = "Served"

[agent.fabrication]
mode = "refuse"
safe_reply = "{SAFE_REPLY}"

[consolidation]
turns_between_naps = 50
"""


def _runs(client: Client, scope: Scope, entry_point: str, timeout: float = 60.0) -> list[dict[str, Any]]:
    """The scope's consolidation runs of one entry point, once there is one (or after ``timeout``)."""
    deadline = time.time() + timeout
    while True:
        runs = [r for r in client.data(RUNS, scope=scope.key)["consolidationRuns"] if r["entryPoint"] == entry_point]
        if runs or time.time() > deadline:
            return runs
        time.sleep(0.2)


async def test_a_served_agent_naps_after_ten_turns_with_no_other_call(api_server: Server, api_tenant: Tenant) -> None:
    t = api_tenant
    client = t.client(await t.key(t.user, Role.WRITER))
    session = None
    for i in range(9):
        result = client.data(TURN, scope=t.user.key, message=f"Note {i}: I sail on Sundays.", session=session)["turn"]
        assert result["__typename"] == "TurnSuccess", result
        session = result["sessionId"]
    assert _runs(client, t.user, "quick_nap", timeout=2.0) == []  # nine turns: not yet
    client.data(TURN, scope=t.user.key, message="Note 9: and on Mondays.", session=session)
    [nap] = _runs(client, t.user, "quick_nap")  # the tenth turn's background nap, nothing else called
    assert nap["status"] == "completed" and nap["scopeKey"] == t.user.key


def _fabricating(_: Settings) -> ModelProvider:
    return ScriptedModel([FABRICATED], cycle=True)


@pytest.fixture(scope="module")
def served(neo4j_server: tuple[str, str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, Scope]]:
    """A server configured by a TOML file and the environment (which wins), whose nightly run
    every second covers one fresh org only."""
    folder = tmp_path_factory.mktemp("served")
    config = folder / "served.toml"
    config.write_text(CONFIG, encoding="utf-8")
    org = Scope.root("org", f"served-{uuid.uuid4().hex[:10]}")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("HIPPOGRAPH_API_CONFIG_FILE", str(config))
        env.setenv("HIPPOGRAPH_API_CONSOLIDATION__TURNS_BETWEEN_NAPS", "0")
        env.setenv("HIPPOGRAPH_API_NIGHTLY__EVERY", "1")
        env.setenv("HIPPOGRAPH_API_NIGHTLY__SCOPES", json.dumps([org.key]))
        server = start_server(neo4j_server, folder, model_factory=_fabricating)
    yield server, org
    server.stop()
    assert not server.thread.is_alive(), "the nightly task kept the server from shutting down"


async def test_admins_read_the_settings_the_server_runs_with(served: tuple[Server, Scope], api_tenant: Tenant) -> None:
    server, _ = served
    t = api_tenant
    admin = Client(server.url, await t.key(t.org, Role.ADMIN))
    shown = admin.data(SETTINGS)["serverSettings"]
    api, app = shown["api"], shown["app"]
    assert api["agent"]["agent_name"] == "Served" and api["agent"]["fabrication"]["mode"] == "refuse"
    assert api["daily_token_budget"] == 123456 and api["config_file"].endswith("served.toml")
    assert api["consolidation"]["turns_between_naps"] == 0  # the environment over the file
    assert api["nightly"]["every"] == 1 and api["consolidation"]["nightly_enabled"] is True  # as it runs
    assert app["neo4j_password"] == "**********"
    for role in (Role.WRITER, Role.READER):
        refused = Client(server.url, await t.key(t.org, role)).gql(SETTINGS)
        assert refused["data"] is None and refused["errors"][0]["extensions"]["code"] == "FORBIDDEN"


async def test_the_served_policy_refusal_streams_fabrication_blocked(
    served: tuple[Server, Scope], api_tenant: Tenant
) -> None:
    server, _ = served
    t = api_tenant
    token = await t.key(t.user, Role.WRITER)
    with open_ws(server, {"authorization": f"Bearer {token}"}) as ws:
        assert json.loads(ws.recv(timeout=30))["type"] == "connection_ack"
        payloads = subscribe(ws, BLOCKED, scope=t.user.key, message="Please deploy the service.")
    events = [p["data"]["turn"] for p in payloads]
    kinds = [e["__typename"] for e in events]
    assert kinds.index("FabricationDetectedEvent") < kinds.index("FabricationBlockedEvent")
    [blocked] = [e for e in events if e["__typename"] == "FabricationBlockedEvent"]
    assert blocked["reply"] == SAFE_REPLY and blocked["findings"] >= 1
    assert blocked["confidence"] >= blocked["minConfidence"]
    assert "".join(e["text"] for e in events if e["__typename"] == "TextDeltaEvent") == SAFE_REPLY


async def test_the_scheduled_nightly_run_happens_by_itself(served: tuple[Server, Scope], api_tenant: Tenant) -> None:
    server, org = served
    t = api_tenant
    admin = Client(server.url, await t.key(t.org, Role.ADMIN))
    _, token = await create_key(t.repo, org, Role.ADMIN)
    own = Client(server.url, token)
    nightly = _runs(own, org, "nightly_nap")
    assert nightly and nightly[0]["status"] == "completed" and nightly[0]["scopeKey"] == org.key
    assert _runs(admin, t.org, "nightly_nap", timeout=0.0) == []  # a scope the schedule does not name
