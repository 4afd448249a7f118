"""The documentation site builds with ``mkdocs build --strict``: a broken link, a missing page,
a name mkdocstrings cannot resolve or a bad snippet fails the build, and so this test."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_NEEDED = ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python")


def _missing() -> list[str]:
    missing = []
    for module in _NEEDED:
        try:
            found = importlib.util.find_spec(module) is not None
        except ModuleNotFoundError:
            found = False
        if not found:
            missing.append(module)
    return missing


@pytest.mark.skipif(
    bool(_missing()), reason=f"the docs extra is not installed (pip install -e '.[docs]'): missing {_missing()}"
)
def test_the_docs_site_builds_strict(tmp_path: Path) -> None:
    site = tmp_path / "site"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]),
        "NO_MKDOCS_2_WARNING": "1",
    }
    command = [sys.executable, "-m", "mkdocs", "build", "--strict"]
    done = subprocess.run(
        [*command, "--config-file", str(ROOT / "mkdocs.yml"), "--site-dir", str(site)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-5000:]

    python_api = (site / "reference" / "python" / "index.html").read_text(encoding="utf-8")
    assert 'id="hippograph.Memory.recall"' in python_api  # mkdocstrings resolved the front door's names
    assert 'id="hippograph.RecallConfig"' in python_api
    errors = (site / "reference" / "errors" / "index.html").read_text(encoding="utf-8")
    assert "StoreUnavailableError" in errors
    cli = (site / "reference" / "cli" / "index.html").read_text(encoding="utf-8")
    assert "cli-reference" not in cli  # the hook replaced its marker
    for name in ("hippograph serve", "hippograph neo4j start", "hippograph keys create", "hippograph mcp"):
        assert name in cli, name
    assert "consolidationProgress" in (site / "reference" / "graphql" / "index.html").read_text(encoding="utf-8")
