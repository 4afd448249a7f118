"""``hippograph neo4j start | stop | status`` — the local embedded Neo4j."""

from __future__ import annotations

import json
from pathlib import Path

from hippograph._extras import requires_extra

with requires_extra("cli"):
    import typer
    from rich.console import Console

from hippograph.app.settings import Settings
from hippograph.dbms.local_server import BrowserSetup, LocalNeo4j, ServerStatus
from hippograph.errors import HippographError

neo4j_app = typer.Typer(no_args_is_help=True, help="Run the local Neo4j (no Docker needed).")
console = Console()

JsonOpt = typer.Option(False, "--json", help="Machine-readable output (JSON on stdout).")
DataDir = typer.Option(None, "--data-dir", help="Folder for the database (default: $HIPPOGRAPH_DATA_DIR/neo4j).")


def local_server(
    data_dir: Path | None,
    port: int | None = None,
    browser: BrowserSetup | None = None,
    version: str | None = None,
) -> LocalNeo4j:
    s = Settings()
    return LocalNeo4j(
        data_dir or s.local_data_dir,
        port=port or s.neo4j_port,
        heap=s.neo4j_heap,
        pagecache_mb=s.neo4j_pagecache_mb,
        browser=browser,
        neo4j_version=version or s.neo4j_version,
    )


@neo4j_app.command()
def start(
    data_dir: Path | None = DataDir,
    port: int | None = typer.Option(None, help="Bolt port (default: a free one)."),
    browser: bool = typer.Option(
        False, "--browser", help="Also serve Neo4j Browser over HTTP on 127.0.0.1, with hippograph's style and guide."
    ),
    http_port: int | None = typer.Option(None, help="HTTP port for --browser (default: a free one)."),
    version: str | None = typer.Option(
        None,
        "--version",
        help="Neo4j release to build and run, e.g. 5.26.31 for the 5.26 LTS line on Java 17 "
        "(default: $HIPPOGRAPH_NEO4J_VERSION, else the launcher's 2026.x on Java 21+).",
    ),
    warm: bool = typer.Option(
        True, "--warm/--no-warm", help="Once it answers, plan and run recall's statements so the first recall is fast."
    ),
    as_json: bool = JsonOpt,
) -> None:
    """Build the launcher once (Maven), start Neo4j in the background, wait until ready, then
    warm it (the schema applied, recall's statements planned and compiled)."""
    setup = None
    if browser:
        from hippograph.analysis.browser import local_browser

        setup = local_browser(http_port)
    try:
        server = local_server(data_dir, port, setup, version)
        with console.status("Building (first time only) and starting the local Neo4j…"):
            status = server.start()
    except HippographError as exc:
        console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(1) from None
    if warm:
        _warm(status.uri or server.uri(), server.password(), quiet=as_json)
    if as_json:
        typer.echo(json.dumps({**_status_dict(status), "password_file": str(server.password_file)}))
        return
    console.print(f"[green]ready[/green] {status.uri}  user neo4j, password in {server.password_file}")
    if status.browser_url:
        from hippograph.analysis.browser import connect_url

        console.print(
            f"[green]Neo4j Browser[/green] {connect_url(status.browser_url, status.uri or server.uri())}  "
            f"(127.0.0.1 only; connect form filled in) — the password is in {server.password_file}",
            soft_wrap=True,
        )
    typer.echo(f"HIPPOGRAPH_NEO4J_URI={status.uri}")


@neo4j_app.command()
def stop(data_dir: Path | None = DataDir) -> None:
    """Stop the local Neo4j cleanly (SIGTERM, then wait)."""
    server = local_server(data_dir)
    was = server.stop()
    console.print("stopped" if was else "was not running")


@neo4j_app.command()
def backup(
    target: Path = typer.Argument(..., help="A new folder for the copy."), data_dir: Path | None = DataDir
) -> None:
    """Copy the stopped local Neo4j's database into a new folder (an offline backup)."""
    try:
        where = local_server(data_dir).backup(target)
    except HippographError as exc:
        console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(1) from None
    console.print(f"backed up to {where}")


@neo4j_app.command()
def restore(
    source: Path = typer.Argument(..., help="A folder made by `hippograph neo4j backup`."),
    data_dir: Path | None = DataDir,
) -> None:
    """Replace the stopped local Neo4j's database with a backup."""
    try:
        local_server(data_dir).restore(source)
    except HippographError as exc:
        console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(1) from None
    console.print(f"restored from {source}")


@neo4j_app.command()
def status(data_dir: Path | None = DataDir, as_json: bool = JsonOpt) -> None:
    """Say whether the local Neo4j runs and answers Bolt; exit 1 when it does not."""
    st = local_server(data_dir).status()
    if as_json:
        typer.echo(json.dumps(_status_dict(st)))
    else:
        console.print(st.describe())
    if not st.ready:
        raise typer.Exit(1)


def _warm(uri: str, password: str, *, quiet: bool) -> None:
    """Warm the server; a failure is reported, never fatal (the server runs, only colder)."""
    import asyncio

    from hippograph.app.warm_server import warm_server

    s = Settings()
    try:
        with console.status("Warming the server (recall's plans)…"):
            asyncio.run(warm_server(uri, password=password, user=s.neo4j_user, database=s.neo4j_database))
    except HippographError as exc:
        if not quiet:
            console.print(f"[yellow]warning:[/yellow] warming the server failed (the first recall will be slow): {exc}")


def _status_dict(st: ServerStatus) -> dict[str, object]:
    return {
        "running": st.running,
        "ready": st.ready,
        "pid": st.pid,
        "uri": st.uri,
        "browser_url": st.browser_url,
        "neo4j_version": st.neo4j_version,
        "data_dir": str(st.data_dir),
        "log_file": str(st.log_file),
    }
