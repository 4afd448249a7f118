"""The CLI as a user runs it: a subprocess, real output, real Neo4j."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

CLI = [sys.executable, "-m", "hippograph.app.cli"]


def run(args: list[str], env: dict[str, str], timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], env=env, capture_output=True, text=True, timeout=timeout, check=False)


def env_for(neo4j_server: tuple[str, str], tmp_path: Path) -> dict[str, str]:
    uri, password = neo4j_server
    return {
        **os.environ,
        "HIPPOGRAPH_NEO4J_URI": uri,
        "HIPPOGRAPH_NEO4J_PASSWORD": password,
        "HIPPOGRAPH_DATA_DIR": str(tmp_path),
        "HF_HUB_OFFLINE": "1",
        "COLUMNS": "160",
    }


def test_neo4j_start_status_stop(tmp_path: Path) -> None:
    env = {**os.environ, "COLUMNS": "160"}
    env.pop("HIPPOGRAPH_NEO4J_URI", None)
    data = str(tmp_path / "neo4j")
    started = run(["neo4j", "start", "--data-dir", data], env)
    try:
        assert started.returncode == 0, started.stdout + started.stderr
        assert "HIPPOGRAPH_NEO4J_URI=bolt://127.0.0.1:" in started.stdout
        status = run(["neo4j", "status", "--data-dir", data], env)
        assert status.returncode == 0 and "ready at bolt://" in status.stdout
        again = run(["neo4j", "start", "--data-dir", data], env)  # idempotent
        assert again.returncode == 0
    finally:
        stopped = run(["neo4j", "stop", "--data-dir", data], env)
    assert stopped.returncode == 0 and "stopped" in stopped.stdout
    status = run(["neo4j", "status", "--data-dir", data], env)
    assert status.returncode == 1 and "stopped" in status.stdout


def test_ingest_recall_consolidate_forget(neo4j_server: tuple[str, str], tmp_path: Path) -> None:
    env = env_for(neo4j_server, tmp_path)
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
    recalled = run(["recall", "What is the name of Ana's cat?", "--scope", scope, "--json", "--top-k", "2"], env)
    assert recalled.returncode == 0, recalled.stderr
    result = json.loads(recalled.stdout)
    assert "Miso" in result["items"][0]["node"]["content"]
    assert result["items"][0]["channels"]
    report = run(["consolidate", "--scope", scope, "--mode", "quick_nap"], env)
    assert report.returncode == 0, report.stderr
    assert json.loads(report.stdout)["entry_point"] == "quick_nap"
    erased = run(["forget", "--scope", scope.split("/")[0], "--yes"], env)
    assert erased.returncode == 0 and "erased 3 memories" in erased.stdout


def test_bad_input_gets_a_clear_error(neo4j_server: tuple[str, str], tmp_path: Path) -> None:
    env = env_for(neo4j_server, tmp_path)
    bad_scope = run(["recall", "anything", "--scope", "org:a/b"], env)
    assert bad_scope.returncode != 0
    assert "scope[1]" in (bad_scope.stdout + bad_scope.stderr)
    bad_file = tmp_path / "bad.json"
    bad_file.write_text('[{"turn_id": "1"}]')
    refused = run(["ingest", str(bad_file), "--scope", "org:x"], env)
    assert refused.returncode == 1 and "turns[0]" in refused.stdout


@pytest.mark.timeout(900)
def test_the_demo_runs_end_to_end(neo4j_server: tuple[str, str], tmp_path: Path) -> None:
    env = env_for(neo4j_server, tmp_path)
    env.pop("ANTHROPIC_API_KEY", None)
    demo = run(["demo"], env, timeout=900)
    assert demo.returncode == 0, demo.stdout[-3000:] + demo.stderr[-3000:]
    out = demo.stdout
    assert "scripted (offline" in out
    assert "Ingested 22 turns" in out
    assert "bacalhau" in out.split("What is my favourite food?")[-1]
    assert "consolidation run" in out
