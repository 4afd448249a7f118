"""``hippograph serve``, ``hippograph keys create|list|revoke`` and ``hippograph export|import``.
Only typer is imported here; FastAPI, Strawberry and uvicorn load when a command runs."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Awaitable, Callable
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeVar

import typer
from rich.console import Console
from rich.table import Table

from hippograph.errors import HippographError
from hippograph.scope import Scope


class ExportFormat(StrEnum):
    JSONL = "jsonl"
    GRAPHML = "graphml"


T = TypeVar("T")
keys_app = typer.Typer(no_args_is_help=True, help="API keys: bound to a scope and a role, stored hashed in Neo4j.")
console = Console()
err = Console(stderr=True)


def _run(work: Callable[[Any], Awaitable[T]]) -> T:
    """Run ``work(conn)`` on a connection to the configured (or local) Neo4j."""
    from hippograph.app.api.repository import ApiRepository
    from hippograph.app.runtime import neo4j_target
    from hippograph.app.settings import Settings
    from hippograph.store import Neo4jConnection, migrate

    async def go() -> T:
        settings = Settings()
        uri, password = neo4j_target(settings)
        conn = await Neo4jConnection.connect(
            uri, user=settings.neo4j_user, password=password, database=settings.neo4j_database
        )
        try:
            await migrate(conn)
            await ApiRepository(conn).apply_schema()
            return await work(conn)
        finally:
            await conn.close()

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    try:
        return asyncio.run(go())
    except HippographError as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(1) from None


def serve(
    host: str | None = typer.Option(
        None, help="Address to bind (default 127.0.0.1; development mode: 127.0.0.1 only)."
    ),
    port: int | None = typer.Option(None, help="Port (default 8000)."),
    dev: bool = typer.Option(False, "--dev", help="No API keys: every request is an admin of every scope."),
    embedder: str | None = typer.Option(
        None, help="minilm (real, the default) or hashing (tiny stand-in, tests only)."
    ),
    config: Path | None = typer.Option(
        None,
        "--config",
        help="A TOML (or .json) file of the API's settings, the served agent's included "
        "(also HIPPOGRAPH_API_CONFIG_FILE); the environment and these options win over it.",
    ),
    log_level: str = typer.Option("info", help="uvicorn log level."),
) -> None:
    """Serve the GraphQL API (GraphiQL at /graphql) beside the local or configured Neo4j.

    The served agent, its naps (every 10 turns of a scope by default), the nightly schedule and
    the budgets come from HIPPOGRAPH_API_* variables and the config file; a bad setting stops
    the start with a message naming it.
    """
    import uvicorn
    from pydantic import ValidationError
    from rich.markup import escape

    from hippograph.app.api.app import create_app
    from hippograph.app.api.settings import ApiSettings, describe_errors

    given: dict[str, Any] = {"host": host, "port": port, "embedder": embedder, "config_file": config}
    if dev:
        given["dev_mode"] = True
    try:  # only the options given: the environment and the config file fill in the rest
        api = ApiSettings(**{k: v for k, v in given.items() if v is not None})
        app = create_app(api=api)
    except ValidationError as exc:
        err.print(f"[red]error:[/red] {escape(describe_errors(exc))}", highlight=False)
        raise typer.Exit(2) from None
    except (HippographError, ValueError) as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False)
        raise typer.Exit(2) from None
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if api.dev_mode:
        err.print("[yellow]development mode: no API keys, bound to 127.0.0.1[/yellow]")
    uvicorn.run(app, host=api.host, port=api.port, log_level=log_level, ws="websockets-sansio")


@keys_app.command("create")
def keys_create(
    scope: str = typer.Option(..., "--scope", help="The scope the key is bound to, e.g. org:acme"),
    namespace: str | None = typer.Option(None, "--namespace", help="A namespace of that scope's path, e.g. support."),
    role: str = typer.Option("reader", help="reader | writer | admin"),
    name: str = typer.Option("", help="A note on who uses it."),
    rate_limit: int | None = typer.Option(None, "--rate-limit", help="Requests per minute (default: server's)."),
    as_json: bool = typer.Option(False, "--json", help="The key's record and its token as JSON."),
) -> None:
    """Create a key; its token is printed once and never stored."""
    from hippograph.app.access.keys import create_key
    from hippograph.app.access.repository import KeyRepository

    target = _scope(scope, namespace)
    record, token = _run(lambda conn: create_key(KeyRepository(conn), target, role, name=name, rate_limit=rate_limit))
    err.print(f"created key {record.id} ({record.role} of {record.scope_key}); the token is shown only now:")
    typer.echo(json.dumps({**record.model_dump(), "token": token}) if as_json else token)


@keys_app.command("list")
def keys_list(
    scope: str | None = typer.Option(None, "--scope", help="Only keys bound to this scope or below."),
    revoked: bool = typer.Option(False, "--revoked", help="Include revoked keys."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """List keys (never their tokens)."""
    from hippograph.app.access.keys import list_keys
    from hippograph.app.access.repository import KeyRepository

    target = _scope(scope) if scope else None
    records = _run(lambda conn: list_keys(KeyRepository(conn), target, include_revoked=revoked))
    if as_json:
        typer.echo(json.dumps([r.model_dump() for r in records]))
        return
    table = Table("id", "role", "scope", "name", "rate limit", "revoked")
    for r in records:
        table.add_row(r.id, r.role, r.scope_key, r.name, str(r.rate_limit or "default"), "yes" if r.revoked_at else "")
    console.print(table)


@keys_app.command("revoke")
def keys_revoke(
    key_id: str = typer.Argument(..., help="The key's id (from `keys list`)."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Revoke a key at once (every worker checks Neo4j on each request)."""
    from hippograph.app.access.keys import revoke_key
    from hippograph.app.access.repository import KeyRepository

    record = _run(lambda conn: revoke_key(KeyRepository(conn), key_id))
    if as_json:
        typer.echo(json.dumps(record.model_dump()))
    else:
        console.print(f"revoked {record.id} ({record.role} of {record.scope_key})")


