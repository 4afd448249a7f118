"""Neo4j's offline importer (``neo4j-admin database import full``) on the local server's folder.

It writes a whole new ``neo4j`` database from CSV files many times faster than transactions
can, with the server stopped; the indexes are built afterwards, once, over the loaded data.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

from hippograph.dbms.java_runtime import find_java
from hippograph.dbms.local_server import JVM_FLAGS, LocalNeo4j
from hippograph.errors import BulkImportError, ConflictError

ADMIN_TOOL = "org.neo4j.cli.AdminTool"


def admin_import(
    server: LocalNeo4j,
    nodes: Sequence[Path | str],
    relationships: Sequence[Path | str],
    *,
    threads: int | None = None,
    heap: str = "1g",
) -> Path:
    """Replace the stopped ``server``'s ``neo4j`` database with the graph of the CSV files: each
    a file that begins with its header line, or a header file and data files joined by commas.
    Returns the importer's log file.

    Raises:
        ConflictError: The server is running.
        BulkImportError: The importer failed (its log says why).
    """
    if server.status().running:
        raise ConflictError(f"the local Neo4j of {server.data_dir} is running: stop it before an offline import")
    build = server.build()
    home = server.data_dir / "home"
    (home / "conf").mkdir(parents=True, exist_ok=True)
    (home / "conf" / "neo4j.conf").touch()
    log = server.data_dir / "import.log"
    cmd = [find_java(server.neo4j_version), f"-Xmx{heap}", *JVM_FLAGS]
    cmd += ["-cp", str(build / "target" / "lib" / "*"), ADMIN_TOOL, "database", "import", "full", "neo4j"]
    cmd += ["--overwrite-destination", "--multiline-fields=true", f"--threads={threads or os.cpu_count() or 2}"]
    cmd += [f"--report-file={server.data_dir / 'import.report'}"]
    cmd += [f"--nodes={path}" for path in nodes]
    cmd += [f"--relationships={path}" for path in relationships]
    env = {"NEO4J_HOME": str(home), "NEO4J_CONF": str(home / "conf"), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    with log.open("w") as out:
        done = subprocess.run(cmd, env=env, stdout=out, stderr=subprocess.STDOUT, check=False)
    if done.returncode:
        tail = "\n".join(log.read_text(errors="replace").splitlines()[-15:])
        raise BulkImportError(f"neo4j-admin database import failed (exit {done.returncode}); see {log}:\n{tail}")
    server.version_file.write_text(server.neo4j_version + "\n")
    return log
