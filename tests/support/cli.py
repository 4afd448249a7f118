"""Running the ``hippograph`` command as a user does: a subprocess of this Python, pointed at
the test Neo4j, with its own data folder and the embedding model offline."""

from __future__ import annotations

import os
import sys
from pathlib import Path

CLI = [sys.executable, "-m", "hippograph.app.cli"]


def cli_env(neo4j_server: tuple[str, str], tmp_path: Path) -> dict[str, str]:
    uri, password = neo4j_server
    return {
        **os.environ,
        "HIPPOGRAPH_NEO4J_URI": uri,
        "HIPPOGRAPH_NEO4J_PASSWORD": password,
        "HIPPOGRAPH_DATA_DIR": str(tmp_path),
        "HF_HUB_OFFLINE": "1",
        "COLUMNS": "160",
    }
