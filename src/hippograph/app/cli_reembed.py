"""``hippograph reembed``: move the database's vectors to another embedder while recall keeps
answering (see :mod:`hippograph.memory.reembed`)."""

from __future__ import annotations

import asyncio
import json
import os
import sys

import typer
from rich.console import Console

from hippograph.app.settings import Settings
from hippograph.errors import HippographError

__all__ = ["register"]


def register(app: typer.Typer) -> None:
    """Add the ``reembed`` command to ``app``."""

    @app.command()
    def reembed(
        embedder: str = typer.Option(
            ...,
            "--embedder",
            help="The new embedder: minilm, st:PATH, openai:MODEL (or openai:MODEL@URL) or hashing:N.",
        ),
        batch_size: int = typer.Option(256, "--batch-size", min=1, help="Memories embedded per batch."),
        as_json: bool = typer.Option(False, "--json", help="Machine-readable output (JSON on stdout)."),
    ) -> None:
        """Move the database's vectors to another embedder while recall keeps answering: new
        vectors beside the old ones in batches, a new index at the new size, then recall switches
        in one step and the old vectors and index go. Progress on stderr. Interrupted, it resumes
        when run again with the same --embedder. Restart other processes that use the database
        with the new embedder afterwards (the database refuses the old one from the switch on)."""
        from hippograph.app.runtime import neo4j_target
        from hippograph.embeddings.spec import embedder_from_spec
        from hippograph.memory.reembed import reembed as run_reembed
        from hippograph.store import GraphStore

        err = Console(stderr=True)
        settings = Settings()
        os.environ.setdefault("HF_HUB_OFFLINE", "1")

        def progress(phase: str, done: int, total: int) -> None:
            err.print(f"{phase}: {done}/{total}" if total else f"{phase}: {done}", highlight=False)

        async def go() -> dict[str, object]:
            key = settings.embedder_api_key.get_secret_value() if settings.embedder_api_key else None
            new = embedder_from_spec(embedder, api_key=key)
            uri, password = neo4j_target(settings)
            store = await GraphStore.open(
                uri, user=settings.neo4j_user, password=password, database=settings.neo4j_database, apply_schema=False
            )
            try:
                report = await run_reembed(store.conn, new, batch_size=batch_size, progress=progress)
            finally:
                await store.close()
            return {
                "model": report.model,
                "dimensions": report.dimensions,
                "embedded": report.embedded,
                "seconds": round(report.seconds, 3),
                "already": report.already,
            }

        try:
            result = asyncio.run(go())
        except HippographError as exc:
            err.print(f"[red]error:[/red] {exc}")
            raise typer.Exit(1) from None
        if as_json:
            typer.echo(json.dumps(result))
        elif result["already"]:
            typer.echo(f"the database is on {result['model']} ({result['dimensions']} dimensions) already")
        else:
            typer.echo(
                f"re-embedded {result['embedded']} memories with {result['model']} "
                f"({result['dimensions']} dimensions) in {result['seconds']} s"
            )
        sys.stdout.flush()
