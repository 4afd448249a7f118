"""The pytest plugin is declared where pip installs it from (a ``pytest11`` entry point named
as its module, so ``-p hippograph.testing`` never registers it twice) and offers its fixtures."""

from __future__ import annotations

import importlib
import tomllib
from pathlib import Path

from _pytest.fixtures import FixtureFunctionDefinition

REPO = Path(__file__).resolve().parents[2]
FIXTURES = {"hippograph_neo4j", "hippograph_embedder", "hippograph_memory", "memory_scope", "memory"}


def test_the_plugin_is_a_pytest11_entry_point_with_its_fixtures() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert project["project"]["entry-points"]["pytest11"] == {"hippograph.testing": "hippograph.testing"}
    plugin = importlib.import_module("hippograph.testing")
    assert {name for name in FIXTURES if isinstance(getattr(plugin, name), FixtureFunctionDefinition)} == FIXTURES
