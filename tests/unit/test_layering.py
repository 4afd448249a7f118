"""The architecture as tests: the import-linter contracts of pyproject.toml hold (scripts/test.sh
also runs ``lint-imports``), and no module outside ``hippograph.store`` imports the Neo4j driver
(including packages added later). tests/unit/test_import_graph.py checks there is no circle."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

REPO = Path(__file__).resolve().parents[2]
SRC = REPO / "src"


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), *filter(None, [env.get("PYTHONPATH")])])
    return env


def test_import_contracts_hold() -> None:
    code = "from importlinter.cli import lint_imports; raise SystemExit(lint_imports(no_cache=True))"
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=_env(), capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "0 broken" in done.stdout


def test_only_the_store_imports_the_driver() -> None:
    code = (
        "import grimp\n"
        "g = grimp.build_graph('hippograph', include_external_packages=True, cache_dir=None)\n"
        "print('\\n'.join(sorted(m for m in g.find_modules_that_directly_import('neo4j'))))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], env=_env(), capture_output=True, text=True, check=True)
    importers = done.stdout.split()
    assert importers, "the store itself imports the driver; an empty answer means the graph was not built"
    assert [m for m in importers if not m.startswith("hippograph.store.")] == []
