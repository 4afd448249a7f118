"""Scratch: start a 5.26 (default launcher) or 2026.08.1 (/tmp/speed/l2026) server."""
import os
from pathlib import Path
from hippograph.store import LocalNeo4j

T25 = "/usr/lib/jvm/temurin-25-jdk-amd64"

class Neo2026(LocalNeo4j):
    def build(self, *, quiet: bool = True) -> Path:
        return Path("/tmp/speed/l2026")

def server(version: str, data: str, heap="2g", pc=1536) -> LocalNeo4j:
    if version == "2026":
        os.environ["JAVA_HOME"] = T25
        s = Neo2026(data, heap=heap, pagecache_mb=pc)
    else:
        os.environ.pop("JAVA_HOME", None)
        s = LocalNeo4j(data, heap=heap, pagecache_mb=pc)
    s.start(timeout=400)
    return s
