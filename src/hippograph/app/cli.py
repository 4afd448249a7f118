"""The ``hippograph`` command line: the local Neo4j, the demo, and memory at your fingertips."""

from __future__ import annotations

import asyncio
import atexit
import json
import os
import sys
from pathlib import Path
from typing import Any, NoReturn

from hippograph._extras import requires_extra

with requires_extra("cli"):
    import typer
    from rich.console import Console

from hippograph.app.api.cli import register as register_api_commands
from hippograph.app.cli_examples import add_examples
from hippograph.app.cli_neo4j import neo4j_app
from hippograph.app.cli_reembed import register as register_reembed_command
from hippograph.app.mcp.cli import register as register_mcp_command
from hippograph.app.settings import Settings
from hippograph.errors import HippographError
from hippograph.scope import Scope

app = typer.Typer(no_args_is_help=True, help="hippograph: long-term memory for LLM agents, in Neo4j.")
app.add_typer(neo4j_app, name="neo4j")
register_api_commands(app)
register_mcp_command(app)
register_reembed_command(app)
console = Console()

JsonOpt = typer.Option(False, "--json", help="Machine-readable output (JSON on stdout).")
ScopeOpt = typer.Option(..., "--scope", help="Scope key, e.g. org:acme/user:bob")
NamespaceOpt = typer.Option(
    None, "--namespace", help="A namespace of the scope's path, e.g. support (the same as a key ending /@support)."
)


def _run(coro: Any) -> Any:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    try:
        return asyncio.run(coro)
    except HippographError as exc:
        console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(1) from None


@app.command()
def demo(
    serve: bool = typer.Option(
        True, "--serve/--no-serve", help="After the demo, serve the API, GraphiQL, the dashboard and Neo4j Browser."
    ),
    port: int = typer.Option(8000, help="Port of the API (GraphiQL at /graphql, the dashboard at /)."),
) -> None:
    """Run the demo on the local Neo4j (offline scripted model unless ANTHROPIC_API_KEY is set):
    weeks of sessions ingested, agent turns, consolidation, recall as a tree of activation paths;
    then serve everything until Ctrl-C."""
    from hippograph.app.demo import run_demo
    from hippograph.app.demo_serve import browser_address, serve_demo

    settings = Settings()
    if not serve:
        _run(run_demo(settings, console))
        return
    browser = browser_address(settings, console)
    figures = _run(run_demo(settings, console))
    serve_demo(settings, console, port=port, dev_key=figures["dev_key"], scope_key=figures["scope"], browser=browser)


@app.command("prepare-embedder")
def prepare_embedder() -> None:
    """Export the default embedder (all-MiniLM-L6-v2) to ONNX Runtime's format once, ahead of its
    first use (set-up runs this); says where the export is kept."""
    import time

    from hippograph.embeddings import OnnxMiniLMEmbeddings, default_embedder

    try:
        embedder = default_embedder()
        if not isinstance(embedder, OnnxMiniLMEmbeddings):
            console.print("nothing to prepare: without onnxruntime and onnx the embedder runs on torch")
            return
        if embedder.prepared:
            console.print(f"embedder ready for ONNX Runtime: {embedder.onnx_path}", soft_wrap=True)
            return
        with console.status("Exporting all-MiniLM-L6-v2 to ONNX (once: ~10–30 s)…"):
            t0 = time.perf_counter()
            path = embedder.prepare()
    except HippographError as exc:
        console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(1) from None
    console.print(
        f"embedder ready for ONNX Runtime: exported in {time.perf_counter() - t0:.0f} s to {path}", soft_wrap=True
    )


