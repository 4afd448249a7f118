"""``hippograph mcp`` — the MCP server for one API key, over stdio (default) or streamable HTTP.
Only typer is imported here; the SDK, the memory and the embedder load when the command runs."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

import typer
from rich.console import Console

from hippograph.errors import HippographError

if TYPE_CHECKING:
    from hippograph.embeddings.base import EmbeddingProvider

err = Console(stderr=True)  # stdout is the protocol's channel over stdio: nothing else goes there


def mcp(
    key: str = typer.Option(
        ...,
        "--key",
        envvar="HIPPOGRAPH_MCP_KEY",
        help="The API key the server acts for (`hippograph keys create`); its scope bounds every tool.",
        show_default=False,
    ),
    http: bool = typer.Option(False, "--http", help="Serve streamable HTTP on 127.0.0.1 instead of stdio."),
    port: int = typer.Option(8765, "--port", min=1, max=65535, help="Port for --http."),
    embedder: str = typer.Option("minilm", help="minilm (real) or hashing (tiny stand-in, tests only)."),
    log_level: str = typer.Option("warning", help="uvicorn log level for --http."),
) -> None:
    """Serve hippograph's memory to an MCP host: recall (every item explained), remember, retract,
    set_trigger, pending_triggers, consolidate — all bound to one API key's scope."""
    import anyio

    from hippograph.app.mcp.server import build_server, run_http
    from hippograph.app.settings import Settings

    if embedder not in ("minilm", "hashing"):
        err.print("[red]error:[/red] --embedder must be minilm or hashing")
        raise typer.Exit(2)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    server = build_server(key.strip(), Settings(), embedder=_embedder(embedder))
    try:
        if http:
            err.print(f"MCP over streamable HTTP at http://127.0.0.1:{port}/mcp (send the key as a Bearer token)")
            run_http(server, key.strip(), port, log_level=log_level)
        else:
            anyio.run(server.run_stdio_async)
    except HippographError as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(1) from None
    except BaseExceptionGroup as group:
        first = _first_library_error(group)
        if first is None:
            raise
        err.print(f"[red]error:[/red] {first}")
        raise typer.Exit(1) from None
    sys.stderr.flush()


def _embedder(name: str) -> EmbeddingProvider:
    if name == "hashing":
        from hippograph.embeddings import HashingEmbeddings

        return HashingEmbeddings()
    from hippograph.embeddings import SentenceTransformerEmbeddings

    return SentenceTransformerEmbeddings()


def _first_library_error(group: BaseExceptionGroup[BaseException]) -> HippographError | None:
    for exc in group.exceptions:
        if isinstance(exc, HippographError):
            return exc
        if isinstance(exc, BaseExceptionGroup):
            found = _first_library_error(exc)
            if found is not None:
                return found
    return None


def register(app: typer.Typer) -> None:
    """Add ``hippograph mcp`` to the CLI."""
    app.command("mcp")(mcp)
