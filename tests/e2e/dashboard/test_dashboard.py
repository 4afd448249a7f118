"""The dashboard as a person uses it: the real API on 127.0.0.1 serves it at ``/``; headless
Chromium opens it, enters a writer key, picks a scope, and walks every view — counts by layer,
a memory search, a recall whose activation graph NVL draws and whose nodes explain
themselves on click, procedure review, a consolidation report, a turn streamed over the
websocket — with no console error anywhere. Screenshots go to ``test-artifacts/dashboard/``.
Beside that walk: the address ``hippograph demo`` prints opens the dashboard signed in (and a
bad key in it shows the form with the error); the recall graph, at the zoom it opens with,
labels every node readably, rings the seeds, has a legend and names a hovered arrow's type;
the growth chart dates its bars.

Needs the built dashboard (``cd dashboard && npm ci && npm run build``; scripts/test.sh builds
it), Debian's ``chromium`` and the ``playwright`` package.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from hippograph.app.access.keys import Role
from hippograph.app.api.dashboard import dashboard_dir
from hippograph.app.demo import sample_turns
from hippograph.app.demo_serve import dashboard_address
from hippograph.embeddings.hashing import HashingEmbeddings
from hippograph.memory import Memory
from hippograph.store import GraphStore
from tests.e2e.api.harness import Tenant
from tests.e2e.api.test_api_graph import remember
from tests.support.browser import CHROMIUM, CHROMIUM_ARGS, artifact_dir

playwright = pytest.importorskip("playwright.async_api", reason="pip install playwright (drives Debian's chromium)")
pytestmark = [
    pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is needed: apt-get install -y chromium"),
    pytest.mark.skipif(
        not (dashboard_dir() / "index.html").is_file(),
        reason="the dashboard is not built: cd dashboard && npm ci && npm run build",
    ),
]

STATS = "query($scope: String!) { stats(scope: $scope) { counts { byLayer { layer total } } } }"
LAYERS = ("working", "episodic", "semantic", "procedural", "prospective")
WAIT = 60_000  # ms; generous, the machine is shared


async def seed(t: Tenant, store: GraphStore, token: str) -> None:
    """Sam's three sessions in the user scope, a changed fact, a draft procedure, a note above."""
    memory = Memory(store, HashingEmbeddings())
    await memory.ingest(t.user, sample_turns())
    client = t.client(token)
    for employer in ("Orbital Arms", "Tidewater Labs"):
        remember(
            client,
            t.user.key,
            layer="SEMANTIC",
            label="Sam's employer",
            content=f"Sam works at {employer}.",
            key="sam.employer",
        )
    remember(
        client,
        t.user.key,
        layer="PROCEDURAL",
        label="walk Pixel",
        content="before work",
        steps=["Take the lead", "Avoid the tram", "Walk along the river"],
    )
    remember(client, t.org.key, layer="SEMANTIC", label="Office", content="The office allows dogs.", key="office.dogs")


async def click_a_node(page: Any, graph: Any) -> bool:
    """Clicks the drawn graph on a grid until a click lands on a node (the explanation changes)."""
    box = await graph.bounding_box()
    before = await page.get_by_test_id("explanation").inner_text()
    for y in range(20, int(box["height"]) - 10, 24):
        for x in range(20, int(box["width"]) - 10, 24):
            await page.mouse.click(box["x"] + x, box["y"] + y)
            if await page.get_by_test_id("explanation").inner_text() != before:
                return True
    return False


