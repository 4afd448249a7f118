"""Stop the kept server of DATA_DIR and start it again with other GC flags (experiments only).
Usage: restart_with.py DATA_DIR HEAP PAGECACHE_MB FLAG…  ('-' alone: the launcher's own flags)."""
import sys
from pathlib import Path
import hippograph.store.local_server as ls

d, heap, pc, *flags = sys.argv[1:]
server = ls.LocalNeo4j(Path(d), heap=heap, pagecache_mb=int(pc))
server.stop()
if flags != ["-"]:
    ls.JVM_FLAGS = tuple(f for f in ls.JVM_FLAGS if f != "-XX:+UseG1GC") + tuple(flags)
status = server.start(timeout=600)
print("started", status.pid, ls.JVM_FLAGS)
