"""The ``hippograph`` command line."""

from __future__ import annotations

import typer
from rich.console import Console

from hippograph.cli_neo4j import neo4j_app

app = typer.Typer(no_args_is_help=True, help="hippograph: long-term memory for LLM agents, in Neo4j.")
app.add_typer(neo4j_app, name="neo4j")
console = Console()

if __name__ == "__main__":  # pragma: no cover
    app()