async def test_every_view_works_with_a_key(api_tenant: Tenant, store: GraphStore) -> None:
    t = api_tenant
    token = await t.key(t.org, Role.WRITER, name="dashboard test")
    await seed(t, store, token)
    shots = artifact_dir("dashboard")
    errors: list[str] = []

    async with playwright.async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = await browser.new_page(viewport={"width": 1500, "height": 1000})
        try:
            page.on("console", lambda m: errors.append(f"console: {m.text}") if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(f"page error: {e}"))
            page.set_default_timeout(WAIT)

            await page.goto(t.url + "/")
            await page.get_by_test_id("key-input").fill(token)
            await page.get_by_test_id("key-form").locator("button[type=submit]").click()

            # the scopes the key acts on: the org and the user scope the memories went to
            picker = page.get_by_test_id("scope-picker")
            await picker.wait_for()
            options = await picker.locator("option").all_inner_texts()
            assert options == sorted([t.org.key, t.user.key]), options
            await picker.select_option(t.user.key)

            # overview: counts by layer of the picked scope
            await page.get_by_test_id("overview-title").get_by_text(t.user.key).wait_for()
            counts = page.get_by_test_id("layer-counts")
            rows = dict(
                [cells[0], int(cells[1])]
                for cells in [(await r.locator("td").all_inner_texts()) for r in await counts.locator("tbody tr").all()]
            )
            by_layer = t.client(token).data(STATS, scope=t.user.key)["stats"]["counts"]["byLayer"]
            assert rows == {layer: 0 for layer in LAYERS} | {c["layer"].lower(): c["total"] for c in by_layer}
            assert rows["episodic"] > 0 and rows["semantic"] == 2 and rows["procedural"] == 1, rows
            await page.screenshot(path=str(shots / "1-overview.png"), full_page=True)

            # memories: a search returns the rows that match
            await page.get_by_test_id("nav-memories").click()
            await page.get_by_test_id("search-text").fill("Pixel")
            await page.get_by_test_id("search-text").press("Enter")
            results = page.get_by_test_id("memory-results")
            await page.wait_for_function(
                "() => { const rows = [...document.querySelectorAll('[data-testid=memory-rows] tbody tr')];"
                " return rows.length > 0 && rows.every(r => r.innerText.toLowerCase().includes('pixel')); }"
            )
            found = await results.locator("[data-testid=memory-rows] tbody tr").count()
            assert found >= 2
            await results.locator("[data-testid=memory-rows] tbody tr").first.get_by_text("open").click()
            await page.locator(".detail h4", has_text="Neighbours").wait_for()
            await page.screenshot(path=str(shots / "2-memories.png"), full_page=True)

            # recall: NVL draws the activation graph; an item and a node explain themselves
            await page.get_by_test_id("nav-recall").click()
            await page.get_by_test_id("recall-query").fill("Where does Sam work now and what is Pixel afraid of?")
            await page.get_by_test_id("recall-query").press("Enter")
            graph = page.locator("[data-testid=recall-graph][data-node-count]")
            await graph.locator("canvas:visible").first.wait_for()
            items = await page.get_by_test_id("recall-items").locator("li").count()
            assert items > 0
            assert int(await graph.get_attribute("data-node-count") or 0) >= items
            await page.get_by_test_id("recall-items").locator("li button").first.click()
            parts = page.get_by_test_id("explanation").get_by_test_id("score-parts")
            await parts.wait_for()
            assert "relevance" in await parts.inner_text()
            await page.get_by_test_id("explanation").locator(".why").wait_for()
            await page.screenshot(path=str(shots / "3-recall-item.png"), full_page=True)
            assert await click_a_node(page, graph), "no click on the drawn graph selected a node"
            await page.screenshot(path=str(shots / "4-recall-node-clicked.png"), full_page=True)

            # procedures: the draft is approved through the API's mutation
            await page.get_by_test_id("nav-procedures").click()
            draft = page.get_by_test_id("procedure-rows").locator("tbody tr", has_text="walk Pixel")
            await draft.wait_for()
            await page.screenshot(path=str(shots / "5-procedures.png"), full_page=True)
            await draft.get_by_role("button", name="approve").click()
            await page.locator("section", has_text="Procedures").get_by_text("Nothing here yet.").wait_for()
            await page.get_by_test_id("procedure-status").select_option("APPROVED")
            approved = page.get_by_test_id("procedure-rows").locator("tbody tr", has_text="walk Pixel")
            await approved.get_by_text("approved").wait_for()

            # consolidation: a quick run from the page, its report listed
            await page.get_by_test_id("nav-consolidation").click()
            await page.get_by_test_id("consolidate").click()
            report = page.get_by_test_id("consolidation-report").first
            await report.wait_for()
            await report.locator("summary").click()
            await page.screenshot(path=str(shots / "6-consolidation.png"), full_page=True)

            # turn stream: the scripted model's typed events arrive over the websocket
            await page.get_by_test_id("nav-turn").click()
            await page.get_by_test_id("turn-message").fill("My cat is called Miso.")
            await page.get_by_test_id("turn-message").press("Enter")
            events = page.get_by_test_id("turn-events")
            await events.locator("li[data-type=MessageEndEvent]").wait_for()
            types = await events.locator("li").evaluate_all("els => els.map(e => e.dataset.type)")
            assert {"MessageStartEvent", "ActivationEvent", "TextDeltaEvent", "MessageEndEvent"} <= set(types), types
            assert (await page.get_by_test_id("turn-reply").inner_text()).strip()
            await page.screenshot(path=str(shots / "7-turn-stream.png"), full_page=True)
        except Exception as exc:
            await page.screenshot(path=str(shots / "failed.png"), full_page=True)
            (shots / "failed.html").write_text(await page.content())
            raise AssertionError(f"{exc}\nbrowser errors: {errors}") from exc
        finally:
            await browser.close()
    assert errors == []


