"""The wheel, as a user gets it: built from the checkout, installed into a fresh virtual
environment, used from outside the checkout against the test Neo4j.

Slow-ish (a build, a venv, one torch load) but part of the suite, so a query file, the
launcher's sources or ``py.typed`` that the wheel leaves out fails CI. The fresh venv sees the
suite's installed dependencies through a path entry (no download), while ``hippograph`` itself
comes from the wheel alone — the checkout's ``src/`` is on no path.
"""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
import subprocess
import sys
import sysconfig
import textwrap
import uuid
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

import hippograph
from hippograph.scope import Scope
from hippograph.store import GraphStore
from hippograph.store.catalog import CypherQuery

ROOT = Path(__file__).resolve().parents[2]


def _run(args: list[str], *, cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == 0, f"{args[:4]} failed:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    return done.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dist = tmp_path_factory.mktemp("dist")
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check"]
    _run([*pip, "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(dist), str(ROOT)], cwd=dist)
    (built,) = dist.glob("hippograph-*.whl")
    return built


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("venv")
    _run([sys.executable, "-m", "venv", str(home)], cwd=home)
    python = home / "bin" / "python"
    purelib = Path(
        _run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], cwd=home).strip()
    )
    # The suite's dependencies, as a plain path: its .pth files (the editable checkout) stay unread.
    (purelib / "suite_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    _run([str(python), "-m", "pip", "install", "--no-deps", "--no-index", "-q", str(wheel)], cwd=home)
    return home


def _catalog() -> Iterator[CypherQuery]:
    """Every member of every query enum, whatever module declares it."""
    for info in pkgutil.walk_packages(hippograph.__path__, "hippograph."):
        try:
            importlib.import_module(info.name)
        except ImportError:  # an extra this environment lacks declares no queries
            continue
    pending = list(CypherQuery.__subclasses__())
    while pending:
        enum = pending.pop()
        pending.extend(enum.__subclasses__())
        yield from enum


def test_every_catalog_query_and_every_resource_is_in_the_wheel(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        cypher = {n: zf.read(n).decode() for n in names if n.startswith("hippograph/cypher/") and n.endswith(".cypher")}
    members = list(_catalog())
    assert len(members) > 50
    for query in members:
        stem = query.value.rsplit("/", 1)[-1]
        shipped = [text for name, text in cypher.items() if name.endswith(f"/{stem}.cypher")]
        assert any(query.text.strip() in text for text in shipped), f"{type(query).__name__}.{query.name} not in wheel"
    for resource in (
        "hippograph/py.typed",
        "hippograph/dbms/launcher/pom.xml",
        "hippograph/dbms/launcher/src/main/java/io/hippograph/launcher/Launcher.java",
        "hippograph/app/demo_data/conversation.json",
        "hippograph/agent/prompts/system.txt",
    ):
        assert resource in names, resource
    assert not [n for n in names if n.startswith(("tests/", "benchmarks/", ".venv/")) or "__pycache__" in n]
    metadata = next(n for n in names if n.endswith(".dist-info/METADATA"))
    with zipfile.ZipFile(wheel) as zf:
        requires = [line for line in zf.read(metadata).decode().splitlines() if line.startswith("Requires-Dist:")]
    core = [line for line in requires if "extra ==" not in line]
    assert not [line for line in core if any(p in line for p in ("torch", "sentence", "anthropic", "fastapi", "typer"))]


def test_the_wheel_carries_the_built_dashboard(wheel: Path) -> None:
    built = ROOT / "src/hippograph/app/api/dashboard_dist"
    if not (built / "index.html").is_file():
        pytest.skip("the dashboard is not built: cd dashboard && npm ci && npm run build")
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
    expected = {f"hippograph/app/api/dashboard_dist/{f.relative_to(built)}" for f in built.rglob("*") if f.is_file()}
    assert "hippograph/app/api/dashboard_dist/index.html" in expected
    assert expected <= names
    assert not [n for n in names if "node_modules" in n or n.startswith("dashboard/")]


async def test_the_installed_wheel_runs_a_readme_example_outside_the_checkout(
    venv: Path, neo4j_server: tuple[str, str], store: GraphStore, tmp_path: Path
) -> None:
    uri, password = neo4j_server
    tenant = f"wheel-{uuid.uuid4().hex[:12]}"
    script = textwrap.dedent(
        f"""
        import asyncio, json, sys
        import hippograph as hg
        from hippograph.dbms.local_server import LocalNeo4j

        async def main() -> None:
            async with await hg.Memory.connect({uri!r}, password={password!r}) as memory:
                bob = hg.Scope.root("org", {tenant!r}).child("user", "bob")
                await memory.remember(bob, "Bob's city", "Bob lives in Lisbon.", key="bob.city")
                await memory.remember(bob, "Bob's city", "Bob moved to Porto.", key="bob.city")
                result = await memory.recall(bob, "Where does Bob live now?")
                history = await memory.fact_history(bob, "bob.city")
                print(json.dumps({{
                    "module": hg.__file__,
                    "recalled": [item.node.content for item in result.items],
                    "history": [fact.content for fact in history],
                    "launcher": str(LocalNeo4j("data").build()),
                }}))

        asyncio.run(main())
        """
    )
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "HIPPOGRAPH_NEO4J_URI")}
    env["HF_HUB_OFFLINE"] = "1"
    try:
        out = _run([str(venv / "bin" / "python"), "-c", script], cwd=tmp_path, env=env)
    finally:
        await store.delete_subtree(Scope.root("org", tenant))
    result = json.loads(out.strip().splitlines()[-1])
    assert Path(result["module"]).is_relative_to(venv), result["module"]  # the wheel, not the checkout
    assert "Bob moved to Porto." in result["recalled"]  # the old version is history (issue 9 #4)
    assert "Bob lives in Lisbon." not in result["recalled"]
    assert result["history"] == ["Bob lives in Lisbon.", "Bob moved to Porto."]
    assert Path(result["launcher"], "target", "classes").is_dir()
    help_text = _run([str(venv / "bin" / "hippograph"), "--help"], cwd=tmp_path, env=env)
    assert "neo4j" in help_text and "demo" in help_text