def export(
    scope: str = typer.Option(..., "--scope", help="The subtree to export."),
    namespace: str | None = typer.Option(None, "--namespace", help="A namespace of that scope's path, e.g. support."),
    out: Path | None = typer.Option(None, "--out", help="File to write (default: stdout; required for GraphML)."),
    embeddings: bool = typer.Option(False, "--embeddings", help="Include the vectors."),
    fmt: ExportFormat = typer.Option(
        None, "--format", help="jsonl or graphml (default: graphml when --out ends in .graphml, else jsonl)."
    ),
    as_json: bool = typer.Option(False, "--json", help="The summary as JSON (on stdout with --out, else stderr)."),
) -> None:
    """Export a scope subtree as JSON lines or GraphML (memories, edges), ids kept."""
    from hippograph.app.api.export import export_lines, parse_lines
    from hippograph.app.api.repository import ExportRepository

    target = _scope(scope, namespace)
    fmt = fmt or (ExportFormat.GRAPHML if out and out.suffix.lower() == ".graphml" else ExportFormat.JSONL)
    graphml_out = out if fmt is ExportFormat.GRAPHML else None
    if fmt is ExportFormat.GRAPHML and graphml_out is None:
        err.print("[red]error:[/red] --format graphml needs --out FILE")
        raise typer.Exit(2)

    async def work(conn: Any) -> int:
        lines = 0
        if graphml_out is not None:
            from hippograph.app.api.graphml import write_graphml

            collected = [line async for line in export_lines(ExportRepository(conn), target, embeddings=embeddings)]
            write_graphml(target, *parse_lines(collected), graphml_out)
            return len(collected)
        stream = out.open("w", encoding="utf-8") if out else sys.stdout
        try:
            async for line in export_lines(ExportRepository(conn), target, embeddings=embeddings):
                stream.write(line)
                lines += 1
        finally:
            if out:
                stream.close()
        return lines

    lines = _run(work)
    if as_json:
        summary = json.dumps(
            {"scope": target.key, "records": lines - 1, "format": fmt.value, "out": str(out) if out else None}
        )
        (typer.echo(summary) if out else err.print(summary, markup=False, highlight=False))
    else:
        err.print(f"exported {lines - 1} records of {target.key} ({fmt.value})")


