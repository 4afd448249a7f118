"""Neo4j Browser on the local server, as a person uses it: ``hippograph neo4j start --browser``
(a subprocess), headless Chromium logs in, runs a saved query of ``cypher/browser/`` and a
recall's activation paths, and the screenshots show graphs drawn in hippograph's style.

Needs Debian's ``chromium`` and the ``playwright`` Python package (which drives that chromium;
no browser download). Screenshots go to ``$HIPPOGRAPH_TEST_ARTIFACTS`` (default
``test-artifacts/``) under ``browser/``.
"""

from __future__ import annotations

import asyncio
import io
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from hippograph.analysis.browser import recall_query, saved_queries, style_json
from hippograph.app.demo import sample_turns
from hippograph.app.demo_serve import browser_address
from hippograph.app.settings import Settings
from hippograph.embeddings.hashing import HashingEmbeddings
from hippograph.memory import Memory
from hippograph.scope import Scope
from hippograph.store import GraphStore, Neo4jConnection, migrate
from tests.support.browser import CHROMIUM, CHROMIUM_ARGS, artifact_dir

playwright_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright (drives Debian's chromium)")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is needed: apt-get install -y chromium")

CLI = [sys.executable, "-m", "hippograph.app.cli"]
SAM = Scope.root("org", "demo").child("user", "sam")


def artifacts() -> Path:
    return artifact_dir("browser")


def cli(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], env=env, capture_output=True, text=True, timeout=600, check=False)


def listening_hosts(port: int) -> set[str]:
    """Local addresses with a listening TCP socket on ``port`` (from /proc/net/tcp{,6})."""
    hosts = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            address, hex_port = fields[1].rsplit(":", 1)
            if int(hex_port, 16) == port and fields[3] == "0A":
                hosts.add(address)
    return hosts


@pytest.fixture(scope="module")
def browser_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    root = tmp_path_factory.mktemp("browser-neo4j")  # as HIPPOGRAPH_DATA_DIR: the server's data in neo4j/
    data = str(root / "neo4j")
    env = {**os.environ, "COLUMNS": "250", "HIPPOGRAPH_NEO4J_HEAP": "512m", "HIPPOGRAPH_NEO4J_PAGECACHE_MB": "64"}
    env.pop("HIPPOGRAPH_NEO4J_URI", None)
    started = cli(["neo4j", "start", "--browser", "--data-dir", data], env)
    try:
        assert started.returncode == 0, started.stdout + started.stderr
        out = " ".join(started.stdout.split())
        bolt = re.search(r"HIPPOGRAPH_NEO4J_URI=(bolt://127\.0\.0\.1:\d+)", out)
        url = re.search(r"Neo4j Browser (http://127\.0\.0\.1:\d+/browser/)", out)
        assert bolt and url, out
        assert "connect form filled in) — the password is in" in out, out
        yield {
            "bolt": bolt.group(1),
            "url": url.group(1),
            "password": (Path(data) / "password").read_text().strip(),
            "data_dir": str(root),
        }
    finally:
        cli(["neo4j", "stop", "--data-dir", data], env)


async def seed(uri: str, password: str) -> str:
    """The demo conversation and a changed fact in org:demo/user:sam; returns a recall's Browser query."""
    conn = await Neo4jConnection.connect(uri, password=password)
    try:
        await migrate(conn)
        memory = Memory(GraphStore(conn), HashingEmbeddings())
        await memory.ingest(SAM, sample_turns())
        await memory.remember(SAM, "Sam's employer", "Sam works at Orbital Arms.", key="sam.employer")
        await memory.remember(SAM, "Sam's employer", "Sam works at Tidewater Labs.", key="sam.employer")
        result = await memory.recall(SAM, "Where does Sam work now and what is Pixel learning?", top_k=5)
        return recall_query(result)
    finally:
        await conn.close()


def run_in_editor(page: Any, text: str) -> None:
    page.click('[data-testid="activeEditor"]')
    page.keyboard.insert_text(text)
    page.keyboard.press("Control+Enter")


def set_params(page: Any, lines: str, last: str) -> None:
    """Run ``:param`` lines, then wait until Browser holds the last one (each is evaluated on the server)."""
    run_in_editor(page, lines)
    for _ in range(30):
        time.sleep(2)
        run_in_editor(page, ":params")
        shown = page.locator('[data-testid="frame"]').filter(has_text="for usage of the").first
        if f'"{last}":' in shown.inner_text():
            return
    raise AssertionError(f"Browser never set the parameter {last}")


def split_query(text: str) -> tuple[str, str]:
    """``:param`` lines and statement: Browser draws a graph only for a single statement."""
    lines = text.splitlines()
    params = [line for line in lines if line.startswith(":param")]
    return "\n".join(params), "\n".join(line for line in lines if not line.startswith(":param"))


