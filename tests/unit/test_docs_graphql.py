"""Every ```graphql example in the README and the docs is valid against schema.graphql."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from graphql import build_schema, parse, validate

ROOT = Path(__file__).resolve().parents[2]
_BLOCK = re.compile(r"^```graphql\n(.*?)^```", re.S | re.M)
EXAMPLES = [
    pytest.param(block, id=f"{doc.name}#{i + 1}")
    for doc in (ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")))
    for i, block in enumerate(_BLOCK.findall(doc.read_text(encoding="utf-8")))
    if not block.startswith("--8<--")  # the schema reference includes schema.graphql itself
]


def test_the_docs_have_graphql_examples() -> None:
    assert len(EXAMPLES) >= 2


@pytest.mark.parametrize("example", EXAMPLES)
def test_graphql_example_is_valid_against_the_schema(example: str) -> None:
    schema = build_schema((ROOT / "schema.graphql").read_text(encoding="utf-8"))
    errors = validate(schema, parse(example))
    assert not errors, [e.message for e in errors]
