"""The wheel carries the query catalog: the top-level ``cypher/`` lands at ``hippograph/cypher``."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from hatchling.builders.wheel import WheelBuilder

from tests.support.catalog import all_queries

pytestmark = pytest.mark.unit
REPO = Path(__file__).resolve().parents[2]


def test_the_wheel_ships_every_catalog_entry(tmp_path: Path) -> None:
    wheel = next(iter(WheelBuilder(str(REPO)).build(directory=str(tmp_path), versions=["standard"])))
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
    missing = [q.path for q in all_queries() if f"hippograph/cypher/{q.path}.cypher" not in names]
    assert missing == []
    assert "hippograph/store/catalog.py" in names
    assert not any(n.startswith("cypher/") for n in names), "the catalog must live inside the package"
