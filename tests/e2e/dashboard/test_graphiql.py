"""GraphiQL at ``/graphql`` under the security policy its page is served with: headless Chromium
opens it with a reader key in GraphiQL's stored headers, the editor renders, a query runs and
its answer shows — with no policy violation. The page's CDN files are answered from the same
files of their npm packages (``tests/support/cdn_assets.py``), byte for byte, so the page's
integrity hashes and the policy are what a browser on the internet checks.

Needs Debian's ``chromium``, the ``playwright`` package and npm (to pack the CDN files once).
"""

from __future__ import annotations

import json
from urllib.parse import quote

import httpx
import pytest

from hippograph.app.access.keys import Role
from tests.e2e.api.harness import Tenant
from tests.support.browser import CHROMIUM, CHROMIUM_ARGS, artifact_dir
from tests.support.cdn_assets import CONTENT_TYPES, cdn_files

playwright = pytest.importorskip("playwright.async_api", reason="pip install playwright (drives Debian's chromium)")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is needed: apt-get install -y chromium")

WAIT = 60_000  # ms; the machine is shared
QUERY = "{ viewer { role scopeKey } }"
COLLECT_VIOLATIONS = """
window.__violations = [];
document.addEventListener('securitypolicyviolation',
  e => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));
"""


async def test_graphiql_renders_and_runs_a_query_under_its_policy(api_tenant: Tenant) -> None:
    t = api_tenant
    token = await t.key(t.org, Role.READER)
    page_html = httpx.get(t.url + "/graphql", headers={"Accept": "text/html"}, timeout=60)
    policy = page_html.headers["content-security-policy"]
    try:
        files = cdn_files(page_html.text)
    except RuntimeError as exc:
        pytest.skip(f"GraphiQL's CDN files could not be packed from npm: {exc}")
    assert files, "the page names no CDN file"
    shots = artifact_dir("graphiql")
    errors: list[str] = []
    unknown: list[str] = []

    async def cdn(route: object) -> None:
        url = route.request.url  # type: ignore[attr-defined]
        file = files.get(url)
        if file is None:
            unknown.append(url)
            await route.abort()  # type: ignore[attr-defined]
            return
        await route.fulfill(  # type: ignore[attr-defined]
            body=file.read_bytes(),
            content_type=CONTENT_TYPES.get(file.suffix, "application/octet-stream"),
            headers={"Access-Control-Allow-Origin": "*"},
        )

    headers = json.dumps({"Authorization": f"Bearer {token}"})
    async with playwright.async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = await browser.new_context(viewport={"width": 1400, "height": 900})
        await context.route("https://unpkg.com/**", cdn)
        await context.add_init_script(COLLECT_VIOLATIONS)
        # GraphiQL keeps its headers editor in localStorage; this one carries the key
        await context.add_init_script(f"localStorage.setItem('graphiql:headers', {json.dumps(headers)});")
        page = await context.new_page()
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(f"page error: {e}"))
        page.set_default_timeout(WAIT)
        try:
            response = await page.goto(f"{t.url}/graphql?q={quote(QUERY)}")
            assert response is not None and response.headers["content-security-policy"] == policy
            await page.locator(".graphiql-query-editor .CodeMirror").first.wait_for()
            await page.locator(".graphiql-execute-button").click()
            await page.wait_for_function(
                "() => (document.querySelector('.graphiql-response')?.innerText || '').includes('reader')"
            )
            answer = await page.locator(".graphiql-response").inner_text()
            assert t.org.key in answer, answer
            await page.screenshot(path=str(shots / "graphiql.png"), full_page=True)
            violations = await page.evaluate("window.__violations")
        except Exception as exc:
            await page.screenshot(path=str(shots / "failed.png"), full_page=True)
            raise AssertionError(f"{exc}\nbrowser errors: {errors}\nunknown CDN requests: {unknown}") from exc
        finally:
            await browser.close()
    assert violations == [], violations
    assert unknown == []
    assert not [e for e in errors if "Content Security Policy" in e], errors
