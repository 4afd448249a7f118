"""The dashboard at ``/``: the single-page app that ``npm run build`` in ``dashboard/`` writes
into this package (``dashboard_dist/``, never committed), served as static files; until it is
built, ``/`` answers with a page that says how to build it. The dashboard itself talks to the
public GraphQL API only."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

from hippograph.app.api.dashboard_files import dashboard_dir

NOT_BUILT = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>hippograph: dashboard not built</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 42rem; margin: 3rem auto; line-height: 1.5">
<h1>The dashboard is not built</h1>
<p>The API is running (GraphiQL: <a href="/graphql">/graphql</a>), but this installation has no
dashboard assets. Build them from a checkout of hippograph with Node.js 20 or newer:</p>
<pre>cd dashboard &amp;&amp; npm ci &amp;&amp; npm run build</pre>
<p>(<code>bash scripts/setup.sh</code> does this too), then restart <code>hippograph serve</code>.</p>
</body></html>
"""


def install_dashboard(app: FastAPI, folder: Path | None = None) -> None:
    """Serve the built dashboard at ``/`` (mounted last, so every API route wins), or the
    how-to-build page when there is none."""
    folder = folder or dashboard_dir()
    if (folder / "index.html").is_file():
        app.mount("/", StaticFiles(directory=folder, html=True), name="dashboard")
        return

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def dashboard_not_built() -> HTMLResponse:
        return HTMLResponse(NOT_BUILT)
