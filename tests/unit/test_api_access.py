"""The access package is the one place of API keys, reach and limits: the API and the MCP server
both use it, and the MCP server imports nothing of the API."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from hippograph.app.access.keys import Principal, Role, bearer_token
from hippograph.app.access.reach import Reach
from hippograph.app.access.repository import KeyRecord
from hippograph.errors import NotFoundError
from hippograph.scope import Scope

pytestmark = pytest.mark.unit

SRC = Path(__file__).resolve().parents[2] / "src"


def test_the_mcp_server_imports_no_module_of_the_api() -> None:
    code = textwrap.dedent(
        """
        import sys
        import hippograph.app.mcp.binding, hippograph.app.mcp.cli, hippograph.app.mcp.server
        print(",".join(sorted(m for m in sys.modules if m.startswith("hippograph.app.api"))))
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env={"PYTHONPATH": str(SRC)}
    )
    assert out.stdout.strip() == ""


def test_a_key_record_reads_a_stored_row_and_an_unnamed_key_is_named_empty() -> None:
    row = {"id": "k1", "name": None, "scope_key": "org:acme", "role": "writer", "created_at": 1.0, "hash": "x"}
    record = KeyRecord.model_validate(row)
    assert record.name == "" and record.rate_limit is None and not hasattr(record, "hash")
    with pytest.raises(ValueError):
        record.name = "renamed"


def test_a_principal_acts_below_its_scope_and_reaches_its_ancestors() -> None:
    record = KeyRecord(id="k1", scope_key="org:acme/user:ana", role="reader", created_at=1.0)
    principal = Principal.of(record)
    org = Scope.root("org", "acme")
    assert principal.role is Role.READER and principal.label == "key:k1"
    assert principal.target("org:acme/user:ana/conversation:c1").key == "org:acme/user:ana/conversation:c1"
    with pytest.raises(NotFoundError):
        principal.target(org.child("user", "bob").key)
    assert principal.reach == Reach.of_key_at(Scope.parse("org:acme/user:ana"))
    assert principal.reach.contains(org.key) and not principal.reach.contains("org:acme/user:bob")


@pytest.mark.parametrize(
    ("header", "token"),
    [
        (None, None),
        ("", None),
        ("Basic abc", None),
        ("Bearer   ", None),
        ("bearer hg_x", "hg_x"),
        ("Bearer hg_y ", "hg_y"),
    ],
)
def test_bearer_token(header: str | None, token: str | None) -> None:
    assert bearer_token(header) == token
