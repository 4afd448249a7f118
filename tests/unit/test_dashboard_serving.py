"""``/`` serves the built dashboard when there is one, else a page that says how to build it;
either way the API's own routes win over the dashboard's files."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.testclient import TestClient

from hippograph.app.api.dashboard import install_dashboard


def app_with_dashboard(folder: Path) -> FastAPI:
    app = FastAPI()

    @app.get("/healthz")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    install_dashboard(app, folder)
    return app


def test_without_a_build_the_root_says_how_to_build_it(tmp_path: Path) -> None:
    client = TestClient(app_with_dashboard(tmp_path))
    page = client.get("/")
    assert page.status_code == 200
    assert "The dashboard is not built" in page.text
    assert "npm ci &amp;&amp; npm run build" in page.text
    assert client.get("/healthz").json() == {"status": "ok"}


def test_a_build_is_served_at_the_root_and_api_routes_still_win(tmp_path: Path) -> None:
    (tmp_path / "assets").mkdir()
    (tmp_path / "index.html").write_text("<!doctype html><title>hippograph dashboard</title>")
    (tmp_path / "assets" / "index-abc.js").write_text("console.log('hi')")
    (tmp_path / "healthz").write_text("a file that must not shadow the route")
    client = TestClient(app_with_dashboard(tmp_path))
    assert "hippograph dashboard" in client.get("/").text
    script = client.get("/assets/index-abc.js")
    assert script.status_code == 200 and "javascript" in script.headers["content-type"]
    assert client.get("/healthz").json() == {"status": "ok"}
    assert client.get("/assets/missing.js").status_code == 404