@app.command()
def ingest(
    file: Path = typer.Argument(
        ...,
        exists=True,
        readable=True,
        help="JSON list of turns: {turn_id, session_id, speaker, text, occurred_at?, caption?}",
    ),
    scope: str = ScopeOpt,
    namespace: str | None = NamespaceOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Store a conversation as episodic memories (idempotent by turn id)."""
    from rich.progress import Progress

    from hippograph.app.runtime import open_memory

    target = Scope.parse(scope, namespace=namespace)
    try:
        turns = json.loads(file.read_text())
    except json.JSONDecodeError as exc:
        console.print(f"[red]error:[/red] {file} is not JSON: {exc}")
        raise typer.Exit(1) from None

    async def go() -> int:
        async with open_memory() as memory:
            with Progress(console=console, disable=as_json) as progress:
                task = progress.add_task("ingesting", total=len(turns))
                stored = await memory.ingest(target, turns, progress=lambda d, t: progress.update(task, completed=d))
            return len(stored)

    stored = _run(go())
    if as_json:
        typer.echo(json.dumps({"stored": stored, "scope": target.key}))
    else:
        console.print(f"stored {stored} turns in {target.key}")


@app.command()
def recall(
    query: str = typer.Argument(...),
    scope: str = ScopeOpt,
    namespace: str | None = NamespaceOpt,
    top_k: int = typer.Option(5, "--top-k"),
    as_json: bool = JsonOpt,
    tree: bool = typer.Option(False, "--tree", help="Show the activation paths as a tree."),
) -> None:
    """Recall memories for a query, with the explanation of every item."""
    from hippograph.app.runtime import open_memory

    target = Scope.parse(scope, namespace=namespace)

    async def go() -> Any:
        async with open_memory() as memory:
            result = await memory.recall(target, query, top_k=top_k)
            if not tree:
                return result, {}
            from hippograph.app.recall_view import path_labels

            return result, await path_labels(memory, target, result)

    result, labels = _run(go())
    if as_json:  # what a script reads: no table code imported
        typer.echo(result.model_dump_json(indent=2))
        return
    from hippograph.app.cli_views import activation_tree, recall_table

    console.print(activation_tree(result, labels) if tree else recall_table(result))


@app.command()
def consolidate(
    scope: str = ScopeOpt,
    namespace: str | None = NamespaceOpt,
    mode: str = typer.Option("run", help="quick_nap | run | nightly_nap"),
    as_json: bool = JsonOpt,
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
            consolidator = SleepConsolidator.for_memory(memory, config, model=consolidation_model(Settings()))
            return await getattr(consolidator, mode)(Scope.parse(scope, namespace=namespace))

    report = _run(go())
    if as_json:
        typer.echo(report.model_dump_json(indent=2))
    else:
        from hippograph.app.cli_views import consolidation_table

        console.print(consolidation_table(report))


@app.command()
def forget(
    scope: str = ScopeOpt,
    namespace: str | None = NamespaceOpt,
    yes: bool = typer.Option(False, "--yes", help="Do not ask."),
    as_json: bool = JsonOpt,
) -> None:
    """Erase a scope and everything below it — its memories and the API keys bound to it —
    completely and in batches (cannot be undone; run it again to finish an interrupted erase)."""
    from hippograph.app.access.repository import KeyRepository
    from hippograph.app.erase import erase_scope
    from hippograph.app.runtime import open_memory

    target = Scope.parse(scope, namespace=namespace)
    if not yes and not typer.confirm(f"Erase {target.key} and everything below it?"):
        raise typer.Exit(1)

    async def go() -> int:
        async with open_memory() as memory:
            return await erase_scope(memory, KeyRepository(memory.connection), target)

    erased = _run(go())
    if as_json:
        typer.echo(json.dumps({"erased": erased, "scope": target.key}))
    else:
        console.print(f"erased {erased} memories")


@app.command()
def doctor(
    as_json: bool = JsonOpt,
    embedder: bool = typer.Option(True, "--embedder/--no-embedder", help="Also load the embedding model."),
) -> None:
    """Check what hippograph needs — Java, Maven and the launcher, Neo4j (reachable, version,
    indexes), the embedder, the model key, the extras, the API and the dashboard — each with how
    to fix it. Exit code 1 when a check fails."""
    from hippograph.app.cli_views import doctor_table
    from hippograph.app.doctor import Status, run_checks

    checks = run_checks(Settings(), embedder=embedder)
    failed = any(c.status is Status.FAIL for c in checks)
    if as_json:
        typer.echo(json.dumps({"ok": not failed, "checks": [c.as_dict() for c in checks]}, indent=2))
    else:
        console.print(doctor_table(checks))
        console.print("[red]some checks failed[/red]" if failed else "[green]ready[/green]")
    if failed:
        raise typer.Exit(1)


add_examples(app)


def main() -> None:
    """The ``hippograph`` command: ``app`` run as a process of its own, which ends without
    tearing the interpreter down once the command is done (see :func:`exit_now`). Calling
    ``app()`` inside another program leaves that program running as usual."""
    try:
        app()
    except SystemExit as done:
        code = done.code
    else:
        code = 0
    if isinstance(code, str):
        print(code, file=sys.stderr)
        code = 1
    exit_now(code or 0)


def exit_now(code: int) -> NoReturn:
    """End the process: the exit handlers run (logging, tracing exporters) and the output is
    flushed, but freeing every module and the embedding model is left to the operating system,
    which a short command would otherwise wait for (0.2–0.9 s here, most of a CLI recall's
    wall time after its answer)."""
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    os._exit(code)


if __name__ == "__main__":  # pragma: no cover
    main()
