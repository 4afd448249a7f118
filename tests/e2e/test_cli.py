"""The CLI as a user runs it: a subprocess, real output, real Neo4j."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import IO

import httpx
import pytest

from hippograph.app.demo_serve import dashboard_address
from hippograph.store import SCHEMA_VERSION, Neo4jConnection
from hippograph.store.schema import schema_version
from tests.e2e.api.harness import free_port
from tests.support.cli import CLI, cli_env


def run(args: list[str], env: dict[str, str], timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], env=env, capture_output=True, text=True, timeout=timeout, check=False)


async def _schema_version(uri: str, password: str) -> int | None:
    """The schema version of the server at ``uri`` (the warm-up of ``neo4j start`` applied it)."""
    conn = await Neo4jConnection.connect(uri, password=password.strip())
    try:
        return await schema_version(conn)
    finally:
        await conn.close()


def test_neo4j_start_status_stop(tmp_path: Path) -> None:
    env = {**os.environ, "COLUMNS": "160"}
    env.pop("HIPPOGRAPH_NEO4J_URI", None)
    data = str(tmp_path / "neo4j")
    started = run(["neo4j", "start", "--data-dir", data], env)
    try:
        assert started.returncode == 0, started.stdout + started.stderr
        assert "HIPPOGRAPH_NEO4J_URI=bolt://127.0.0.1:" in started.stdout
        assert "warming the server failed" not in started.stdout
        uri = started.stdout.split("HIPPOGRAPH_NEO4J_URI=")[1].split()[0]
        assert asyncio.run(_schema_version(uri, (tmp_path / "neo4j" / "password").read_text())) == SCHEMA_VERSION
        status = run(["neo4j", "status", "--data-dir", data], env)
        assert status.returncode == 0 and "ready at bolt://" in status.stdout
        as_json = json.loads(run(["neo4j", "status", "--data-dir", data, "--json"], env).stdout)
        assert as_json["ready"] is True and as_json["uri"].startswith("bolt://127.0.0.1:")
        again = run(["neo4j", "start", "--data-dir", data], env)  # idempotent
        assert again.returncode == 0
    finally:
        stopped = run(["neo4j", "stop", "--data-dir", data], env)
    assert stopped.returncode == 0 and "stopped" in stopped.stdout
    status = run(["neo4j", "status", "--data-dir", data], env)
    assert status.returncode == 1 and "stopped" in status.stdout
    stopped_json = run(["neo4j", "status", "--data-dir", data, "--json"], env)
    assert stopped_json.returncode == 1 and json.loads(stopped_json.stdout)["running"] is False


def test_ingest_recall_consolidate_forget(neo4j_server: tuple[str, str], tmp_path: Path) -> None:
    env = cli_env(neo4j_server, tmp_path)
    turns = [
        {"turn_id": "1", "session_id": "s1", "speaker": "Ana", "text": "I adopted a grey cat called Miso."},
        {"turn_id": "2", "session_id": "s1", "speaker": "Bot", "text": "Miso is a lovely name for a cat."},
        {"turn_id": "3", "session_id": "s2", "speaker": "Ana", "text": "I start my new job as a nurse on Monday."},
    ]
    file = tmp_path / "turns.json"
    file.write_text(json.dumps(turns))
    scope = f"org:cli-{tmp_path.name[-8:]}/user:ana".replace("_", "-")
    ingested = run(["ingest", str(file), "--scope", scope], env)
    assert ingested.returncode == 0, ingested.stderr
    assert "stored 3 turns" in ingested.stdout
    again = run(["ingest", str(file), "--scope", scope, "--json"], env)  # idempotent by turn id
    assert again.returncode == 0 and json.loads(again.stdout) == {"stored": 3, "scope": scope}
    recalled = run(["recall", "What is the name of Ana's cat?", "--scope", scope, "--json", "--top-k", "2"], env)
    assert recalled.returncode == 0, recalled.stderr
    result = json.loads(recalled.stdout)
    assert "Miso" in result["items"][0]["node"]["content"]
    assert result["items"][0]["channels"]
    tree = run(["recall", "What is the name of Ana's cat?", "--scope", scope, "--tree", "--top-k", "3"], env)
    assert tree.returncode == 0 and "found by" in tree.stdout and "Miso" in tree.stdout
    report = run(["consolidate", "--scope", scope, "--mode", "quick_nap", "--json"], env)
    assert report.returncode == 0, report.stderr
    assert json.loads(report.stdout)["entry_point"] == "quick_nap"
    table = run(["consolidate", "--scope", scope, "--mode", "quick_nap"], env)
    assert table.returncode == 0 and "consolidation quick_nap" in table.stdout
    erased = run(["forget", "--scope", scope.split("/")[0], "--yes", "--json"], env)
    assert erased.returncode == 0 and json.loads(erased.stdout) == {"erased": 3, "scope": scope.split("/")[0]}


def test_namespace_option_partitions_a_scope(neo4j_server: tuple[str, str], tmp_path: Path) -> None:
    env = cli_env(neo4j_server, tmp_path)
    scope = f"org:cli-ns-{tmp_path.name[-8:]}/user:ana".replace("_", "-")
    turns = [{"turn_id": "1", "session_id": "s1", "speaker": "Ana", "text": "My support ticket is about the kettle."}]
    file = tmp_path / "turns.json"
    file.write_text(json.dumps(turns))
    ingested = run(["ingest", str(file), "--scope", scope, "--namespace", "support", "--json"], env)
    assert ingested.returncode == 0, ingested.stderr
    assert json.loads(ingested.stdout) == {"stored": 1, "scope": f"{scope}/@support"}
    query = "What is Ana's support ticket about?"
    inside = run(["recall", query, "--scope", scope, "--namespace", "support", "--json"], env)
    assert inside.returncode == 0, inside.stderr
    assert any("kettle" in i["node"]["content"] for i in json.loads(inside.stdout)["items"])
    for args in (["--namespace", "sales"], []):
        outside = run(["recall", query, "--scope", scope, *args, "--json"], env)
        assert outside.returncode == 0, outside.stderr
        assert not any("kettle" in i["node"]["content"] for i in json.loads(outside.stdout)["items"])
    bad = run(["recall", query, "--scope", scope, "--namespace", "no such"], env)
    assert bad.returncode != 0 and "namespace" in (bad.stdout + bad.stderr)
    erased = run(["forget", "--scope", scope.split("/")[0], "--yes", "--json"], env)
    assert erased.returncode == 0 and json.loads(erased.stdout)["erased"] == 1


def test_bad_input_gets_a_clear_error(neo4j_server: tuple[str, str], tmp_path: Path) -> None:
    env = cli_env(neo4j_server, tmp_path)
    bad_scope = run(["recall", "anything", "--scope", "org:a/b"], env)
    assert bad_scope.returncode != 0
    assert "scope[1]" in (bad_scope.stdout + bad_scope.stderr)
    bad_file = tmp_path / "bad.json"
    bad_file.write_text('[{"turn_id": "1"}]')
    refused = run(["ingest", str(bad_file), "--scope", "org:x"], env)
    assert refused.returncode == 1 and "turns[0]" in refused.stdout


@pytest.mark.timeout(900)
def test_the_demo_runs_end_to_end(neo4j_server: tuple[str, str], tmp_path: Path) -> None:
    env = cli_env(neo4j_server, tmp_path)
    env.pop("ANTHROPIC_API_KEY", None)
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")  # a first run: the embedder is not exported to ONNX yet
    try:
        demo = run(["demo", "--no-serve"], env, timeout=900)
    finally:
        run(["forget", "--scope", "org:demo", "--yes"], env)
    assert demo.returncode == 0, demo.stdout[-3000:] + demo.stderr[-3000:]
    out = demo.stdout
    shown = out + demo.stderr
    # nothing of the libraries' own: no warnings, tracebacks or tqdm bars (rich's bars are the demo's)
    for noise in ("Warning", "Traceback", "it/s]", "%|", "Loading weights"):
        assert noise not in shown, shown[max(0, shown.find(noise) - 1500) : shown.find(noise) + 1500]
    onnx = tmp_path / "cache" / "hippograph" / "onnx"
    exported = [p for p in onnx.glob("minilm-*.onnx") if not p.stem.endswith("-int8")]
    assert len(exported) == 1, "the demo should have exported the embedder into the cache it was given"
    assert len(list(onnx.glob("minilm-*-int8.onnx"))) == 1, "and its int8 graph for batches, once"
    assert out.count("Prepared the embedder for ONNX Runtime") == 1 and exported[0].name in out
    assert "scripted (offline" in out
    assert "Ingested 34 turns of 5 sessions" in out
    changed = out.split("facts that changed")[1].split("pending triggers")[0]
    assert "Sam lives in Lisbon." in changed and "Sam lives in Porto" in changed  # superseded → current
    assert "Alfa Pendular tickets" in out.split("pending triggers")[1]
    assert "recalled across sessions: events of s" in out
    tree = out.split("Activation paths of one recall")[1].split("4. Agent turns")[0]
    assert "recall “Who is Ana" in tree and "—NEXT→" in tree and "found by meaning (vector index)" in tree
    assert "bacalhau" in out.split("What is my favourite food?")[-1]
    report = out.split("5. Sleep")[1]
    assert "consolidation run of org:demo/user:sam: completed" in report
    assert "procedural_promotion" in report and "drafts=1" in report
    assert "draft procedure “release the drone firmware” (seen 3 times" in report


def read_lines(stream: IO[str], into: list[str]) -> None:
    for line in stream:
        into.append(line)


@pytest.mark.timeout(900)
def test_the_demo_serves_until_ctrl_c(neo4j_server: tuple[str, str], tmp_path: Path) -> None:
    env = cli_env(neo4j_server, tmp_path)
    env.pop("ANTHROPIC_API_KEY", None)
    port = free_port()
    demo = subprocess.Popen(
        [*CLI, "demo", "--port", str(port)], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    lines: list[str] = []
    assert demo.stdout is not None
    threading.Thread(target=read_lines, args=(demo.stdout, lines), daemon=True).start()
    try:
        key = None
        while key is None:
            assert demo.poll() is None, "".join(lines)[-3000:]
            key = next((x.split("=", 1)[1].strip() for x in lines if x.startswith("DEV_API_KEY=")), None)
            time.sleep(1)
        url = f"http://127.0.0.1:{port}"
        while True:
            assert demo.poll() is None, "".join(lines)[-3000:]
            try:
                if httpx.get(url + "/readyz", timeout=5).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            time.sleep(1)
        shown = "".join(lines)
        assert f"{url}/graphql" in shown and f"{url}/" in shown and "Neo4j Browser" in shown
        assert f"DASHBOARD_URL={dashboard_address(port, key)}\n" in shown
        query = """query { recall(scope: "org:demo/user:sam", query: "Where does Sam live now?", first: 3) {
                     items { memory { content } explanation } } }"""
        answer = httpx.post(
            url + "/graphql", json={"query": query}, headers={"Authorization": f"Bearer {key}"}, timeout=120
        )
        assert answer.status_code == 200, answer.text
        items = answer.json()["data"]["recall"]["items"]
        assert any("Porto" in i["memory"]["content"] for i in items) and all(i["explanation"] for i in items)
        assert httpx.post(url + "/graphql", json={"query": query}, timeout=30).status_code == 401
        demo.send_signal(signal.SIGINT)
        assert demo.wait(timeout=120) == 0, "".join(lines)[-3000:]
    finally:
        if demo.poll() is None:
            demo.kill()
            demo.wait()
        run(["forget", "--scope", "org:demo", "--yes"], env)
    time.sleep(0.5)  # the reader thread drains the last lines
    assert "stopped serving" in "".join(lines)


def test_every_command_has_an_example_in_its_help() -> None:
    from hippograph.app.cli import app
    from hippograph.app.cli_examples import EXAMPLES, command_names

    names = command_names(app)
    assert set(names) == set(EXAMPLES)  # a new command needs its example
    env = {**os.environ, "COLUMNS": "200"}
    for name in names:
        shown = run([*name.split(), "--help"], env, timeout=120)
        assert shown.returncode == 0, shown.stderr
        assert "Example:" in shown.stdout and f"hippograph {name}" in shown.stdout, name


def checks_of(done: subprocess.CompletedProcess[str]) -> dict[str, dict[str, str]]:
    return {c["name"]: c for c in json.loads(done.stdout)["checks"]}


def test_doctor_reports_each_check_with_a_fix(neo4j_server: tuple[str, str], tmp_path: Path) -> None:
    env = cli_env(neo4j_server, tmp_path)
    healthy = run(["doctor", "--json"], env)
    assert healthy.returncode == 0, healthy.stdout + healthy.stderr
    checks = checks_of(healthy)
    assert json.loads(healthy.stdout)["ok"] is True
    assert checks["neo4j"]["status"] == "ok"
    version = checks["neo4j version"]
    assert version["status"] == "ok" and version["detail"].startswith(("2026.", "5.26.")), version
    assert ("inside the vector index" in version["detail"]) == version["detail"].startswith("2026."), version
    assert checks["neo4j schema"]["status"] == "ok"
    assert checks["embedder"]["status"] == "ok" and "384 dims" in checks["embedder"]["detail"]
    assert {"java", "local neo4j launcher", "model", "api", "dashboard", "extra: mcp"} <= checks.keys()
    assert all(c["fix"] for c in checks.values() if c["status"] != "ok")
    table = run(["doctor", "--no-embedder"], env)
    assert table.returncode == 0 and "neo4j version" in table.stdout and "ready" in table.stdout

    unreachable = {**env, "HIPPOGRAPH_NEO4J_URI": "bolt://127.0.0.1:1"}
    down = run(["doctor", "--json", "--no-embedder"], unreachable)
    assert down.returncode == 1 and json.loads(down.stdout)["ok"] is False
    neo4j = checks_of(down)["neo4j"]
    assert neo4j["status"] == "fail" and "bolt://127.0.0.1:1" in neo4j["detail"] and neo4j["fix"]


def _no_java_env(tmp_path: Path) -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if k not in ("HIPPOGRAPH_NEO4J_URI", "JAVA_HOME", "HIPPOGRAPH_JAVA_HOME")
    }
    env.update({"PATH": str(tmp_path), "HIPPOGRAPH_DATA_DIR": str(tmp_path), "HIPPOGRAPH_JVM_DIR": str(tmp_path)})
    return {**env, "COLUMNS": "200"}


def test_doctor_without_java_or_a_server_says_how_to_fix_it(tmp_path: Path) -> None:
    done = run(["doctor", "--json", "--no-embedder"], _no_java_env(tmp_path))
    assert done.returncode == 1
    checks = checks_of(done)
    assert checks["java"]["status"] == "fail" and "JDK" in checks["java"]["fix"]
    assert checks["neo4j"]["status"] == "warn" and "hippograph neo4j start" in checks["neo4j"]["fix"]


def test_doctor_with_only_java_17_names_java_21(tmp_path: Path) -> None:
    """Neo4j 2026.x needs Java 21: a machine whose only Java is 17 is told what to install."""
    home = tmp_path / "jdk17"
    (home / "bin").mkdir(parents=True)
    fake = home / "bin" / "java"
    fake.write_text("#!/bin/sh\necho 'openjdk version \"17.0.15\" 2025-04-15' >&2\n")
    fake.chmod(0o755)
    done = run(["doctor", "--json", "--no-embedder"], {**_no_java_env(tmp_path), "JAVA_HOME": str(home)})
    java = checks_of(done)["java"]
    assert done.returncode == 1 and java["status"] == "fail"
    assert "Java 17" in java["detail"] and "JDK 21" in java["fix"]


def test_doctor_takes_java_17_for_neo4j_5_26(tmp_path: Path) -> None:
    home = tmp_path / "jdk17"
    (home / "bin").mkdir(parents=True)
    fake = home / "bin" / "java"
    fake.write_text("#!/bin/sh\necho 'openjdk version \"17.0.15\" 2025-04-15' >&2\n")
    fake.chmod(0o755)
    env = {**_no_java_env(tmp_path), "JAVA_HOME": str(home), "HIPPOGRAPH_NEO4J_VERSION": "5.26.31"}
    java = checks_of(run(["doctor", "--json", "--no-embedder"], env))["java"]
    assert java["status"] == "ok" and "Java 17" in java["detail"], java
    assert "a JDK 17–21 is needed once" in java["detail"]  # the fake has no javac
