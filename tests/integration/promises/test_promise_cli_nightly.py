"""Issue 9 #7: ``hippograph consolidate --mode nightly_nap`` runs the nightly nap. The CLI is
what an operator's scheduler (cron, a systemd timer) calls, so asking for a nightly nap there
is the operator's decision; it used to always report "skipped"."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from hippograph.memory import Memory
from hippograph.scope import Scope
from tests.support.cli import CLI, cli_env


async def test_the_cli_nightly_nap_runs_every_phase(
    memory: Memory, tenant: Scope, neo4j_server: tuple[str, str], tmp_path: Path
) -> None:
    user = tenant.child("user", "ana")
    await memory.remember(user, "Ana's cat", "Ana has a grey cat called Miso.")
    done = subprocess.run(
        [*CLI, "consolidate", "--scope", user.key, "--mode", "nightly_nap", "--json"],
        env=cli_env(neo4j_server, tmp_path),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert report["entry_point"] == "nightly_nap"
    assert report["status"] == "completed", report.get("skip_reason")
    ran = [p["name"] for p in report["phases_run"] if p["status"] == "ran"]
    assert "semantic_merge" in ran and "strengthen" in ran
