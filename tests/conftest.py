"""Shared fixtures. Integration tests talk to a real Neo4j over Bolt:

* ``HIPPOGRAPH_NEO4J_URI`` set → that server (``HIPPOGRAPH_NEO4J_PASSWORD``); nothing is wiped,
  every test works in its own fresh root scope and erases it afterwards;
* otherwise the local embedded Neo4j is built (once) and started in a throwaway folder on a
  free port, and stopped at the end of the session.

Both come from hippograph's own pytest plugin (``hippograph.testing``, what host projects use).
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from hippograph.scope import Scope
from hippograph.store import GraphStore, Neo4jConnection, migrate

if TYPE_CHECKING:
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
if TYPE_CHECKING:  # the plugin itself is imported by pytest, so that its asserts are rewritten
    from hippograph.testing import Neo4jTarget

pytest_plugins = ["hippograph.testing"]

TESTS = Path(__file__).resolve().parent
FOLDER_MARKERS = ("unit", "integration", "e2e", "reliability")
"""One marker per folder: a test is marked by the folder it lives in (``pytest -m unit`` is the
fast loop), and a marker of another folder on it is a mistake that collection refuses."""
SLOW_FIRST = (
    "reliability/test_faults_full_disk.py",
    "reliability/test_data_safety.py",
    "reliability/test_faults_killed_neo4j.py",
    "reliability/test_faults_api_neo4j_down.py",
    "reliability/test_erase_tombstone.py",
    "reliability/test_upgrade.py",
    "e2e/test_browser.py",
    "reliability/test_api_schemathesis.py",
    "e2e/test_wheel.py",
    "e2e/test_cli.py",
    "e2e/test_notebooks.py",
    "integration/test_bulk_import.py",
    "integration/promises/test_promise_erase_large.py",
    "integration/test_plans_on_fresh_statistics.py",
    "e2e/test_docs_build.py",
    "reliability/test_concurrency_fifty_clients.py",
    "reliability/test_load_short.py",
)
"""The files that take a minute or more, slowest first: each waits on Neo4j servers of its own,
kills and restarts, subprocesses or a browser (``scripts/test.sh`` prints a run's 25 slowest
steps: keep this in their order). With two processes handed files in collection order, they
start first and the quick files fill the gaps, so no slow file runs alone at the end. A unit test
checks that each names a file."""
RUN_ORDER = ("reliability", "e2e", "integration", "unit")
"""After :data:`SLOW_FIRST`, the slower folders first."""
ONE_PROCESS = (
    "reliability/test_data_safety.py",
    "reliability/test_faults_killed_neo4j.py",
    "reliability/test_faults_api_neo4j_down.py",
)
"""Files handed to one process together (with ``--dist loadfile``): they share the crashable
Neo4j of ``tests/reliability/conftest.py``, which then starts once instead of once per file."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    misplaced: list[str] = []
    for item in items:
        if not item.path.resolve().is_relative_to(TESTS):
            continue
        relative = item.path.resolve().relative_to(TESTS)
        folder = relative.parts[0] if len(relative.parts) > 1 else None
        if folder not in FOLDER_MARKERS:
            misplaced.append(f"{item.nodeid}: not in a folder of {', '.join(FOLDER_MARKERS)}")
            continue
        declared = {m.name for m in item.iter_markers() if m.name in FOLDER_MARKERS} - {folder}
        if declared:
            misplaced.append(f"{item.nodeid}: marked {', '.join(sorted(declared))} in tests/{folder}/")
        item.add_marker(getattr(pytest.mark, folder))
    if misplaced:
        raise pytest.UsageError("tests whose marker disagrees with their folder:\n  " + "\n  ".join(misplaced))
    items.sort(key=_run_rank)


def _run_rank(item: pytest.Item) -> int:
    """The place of an item's file in :data:`SLOW_FIRST`, else of its folder in :data:`RUN_ORDER`
    after them (a stable sort keeps each file's own order)."""
    path = item.path.resolve()
    if not path.is_relative_to(TESTS):
        return len(SLOW_FIRST) + len(RUN_ORDER)
    relative = path.relative_to(TESTS)
    if relative.as_posix() in SLOW_FIRST:
        return SLOW_FIRST.index(relative.as_posix())
    return len(SLOW_FIRST) + RUN_ORDER.index(relative.parts[0])


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    """``--dist loadfile`` with the files of :data:`ONE_PROCESS` as one unit of work."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    tests = TESTS.relative_to(config.rootpath).as_posix() if TESTS.is_relative_to(config.rootpath) else None
    together = {f"{tests}/{name}" for name in ONE_PROCESS} if tests is not None else set()

    class Scheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            file = super()._split_scope(nodeid)
            return "ONE_PROCESS" if file in together else file

    return Scheduling(config, log)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """With ``-m`` naming folder markers only (``-m unit``, ``-m "unit or e2e"``), the other folders
    are not even imported: their markers cannot match, and importing them (the API, the servers)
    would cost the fast loop most of its time."""
    wanted = {name.strip() for name in str(config.getoption("markexpr") or "").split(" or ")}
    if not wanted or not wanted <= set(FOLDER_MARKERS):
        return None
    if collection_path.resolve().parent == TESTS and collection_path.name in FOLDER_MARKERS:
        return collection_path.name not in wanted or None
    return None


@pytest.fixture(scope="session")
def neo4j_server(hippograph_neo4j: Neo4jTarget) -> tuple[str, str]:
    """(uri, password) of the Neo4j the suite talks to."""
    return hippograph_neo4j.uri, hippograph_neo4j.password


@pytest.fixture(scope="session")
async def conn(neo4j_server: tuple[str, str]) -> AsyncIterator[Neo4jConnection]:
    uri, password = neo4j_server
    connection = await Neo4jConnection.connect(uri, password=password)
    await migrate(connection)
    yield connection
    await connection.close()


@pytest.fixture(scope="session")
def store(conn: Neo4jConnection) -> GraphStore:
    return GraphStore(conn)


@pytest.fixture
async def tenant(store: GraphStore) -> AsyncIterator[Scope]:
    """A fresh root scope of this test alone; erased afterwards."""
    scope = Scope.root("org", f"test-{uuid.uuid4().hex[:12]}")
    yield scope
    await store.delete_subtree(scope)


@pytest.fixture
def spans() -> InMemorySpanExporter:
    """Every span finished during the test (the OpenTelemetry SDK set up as the global tracer
    provider, with an in-memory exporter emptied for each test)."""
    from tests.support.spans import recording

    return recording()
