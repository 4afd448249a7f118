"""One example per command, shown at the end of its ``--help`` (typer's epilog), kept in one
table so that a test can check that no command goes without one."""

from __future__ import annotations

import typer

EXAMPLES: dict[str, str] = {
    "demo": "hippograph demo            # ingest, recall, agent turns, consolidation, then serve until Ctrl-C\n"
    "hippograph demo --no-serve # the same, without serving (CI)",
    "prepare-embedder": "hippograph prepare-embedder   # once, after install (scripts/setup.sh runs it)",
    "ingest": "hippograph ingest chat.json --scope org:acme/user:bob --json",
    "recall": 'hippograph recall "Where does Sam live now?" --scope org:demo/user:sam --tree',
    "consolidate": "hippograph consolidate --scope org:demo/user:sam --mode run --json",
    "forget": "hippograph forget --scope org:demo --yes",
    "reembed": "hippograph reembed --embedder st:./models/paraphrase-multilingual-MiniLM-L12-v2\n"
    "hippograph reembed --embedder openai:text-embedding-3-small --json   # key: OPENAI_API_KEY",
    "doctor": "hippograph doctor --json | jq '.checks[] | select(.status != \"ok\")'",
    "serve": "hippograph serve --port 8000   # GraphiQL at http://127.0.0.1:8000/graphql, dashboard at /",
    "export": "hippograph export --scope org:acme --out acme.jsonl --json\n"
    "hippograph export --scope org:acme --embeddings --out acme.graphml   # for Gephi, yEd, networkx",
    "import": "hippograph import acme.jsonl --json     # or an acme.graphml export",
    "mcp": "hippograph mcp --key hg_…                       # stdio, as an MCP host starts it\n"
    "HIPPOGRAPH_MCP_KEY=hg_… hippograph mcp --http --port 8765  # http://127.0.0.1:8765/mcp, Bearer key",
    "neo4j start": "hippograph neo4j start --browser --json",
    "neo4j stop": "hippograph neo4j stop",
    "neo4j status": "hippograph neo4j status --json",
    "neo4j backup": "hippograph neo4j stop && hippograph neo4j backup ~/backups/hippo",
    "neo4j restore": "hippograph neo4j stop && hippograph neo4j restore ~/backups/hippo",
    "keys create": "hippograph keys create --scope org:acme --role writer --name support-bot --json",
    "keys list": "hippograph keys list --scope org:acme --json",
    "keys revoke": "hippograph keys revoke 3f2a9c0d1e4b5a6c",
}


def command_names(app: typer.Typer, prefix: str = "") -> list[str]:
    """Every command of ``app`` by its full name (``"keys create"``)."""
    names = [prefix + _name(c) for c in app.registered_commands]
    for group in app.registered_groups:
        if group.typer_instance is not None and group.name:
            names += command_names(group.typer_instance, f"{prefix}{group.name} ")
    return names


def add_examples(app: typer.Typer, prefix: str = "") -> None:
    """Set each command's epilog to its example (a command without one keeps none)."""
    for command in app.registered_commands:
        example = EXAMPLES.get(prefix + _name(command))
        if example and not command.epilog:
            command.epilog = "Example:\n\n" + "\n\n".join(f"  {line}" for line in example.splitlines())
    for group in app.registered_groups:
        if group.typer_instance is not None and group.name:
            add_examples(group.typer_instance, f"{prefix}{group.name} ")


def _name(command: typer.models.CommandInfo) -> str:
    if command.name:
        return command.name
    assert command.callback is not None
    return command.callback.__name__.replace("_", "-")
