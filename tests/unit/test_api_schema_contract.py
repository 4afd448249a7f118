"""The GraphQL schema is a contract: ``schema.graphql`` at the repository root is what the API
serves. Any drift fails (regenerate the file in the same change); a breaking change is named
with graphql-core's ``find_breaking_changes`` so that a reviewer sees it in the diff."""

from __future__ import annotations

from pathlib import Path

from graphql import build_schema as parse_sdl
from graphql import find_breaking_changes, find_dangerous_changes

from hippograph.app.api.schema.export import schema_sdl

CONTRACT = Path(__file__).resolve().parents[2] / "schema.graphql"
REGENERATE = "python -m hippograph.app.api.schema.export schema.graphql"


def test_served_schema_has_no_breaking_change_against_the_contract() -> None:
    old = parse_sdl(CONTRACT.read_text(encoding="utf-8"))
    new = parse_sdl(schema_sdl())
    breaking = [f"{c.type.name}: {c.description}" for c in find_breaking_changes(old, new)]
    assert not breaking, f"breaking changes against schema.graphql (if meant, run `{REGENERATE}`): {breaking}"


def test_served_schema_matches_the_contract_file() -> None:
    current = schema_sdl()
    recorded = CONTRACT.read_text(encoding="utf-8")
    if current != recorded:
        dangerous = find_dangerous_changes(parse_sdl(recorded), parse_sdl(current))
        notes = [c.description for c in dangerous]
        raise AssertionError(f"schema.graphql is out of date: run `{REGENERATE}` and commit it. Dangerous: {notes}")


def test_breaking_changes_are_detected() -> None:
    """The check itself works: dropping a field of the contract is reported as breaking."""
    recorded = CONTRACT.read_text(encoding="utf-8")
    field = "  scopeDistance: Int!\n"
    assert field in recorded
    changes = find_breaking_changes(parse_sdl(recorded), parse_sdl(recorded.replace(field, "", 1)))
    assert any("scopeDistance" in c.description for c in changes)
