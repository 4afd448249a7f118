"""The API's commands as a user runs them: keys create / list / revoke, serve (development
mode only on 127.0.0.1), export and import of a subtree with ids kept."""

from __future__ import annotations

import json
import subprocess
import time
import uuid
from pathlib import Path

import httpx

from tests.e2e.api.harness import free_port
from tests.support.cli import CLI, cli_env


def env_for(neo4j_server: tuple[str, str], tmp_path: Path) -> dict[str, str]:
    return {**cli_env(neo4j_server, tmp_path), "COLUMNS": "200"}


def run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], env=env, capture_output=True, text=True, timeout=300, check=False)


def test_keys_create_list_revoke_and_serve(neo4j_server: tuple[str, str], tmp_path: Path) -> None:
    env = env_for(neo4j_server, tmp_path)
    scope = f"org:cli-{uuid.uuid4().hex[:8]}"
    created = run(["keys", "create", "--scope", scope, "--role", "writer", "--name", "ci"], env)
    assert created.returncode == 0, created.stderr
    token = created.stdout.strip()
    assert token.startswith("hg_") and token not in created.stderr
    listed = json.loads(run(["keys", "list", "--scope", scope, "--json"], env).stdout)
    assert [(k["role"], k["name"]) for k in listed] == [("writer", "ci")]
    assert token not in json.dumps(listed) and "hash" not in listed[0]
    bad_role = run(["keys", "create", "--scope", scope, "--role", "root"], env)
    assert bad_role.returncode == 1 and "role" in bad_role.stderr

    refused = run(["serve", "--dev", "--host", "0.0.0.0"], env)
    assert refused.returncode == 2 and "127.0.0.1" in refused.stderr

    port = free_port()
    server = subprocess.Popen(
        [*CLI, "serve", "--port", str(port), "--embedder", "hashing", "--log-level", "warning"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.time() + 180
        while True:
            try:
                if httpx.get(url + "/readyz", timeout=5).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert server.poll() is None and time.time() < deadline, server.stderr.read() if server.stderr else ""
            time.sleep(0.5)
        query = {"query": "query($s: String!) { scope(key: $s) { key } }", "variables": {"s": scope}}
        ok = httpx.post(url + "/graphql", json=query, headers={"Authorization": f"Bearer {token}"}, timeout=30)
        assert ok.status_code == 200 and ok.json()["data"]["scope"]["key"] == scope
        revoked = run(["keys", "revoke", listed[0]["id"]], env)
        assert revoked.returncode == 0 and "revoked" in revoked.stdout
        gone = httpx.post(url + "/graphql", json=query, headers={"Authorization": f"Bearer {token}"}, timeout=30)
        assert gone.status_code == 401
    finally:
        server.terminate()
        server.wait(timeout=60)


def test_export_forget_import_keeps_ids(neo4j_server: tuple[str, str], tmp_path: Path) -> None:
    env = env_for(neo4j_server, tmp_path)
    scope = f"org:exp-{uuid.uuid4().hex[:8]}/user:ana"
    turns = [
        {"turn_id": "1", "session_id": "s1", "speaker": "Ana", "text": "I adopted a grey cat called Miso."},
        {"turn_id": "2", "session_id": "s1", "speaker": "Bot", "text": "Miso is a lovely name."},
    ]
    file = tmp_path / "turns.json"
    file.write_text(json.dumps(turns))
    assert run(["ingest", str(file), "--scope", scope], env).returncode == 0
    out = tmp_path / "export.jsonl"
    exported = run(["export", "--scope", scope.split("/")[0], "--embeddings", "--out", str(out)], env)
    assert exported.returncode == 0, exported.stderr
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert lines[0]["type"] == "header" and lines[0]["embeddings"] is True
    memories = {x["memory"]["id"] for x in lines if x["type"] == "memory"}
    edges = {x["edge"]["id"] for x in lines if x["type"] == "edge"}
    assert len(memories) == 2 and edges
    assert run(["forget", "--scope", scope.split("/")[0], "--yes"], env).returncode == 0
    imported = run(["import", str(out)], env)
    assert imported.returncode == 0, imported.stderr
    assert f"imported 2 memories and {len(edges)} edges" in imported.stdout
    again = tmp_path / "again.jsonl"
    assert run(["export", "--scope", scope.split("/")[0], "--embeddings", "--out", str(again)], env).returncode == 0
    relines = [json.loads(x) for x in again.read_text().splitlines()]
    assert {x["memory"]["id"] for x in relines if x["type"] == "memory"} == memories
    assert {x["edge"]["id"] for x in relines if x["type"] == "edge"} == edges
    recalled = run(["recall", "What is the name of Ana's cat?", "--scope", scope, "--json", "--top-k", "1"], env)
    assert "Miso" in json.loads(recalled.stdout)["items"][0]["node"]["content"]
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "memory", "memory": {"id": "x"}}\n')
    refused = run(["import", str(bad)], env)
    assert refused.returncode == 1 and "line 1" in refused.stderr
    run(["forget", "--scope", scope.split("/")[0], "--yes"], env)


def test_graphml_export_imports_back_to_the_same_records(neo4j_server: tuple[str, str], tmp_path: Path) -> None:
    env = env_for(neo4j_server, tmp_path)
    org = f"org:gml-{uuid.uuid4().hex[:8]}"
    scope = f"{org}/user:ana"
    turns = [
        {"turn_id": "1", "session_id": "s1", "speaker": "Ana", "text": "I adopted a grey cat called <Miso> & co."},
        {"turn_id": "2", "session_id": "s1", "speaker": "Bot", "text": "Miso is a lovely name."},
    ]
    file = tmp_path / "turns.json"
    file.write_text(json.dumps(turns))
    assert run(["ingest", str(file), "--scope", scope], env).returncode == 0
    before, graphml = tmp_path / "before.jsonl", tmp_path / "export.graphml"
    assert run(["export", "--scope", org, "--embeddings", "--out", str(before)], env).returncode == 0
    exported = run(["export", "--scope", org, "--embeddings", "--out", str(graphml), "--json"], env)
    assert exported.returncode == 0, exported.stderr
    assert json.loads(exported.stdout)["format"] == "graphml"
    import networkx as nx

    graph = nx.read_graphml(graphml)  # any GraphML reader sees the memories and their edges
    assert graph.number_of_nodes() == 2 and graph.number_of_edges() >= 1
    assert any("<Miso> & co." in str(data.get("content")) for _, data in graph.nodes(data=True))

    assert run(["forget", "--scope", org, "--yes"], env).returncode == 0
    imported = run(["import", str(graphml), "--json"], env)
    assert imported.returncode == 0, imported.stderr
    after = tmp_path / "after.jsonl"
    assert run(["export", "--scope", org, "--embeddings", "--out", str(after)], env).returncode == 0

    def records(path: Path) -> list[dict[str, object]]:
        lines = [json.loads(x) for x in path.read_text().splitlines()]
        return sorted((x for x in lines if x["type"] != "header"), key=lambda x: json.dumps(x, sort_keys=True))

    assert records(after) == records(before)  # every property, vector and edge, ids kept
    bad = tmp_path / "bad.graphml"
    bad.write_text("<graphml><graph><node id='x'/></graph></graphml>")
    refused = run(["import", str(bad)], env)
    assert refused.returncode == 1 and "GraphML" in refused.stderr + refused.stdout
    run(["forget", "--scope", org, "--yes"], env)


def test_serve_refuses_a_bad_setting_naming_it(neo4j_server: tuple[str, str], tmp_path: Path) -> None:
    env = env_for(neo4j_server, tmp_path)
    bad_env = run(["serve", "--embedder", "hashing"], {**env, "HIPPOGRAPH_API_AGENT__FABRICATION__MODE": "bogus"})
    assert bad_env.returncode == 2 and "Traceback" not in bad_env.stderr
    assert "invalid setting agent.fabrication.mode" in bad_env.stderr
    assert "HIPPOGRAPH_API_AGENT__FABRICATION__MODE" in bad_env.stderr and "'bogus'" in bad_env.stderr

    config = tmp_path / "served.toml"
    config.write_text("[consolidation]\nturns_between_nap = 5\n", encoding="utf-8")
    bad_file = run(["serve", "--config", str(config)], env)
    assert bad_file.returncode == 2 and "Traceback" not in bad_file.stderr
    assert "invalid setting consolidation.turns_between_nap" in bad_file.stderr
    assert "[consolidation]" in bad_file.stderr

    missing = run(["serve"], {**env, "HIPPOGRAPH_API_CONFIG_FILE": str(tmp_path / "nowhere.toml")})
    assert missing.returncode == 2 and "nowhere.toml" in missing.stderr and "Traceback" not in missing.stderr