@contextlib.asynccontextmanager
async def chromium() -> AsyncIterator[Any]:
    """Debian's Chromium, headless, closed on the way out."""
    async with playwright.async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            await browser.close()


async def new_page(browser: Any, errors: list[str], *, expected: tuple[str, ...] = ()) -> Any:
    """A fresh tab (its own sessionStorage); console errors other than `expected` ones are kept."""
    context = await browser.new_context(viewport={"width": 1500, "height": 1000})
    page = await context.new_page()
    page.set_default_timeout(WAIT)

    def on_console(message: Any) -> None:
        if message.type == "error" and not any(x in message.text for x in expected):
            errors.append(f"console: {message.text}")

    page.on("console", on_console)
    page.on("pageerror", lambda e: errors.append(f"page error: {e}"))
    return page


def port_of(url: str) -> int:
    port = urlsplit(url).port
    assert port is not None, url
    return port


async def test_the_demo_address_opens_the_dashboard_signed_in(api_tenant: Tenant, tmp_path: Path) -> None:
    t = api_tenant
    token = await t.key(t.org, Role.ADMIN, name="hippograph demo")
    address = dashboard_address(port_of(t.url), token)
    assert address.startswith(t.url + "/#key=")  # the API the test serves, addressed as the demo does
    errors: list[str] = []
    async with chromium() as browser:
        page = await new_page(browser, errors)
        await page.goto(address)
        await page.get_by_test_id("scope-picker").wait_for()
        assert await page.get_by_test_id("key-form").count() == 0
        assert "admin" in await page.locator("#who .role").inner_text()
        assert "#key" not in page.url and token not in page.url, page.url  # out of the address bar at once
        assert await page.evaluate("() => sessionStorage.getItem('hippograph.key')") == token
        await page.get_by_test_id("overview-title").wait_for()
        await page.screenshot(path=str(tmp_path / "signed-in.png"), full_page=True)
        await page.reload()  # kept for the tab, as a typed key is
        await page.get_by_test_id("scope-picker").wait_for()

        # a key that is not one shows the form with the API's error, and keeps nothing
        bad = await new_page(browser, errors, expected=("401",))
        await bad.goto(dashboard_address(port_of(t.url), "hg_not_a_real_key"))
        form = bad.get_by_test_id("key-form")
        await form.wait_for()
        alert = form.get_by_role("alert")
        await alert.wait_for()
        assert (await alert.inner_text()).strip()
        assert "key=" not in bad.url, bad.url
        assert await bad.evaluate("() => sessionStorage.getItem('hippograph.key')") is None
        await bad.screenshot(path=str(tmp_path / "bad-key.png"), full_page=True)
    assert errors == []


RECALL_GRAPH = """query($scope: String!, $question: String!) { recall(scope: $scope, query: $question, first: 10) {
  items { path { nodeId relationship } }
  activation { seeds activated { path { nodeId relationship } } } } }"""


async def hover_an_edge(page: Any, edges: dict[tuple[str, str], str]) -> tuple[str, str] | None:
    """Hovers the middle of each walked relationship until one shows its type; returns (expected, shown)."""
    for (a, b), kind in edges.items():
        ends = [page.locator(f"[data-testid=recall-graph] .nvl-node[data-id='{x}']") for x in (a, b)]
        boxes = [await e.bounding_box() for e in ends]
        if None in boxes:
            continue
        x = sum(b["x"] + b["width"] / 2 for b in boxes) / 2
        y = sum(b["y"] + b["height"] / 2 for b in boxes) / 2
        await page.mouse.move(x, y)
        tip = page.get_by_test_id("graph-tip")
        if await tip.is_visible() and await tip.locator("[data-edge]").count():
            return kind, (await tip.locator("strong").inner_text()).strip()
    return None