def wait_for_graph(page: Any, frame: Any, at_least: int) -> list[str]:
    try:
        frame.locator("g.node").nth(at_least - 1).wait_for(timeout=90_000)
    except Exception:
        page.screenshot(path=str(artifacts() / "failed.png"))
        raise
    time.sleep(2)  # let the force layout settle for the screenshot
    fills = frame.locator("g.node circle").evaluate_all("els => els.map(e => e.getAttribute('fill'))")
    return [f for f in fills if f]


def test_browser_logs_in_runs_saved_query_and_draws_graph(browser_server: dict[str, str]) -> None:
    assert listening_hosts(int(browser_server["url"].split(":")[2].split("/")[0])) <= {
        "0100007F",  # 127.0.0.1
        "0000000000000000FFFF00000100007F",  # ::ffff:127.0.0.1
    }
    recall_query = asyncio.run(seed(browser_server["bolt"], browser_server["password"]))
    out = artifacts()
    colours = style_json()
    with playwright_api.sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = chromium.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(browser_server["url"])
            page.wait_for_selector('[data-testid="password"]', timeout=60_000)
            page.fill('[data-testid="boltaddress"]', browser_server["bolt"])
            page.fill('[data-testid="username"]', "neo4j")
            page.fill('[data-testid="password"]', browser_server["password"])
            page.click('[data-testid="connect"]')
            # post-connect: hippograph's style is loaded and its guide plays
            page.wait_for_selector('[data-testid="carousel"]', timeout=60_000)
            assert page.locator('[data-testid="carousel"]', has_text="Every memory is a").count() == 1
            assert page.locator('[data-testid="frame"]', has_text=":style").count() == 1
            page.screenshot(path=str(out / "1-connected-guide.png"))

            params, statement = split_query(saved_queries()["scope_memories_by_layer"].text())
            set_params(page, params, "limit")
            run_in_editor(page, statement)
            frame = page.locator('[data-testid="frame"]').filter(has_text="MATCH (s:Scope").first
            fills = wait_for_graph(page, frame, at_least=10)
            page.screenshot(path=str(out / "2-scope-memories-by-layer.png"))
            assert colours["node.Episodic"]["color"] in fills, fills
            assert colours["node.Semantic"]["color"] in fills, fills
            assert colours["node.Scope"]["color"] in fills, fills

            params, statement = split_query(recall_query)
            set_params(page, params, "relationships")
            run_in_editor(page, statement)
            frame = page.locator('[data-testid="frame"]').filter(has_text="WHERE m.id IN $seeds").first
            fills = wait_for_graph(page, frame, at_least=3)
            page.screenshot(path=str(out / "3-recall-activation-paths.png"))
            assert fills
        finally:
            chromium.close()


def test_the_demo_prints_an_address_that_opens_browser_ready_to_connect(
    browser_server: dict[str, str], tmp_path: Path
) -> None:
    """What the demo prints for Browser (the local server already runs with it, so nothing is
    started): opening that address shows the connect form with the connect URL and user filled
    in, and typing the printed password connects."""
    settings = Settings(neo4j_uri=None, data_dir=Path(browser_server["data_dir"]))
    printed = io.StringIO()
    console = Console(file=printed, width=80)
    login = browser_address(settings, console)
    for line in login.lines():  # as serve_demo prints them
        console.print(line, soft_wrap=True, markup=False, highlight=False)
    shown = printed.getvalue()
    url = re.search(r"^Neo4j Browser (http://\S+)$", shown, re.MULTILINE)
    password = re.search(r"^  user neo4j, password (\S+) — a local development server", shown, re.MULTILINE)
    assert url and password, shown
    assert url.group(1).startswith(browser_server["url"] + "?dbms="), shown
    assert password.group(1) == browser_server["password"]
    with playwright_api.sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = chromium.new_page(viewport={"width": 1400, "height": 900})
            page.goto(url.group(1))
            page.wait_for_selector('[data-testid="password"]', timeout=60_000)
            # the form is filled from the address once Browser has read it (without it: neo4j://, no user)
            page.wait_for_function("document.querySelector('[data-testid=\"username\"]').value !== ''", timeout=30_000)
            page.screenshot(path=str(tmp_path / "1-connect-form-filled.png"))
            scheme = page.input_value('[data-testid="bolt-scheme-select"]')  # Browser shows the scheme apart
            assert scheme + page.input_value('[data-testid="boltaddress"]') == browser_server["bolt"]
            assert page.input_value('[data-testid="username"]') == "neo4j"
            assert page.input_value('[data-testid="password"]') == ""
            page.fill('[data-testid="password"]', password.group(1))
            page.click('[data-testid="connect"]')
            page.wait_for_selector('[data-testid="carousel"]', timeout=60_000)  # hippograph's guide, on connect
            page.screenshot(path=str(tmp_path / "2-connected.png"))
        finally:
            chromium.close()
