"""After the demo: serve the API (GraphiQL at ``/graphql``, the dashboard at ``/``) on
127.0.0.1 beside Neo4j Browser, print the addresses and the development key, and run until
Ctrl-C (uvicorn stops cleanly on SIGINT and SIGTERM). Browser's address opens its connect form
filled in; the local server's password is printed beside it."""

from __future__ import annotations

import os
from dataclasses import dataclass
from urllib.parse import quote

from rich.console import Console
from rich.panel import Panel

from hippograph.app.settings import Settings
from hippograph.errors import HippographError

LOCALHOST = "127.0.0.1"


@dataclass(frozen=True)
class BrowserLogin:
    """Neo4j Browser beside the demo: ``url`` opens its connect form with the local server's
    connect URL and user filled in, ``password`` is that server's; when Browser is not served
    here both are None and ``note`` says why."""

    url: str | None = None
    password: str | None = None
    note: str = ""

    def lines(self) -> list[str]:
        """What the demo prints after its summary box, one line each (not wrapped, to copy)."""
        if self.url is None:
            return []
        return [
            f"Neo4j Browser {self.url}",
            f"  user neo4j, password {self.password} — a local development server (127.0.0.1 only): "
            "type the password and connect",
        ]


def api_base(port: int) -> str:
    """Where the demo serves the API: ``http://127.0.0.1:<port>``."""
    return f"http://{LOCALHOST}:{port}"


def dashboard_address(port: int, dev_key: str) -> str:
    """The dashboard's address that opens it signed in: the key rides in the URL fragment
    (``/#key=…``), which the browser never sends to the server, and the dashboard takes it out
    of the address bar as soon as it has read it. For the demo's development key only."""
    return f"{api_base(port)}/#key={quote(dev_key, safe='')}"


def browser_address(settings: Settings, console: Console) -> BrowserLogin:
    """Neo4j Browser's address: the local Neo4j is started with Browser when it is not running
    (call this before the demo opens the memory); when it already runs without Browser, how to
    get it (a restart, which the demo does not do behind your back)."""
    if settings.neo4j_uri:
        return BrowserLogin(
            note=f"not served here: HIPPOGRAPH_NEO4J_URI names {settings.neo4j_uri} — open that server's Browser"
        )
    from hippograph.analysis.browser import connect_url, local_browser
    from hippograph.app.runtime import local_server

    server = local_server(settings)
    status = server.status()
    if not status.browser_url:
        if status.running:
            return BrowserLogin(
                note="not enabled on the running local Neo4j — `hippograph neo4j stop && hippograph neo4j start "
                "--browser`, then run the demo again"
            )
        server.browser = local_browser()
        try:
            with console.status("Starting Neo4j with Browser…"):
                status = server.start()
        except HippographError as exc:
            return BrowserLogin(note=f"could not start: {exc}")
    if not status.browser_url or not status.uri:
        return BrowserLogin(note=f"not served: see {server.log_file}")
    return BrowserLogin(
        connect_url(status.browser_url, status.uri),
        server.password(),
        "opens with its connect form filled in — address and password below",
    )


def serve_demo(
    settings: Settings, console: Console, *, port: int, dev_key: str, scope_key: str, browser: BrowserLogin
) -> None:
    """Serve until Ctrl-C; returns when uvicorn has shut down."""
    import uvicorn

    from hippograph.app.api.app import create_app
    from hippograph.app.api.settings import ApiSettings

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    base = api_base(port)
    console.print(
        Panel.fit(
            f"[bold]dashboard[/bold]      {dashboard_address(port, dev_key)}  (opens signed in)\n"
            f"[bold]GraphiQL[/bold]       {base}/graphql  — headers: "
            f'{{"Authorization": "Bearer {dev_key}"}}\n'
            f"[bold]Neo4j Browser[/bold]  {browser.note}\n"
            f"[bold]development API key[/bold] (admin of org:demo): {dev_key}\n"
            f"[bold]try[/bold]  recall on {scope_key}, the draft procedure, the pending trigger, the last run\n"
            "Ctrl-C stops the API (the local Neo4j keeps running: `hippograph neo4j stop`).",
            title="serving — 127.0.0.1 only",
        ),
        soft_wrap=True,
    )
    for line in browser.lines():
        console.print(line, soft_wrap=True, markup=False, highlight=False)
    console.print(f"DEV_API_KEY={dev_key}", soft_wrap=True)
    console.print(f"API_URL={base}", soft_wrap=True)
    console.print(f"DASHBOARD_URL={dashboard_address(port, dev_key)}", soft_wrap=True)
    app = create_app(settings, ApiSettings(host=LOCALHOST, port=port))
    uvicorn.run(app, host=LOCALHOST, port=port, log_level="warning", ws="websockets-sansio")
    console.print("stopped serving")
