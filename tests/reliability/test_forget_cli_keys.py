"""An erase through the CLI takes the scope's API keys with it, as the API's erase does: after
``hippograph forget`` no key of the erased subtree is left (revoked ones neither), so a scope
re-created under the same key never opens to an old key; a sibling tenant's key stays."""

from __future__ import annotations

import json
import subprocess
import uuid
from pathlib import Path

from tests.support.cli import CLI, cli_env


def run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], env=env, capture_output=True, text=True, timeout=600, check=False)


def _keys(scope: str, env: dict[str, str]) -> list[dict[str, object]]:
    listed = run(["keys", "list", "--scope", scope, "--revoked", "--json"], env)
    assert listed.returncode == 0, listed.stderr
    return list(json.loads(listed.stdout))


def test_cli_forget_deletes_the_scopes_api_keys(neo4j_server: tuple[str, str], tmp_path: Path) -> None:
    env = cli_env(neo4j_server, tmp_path)
    tenant, sibling = (f"org:forget-{uuid.uuid4().hex[:8]}" for _ in range(2))
    user = f"{tenant}/user:ana"
    for scope, role in ((tenant, "admin"), (user, "writer"), (user, "reader"), (sibling, "reader")):
        created = run(["keys", "create", "--scope", scope, "--role", role, "--json"], env)
        assert created.returncode == 0, created.stderr
    revoked = run(["keys", "revoke", str(_keys(user, env)[0]["id"])], env)
    assert revoked.returncode == 0, revoked.stderr
    turns = tmp_path / "turns.json"
    turns.write_text(json.dumps([{"turn_id": "1", "session_id": "s", "speaker": "Ana", "text": "I live in Porto."}]))
    assert run(["ingest", str(turns), "--scope", user], env).returncode == 0
    assert len(_keys(tenant, env)) == 3

    erased = run(["forget", "--scope", tenant, "--yes", "--json"], env)
    assert erased.returncode == 0, erased.stderr
    assert json.loads(erased.stdout) == {"erased": 1, "scope": tenant}
    assert _keys(tenant, env) == [], "a key of the erased scope survived `hippograph forget`"
    assert len(_keys(sibling, env)) == 1, "the erase took a sibling tenant's key"
    assert run(["forget", "--scope", sibling, "--yes"], env).returncode == 0
    assert _keys(sibling, env) == []