async def test_the_recall_graph_and_the_growth_chart_have_words(
    api_tenant: Tenant, store: GraphStore, tmp_path: Path
) -> None:
    t = api_tenant
    token = await t.key(t.org, Role.WRITER, name="dashboard words")
    await seed(t, store, token)
    question = "Where does Sam work now and what is Pixel afraid of?"
    recall = t.client(token).data(RECALL_GRAPH, scope=t.user.key, question=question)["recall"]
    seeds = set(recall["activation"]["seeds"])
    assert seeds
    paths = [i["path"] for i in recall["items"]] + [a["path"] for a in recall["activation"]["activated"]]
    edges = {(p[k - 1]["nodeId"], p[k]["nodeId"]): p[k]["relationship"] for p in paths for k in range(1, len(p))}
    errors: list[str] = []
    async with chromium() as browser:
        page = await new_page(browser, errors)
        await page.goto(dashboard_address(port_of(t.url), token))
        picker = page.get_by_test_id("scope-picker")
        await picker.wait_for()
        await picker.select_option(t.user.key)

        # created per day: fourteen dated columns ending today (UTC), counts as the API gives them
        await page.get_by_test_id("overview-title").get_by_text(t.user.key).wait_for()
        days = page.get_by_test_id("growth").locator(".day")
        assert await days.count() == 14
        today = datetime.now(UTC).date()
        expected_days = [(today - timedelta(days=13 - i)).isoformat() for i in range(14)]
        assert await days.evaluate_all("els => els.map(e => e.dataset.day)") == expected_days
        assert await days.locator("time").all_inner_texts() == [d[5:] for d in expected_days]
        growth = t.client(token).data(
            "query($scope: String!) { stats(scope: $scope) { growth(days: 14) { day created } } }", scope=t.user.key
        )["stats"]["growth"]
        created = await days.evaluate_all("els => els.map(e => Number(e.dataset.created))")
        shown = dict(zip(expected_days, created, strict=True))
        assert shown[today.isoformat()] > 0
        assert {d: n for d, n in shown.items() if n} == {g["day"]: g["created"] for g in growth if g["day"] in shown}
        assert (await days.last.locator(".count").inner_text()).strip() == str(shown[today.isoformat()])
        await page.get_by_test_id("growth").screenshot(path=str(tmp_path / "growth.png"))

        # the recall graph at the zoom it opens with: every node labelled at a readable size
        await page.get_by_test_id("nav-recall").click()
        await page.get_by_test_id("recall-query").fill(question)
        await page.get_by_test_id("recall-query").press("Enter")
        graph = page.locator("[data-testid=recall-graph][data-node-count]")
        await graph.locator("canvas:visible").first.wait_for()
        await page.locator("[data-testid=recall-graph][data-fitted]").wait_for()  # the zoom it opens with
        nodes = int(await graph.get_attribute("data-node-count") or 0)
        labels = graph.locator(".nvl-node .node-label")
        assert nodes > 0 and await labels.count() == nodes
        frame = await graph.bounding_box()
        on_screen = 0
        for label in await labels.all():
            assert (await label.inner_text()).strip()
            box = await label.bounding_box()
            assert box is not None and box["height"] >= 11, box  # screen pixels, whatever the zoom
            inside = frame["x"] <= box["x"] + box["width"] / 2 <= frame["x"] + frame["width"]
            on_screen += inside and frame["y"] <= box["y"] <= frame["y"] + frame["height"]
        assert on_screen == nodes, f"{on_screen} of {nodes} labels inside the graph"
        zoom = float(await graph.get_attribute("data-zoom") or 0)

        # the seeds of the recall are ringed, and the legend says so, as it names every layer drawn
        ringed = await graph.locator(".nvl-node.seed").evaluate_all("els => els.map(e => e.dataset.id)")
        assert set(ringed) == seeds
        outline = await graph.locator(".nvl-node.seed").first.evaluate("e => getComputedStyle(e).outlineStyle")
        assert outline == "solid"
        legend = page.get_by_test_id("graph-legend")
        drawn = set(await graph.locator(".nvl-node").evaluate_all("els => els.map(e => e.dataset.layer)"))
        listed = set(await legend.locator("li[data-layer]").evaluate_all("els => els.map(e => e.dataset.layer)"))
        assert listed == drawn - {""}, (listed, drawn)
        assert "seed" in await legend.locator("li[data-mark=seed]").inner_text()
        await page.screenshot(path=str(tmp_path / "recall-graph.png"), full_page=True)

        # an arrow under the pointer names its relationship type
        if edges:
            hovered = await hover_an_edge(page, edges)
            assert hovered is not None, "no hover on a walked relationship showed its type"
            assert hovered[0] == hovered[1], hovered
            await page.screenshot(path=str(tmp_path / "recall-edge-hover.png"), full_page=True)
    assert errors == [], errors
    print(f"recall graph: {nodes} nodes, {len(seeds)} seeds, {len(edges)} edges, opening zoom {zoom}")


