"""The local server stops with the process that started it, when asked to: a killed test run
or benchmark leaves no Neo4j behind. It runs with the collector settings of ``GC_FLAGS``."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from hippograph.dbms.local_server import GC_FLAGS, LocalNeo4j, _alive

SCRIPT = """
import sys
from hippograph.dbms.local_server import LocalNeo4j
st = LocalNeo4j(sys.argv[1], heap="512m", pagecache_mb=64, stop_with_parent=True).start(timeout=300)
print(st.pid, flush=True)
import time
time.sleep(600)
"""


def test_a_killed_parent_takes_its_server_down(tmp_path: Path) -> None:
    parent = subprocess.Popen([sys.executable, "-c", SCRIPT, str(tmp_path)], stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        pid = int(parent.stdout.readline())
        assert _alive(pid)
        args = Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")
        assert set(GC_FLAGS) <= set(args)  # G1, promoted after one young collection
    finally:
        parent.kill()
        parent.wait()
    deadline = time.monotonic() + 60
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not _alive(pid)
    assert not LocalNeo4j(tmp_path).status().running