def import_(
    file: Path = typer.Argument(
        ..., exists=True, readable=True, help="A JSON-lines or GraphML export; with --bulk also a conversation."
    ),
    bulk: bool = typer.Option(
        False,
        "--bulk",
        help="Load a large history into the empty local database with Neo4j's offline importer "
        "(the server is stopped meanwhile). FILE: an export, or a conversation (with --scope).",
    ),
    scope: str | None = typer.Option(
        None, "--scope", help="With --bulk: the scope of a conversation file's turns (as `ingest` takes them)."
    ),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Import a JSON-lines or GraphML export (same or another database), ids kept; idempotent.

    With --bulk, a whole history at once into an empty local database: an export (JSON lines)
    or a conversation (a JSON list of turns or one turn per line, with --scope), the same graph
    as `import` / `ingest` would write, many times faster.
    """
    if bulk:
        _bulk_import(file, _scope(scope) if scope else None, as_json)
        return
    if scope:
        err.print("[red]error:[/red] --scope goes with --bulk (an export names the scope of every record)")
        raise typer.Exit(2)
    from hippograph.app.api.export import import_records, parse_lines

    try:
        text = file.read_text(encoding="utf-8")
        if text.lstrip().startswith("<"):
            from hippograph.app.api.graphml import read_graphml

            nodes, edges = read_graphml(file)
        else:
            nodes, edges = parse_lines(text.splitlines())
    except HippographError as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(1) from None

    async def work(conn: Any) -> Any:
        from hippograph.embeddings import default_embedder
        from hippograph.memory import Memory
        from hippograph.store import GraphStore

        memory = Memory(GraphStore(conn), default_embedder())
        return await import_records(memory, nodes, edges)

    report = _run(work)
    if as_json:
        typer.echo(json.dumps({"memories": report.memories, "edges": report.edges, "scopes": list(report.scopes)}))
    else:
        console.print(f"imported {report.memories} memories and {report.edges} edges into {', '.join(report.scopes)}")


def _bulk_import(file: Path, scope: Scope | None, as_json: bool) -> None:
    from rich.progress import Progress

    from hippograph.app.api.bulk import bulk_import, read_input
    from hippograph.app.runtime import local_server
    from hippograph.app.settings import Settings
    from hippograph.store import Neo4jConnection

    settings = Settings()
    if settings.neo4j_uri:
        err.print(
            "[red]error:[/red] --bulk loads the local Neo4j offline; HIPPOGRAPH_NEO4J_URI points at another server "
            "(use `hippograph import FILE` there, or neo4j-admin on that server)"
        )
        raise typer.Exit(2)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    async def connect(uri: str, password: str) -> Any:
        return await Neo4jConnection.connect(
            uri, user=settings.neo4j_user, password=password, database=settings.neo4j_database
        )

    async def go() -> Any:
        data = read_input(file, scope)
        with Progress(console=err, disable=as_json) as progress:
            tasks: dict[str, Any] = {}

            def show(phase: str, done: int, total: int) -> None:
                if phase not in tasks:
                    tasks[phase] = progress.add_task(phase, total=total)
                progress.update(tasks[phase], completed=done)

            embedder = settings.make_embedder()
            return await bulk_import(local_server(settings), data, embedder, connect=connect, progress=show)

    try:
        report = asyncio.run(go())
    except HippographError as exc:
        err.print(f"[red]error:[/red] {exc}", markup=True, highlight=False)
        raise typer.Exit(1) from None
    summary = {
        "memories": report.memories,
        "edges": report.edges,
        "scopes": report.scopes,
        "embedded": report.embedded,
        "seconds": report.seconds,
        "memories_per_second": round(report.per_second),
    }
    if as_json:
        typer.echo(json.dumps(summary))
    else:
        console.print(
            f"bulk-imported {report.memories:,} memories and {report.edges:,} edges into {len(report.scopes)} scopes "
            f"({report.per_second:,.0f} memories/s without embedding; seconds: {report.seconds})"
        )


def _scope(key: str, namespace: str | None = None) -> Scope:
    try:
        return Scope.parse(key, namespace=namespace)
    except HippographError as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from None


def register(app: typer.Typer) -> None:
    """Add the API's commands to the ``hippograph`` CLI."""
    app.command()(serve)
    app.command()(export)
    app.command("import")(import_)
    app.add_typer(keys_app, name="keys")