AGILITY = (
    "Pixel trains at the Riverside Agility Club on Tuesday and Thursday evenings; the trainer, Inês, says "
    "Pixel is fastest through the tunnel and the weave poles but still refuses the see-saw, so they practise "
    "it with treats after every session.\nBring the blue harness and the long lead."
)
RECALL_ITEMS = """query($scope: String!, $question: String!) { recall(scope: $scope, query: $question, first: 10) {
  items { memory { id label content } } } }"""


async def test_the_recall_list_shows_each_memory_whole(api_tenant: Tenant, store: GraphStore) -> None:
    t = api_tenant
    token = await t.key(t.org, Role.WRITER, name="dashboard recall list")
    await seed(t, store, token)
    client = t.client(token)
    remember(client, t.user.key, layer="SEMANTIC", label="Pixel's agility club", content=AGILITY, key="pixel.agility")
    question = "Where does Pixel do agility training, and what does Pixel refuse?"
    recalled = client.data(RECALL_ITEMS, scope=t.user.key, question=question)["recall"]["items"]
    expected = {i["memory"]["id"]: i["memory"]["content"] or i["memory"]["label"] for i in recalled}
    assert any(len(text) > 100 for text in expected.values()) and AGILITY in expected.values()
    errors: list[str] = []
    async with chromium() as browser:
        page = await new_page(browser, errors)
        await page.goto(dashboard_address(port_of(t.url), token))
        picker = page.get_by_test_id("scope-picker")
        await picker.wait_for()
        await picker.select_option(t.user.key)
        await page.get_by_test_id("overview-title").get_by_text(t.user.key).wait_for()
        await page.get_by_test_id("nav-recall").click()
        await page.get_by_test_id("recall-query").fill(question)
        await page.get_by_test_id("recall-query").press("Enter")
        items = page.get_by_test_id("recall-items")
        await items.locator("li").first.wait_for()

        shown = await items.locator("button.memory").evaluate_all(
            """els => els.map(b => {
                 const text = b.querySelector('[data-testid=recall-item-text]');
                 const lines = text.getBoundingClientRect().height / parseFloat(getComputedStyle(text).lineHeight);
                 return {id: b.dataset.id, text: text.innerText, title: b.title, lines: Math.round(lines),
                         overflows: text.scrollWidth > text.clientWidth || b.scrollWidth > b.clientWidth};
               })"""
        )
        assert [s["id"] for s in shown] == list(expected), "the list shows the recalled items, in order"
        for s in shown:  # every memory whole: its full text, wrapped inside the column, on hover too
            assert s["text"] == expected[s["id"]], s
            assert s["title"].endswith(expected[s["id"]]) and not s["overflows"], s
        agility = next(s for s in shown if s["text"] == AGILITY)
        assert agility["lines"] >= 4, agility  # wrapped over lines, its own newline kept
        await items.screenshot(path=str(artifact_dir("dashboard") / "recall-list.png"))

        # a click shows the same whole text beside the explanation
        await items.locator(f"button.memory[data-id='{agility['id']}']").click()
        assert await page.get_by_test_id("explanation-text").inner_text() == AGILITY
    assert errors == []
