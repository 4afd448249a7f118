"""A Neo4j of its own that a test may SIGKILL and start again on the same data folder and port
(never the session server the other tests share)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from hippograph.dbms import LocalNeo4j
from hippograph.dbms.local_server import free_port


class CrashableNeo4j:
    """The embedded server, killed the hard way (no shutdown, no checkpoint) and restarted."""

    def __init__(self, folder: Path) -> None:
        self.server = LocalNeo4j(folder, port=free_port(), heap="768m", pagecache_mb=64, stop_with_parent=True)
        self.kills = 0

    @property
    def uri(self) -> str:
        return f"bolt://127.0.0.1:{self.server.port}"

    @property
    def password(self) -> str:
        return self.server.password()

    @property
    def pid(self) -> int:
        pid = self.server.status().pid
        assert pid is not None, "the crashable Neo4j is not running"
        return pid

    def start(self) -> None:
        self.server.start(timeout=300)

    def kill(self) -> None:
        """SIGKILL the server process and wait until it is gone."""
        pid = self.pid
        os.kill(pid, signal.SIGKILL)
        while self.server.status().running:
            time.sleep(0.05)
        self.kills += 1

    def stop(self) -> None:
        self.server.stop()
