"""A local Neo4j without Docker: the embedded Community DBMS of ``launcher/`` (pom + one
class), built once with Maven into a cache folder and run as a managed background process.

State lives in the data folder: ``password`` (generated, 0600), ``neo4j.pid``, ``neo4j.json``
(uri, port, pid, browser_url), ``neo4j.log`` and the database under ``home/``.

Backup and restore are offline copies of ``home/`` taken with the server stopped
(:meth:`LocalNeo4j.backup`, :meth:`LocalNeo4j.restore`): the embedded launcher ships Neo4j's
kernel jars from Maven Central, not the ``neo4j-admin`` tool of the server distribution, so
``neo4j-admin database dump/load`` is not available here. A stopped server has checkpointed,
so the copy is consistent; a copy of a running (or killed) server is refused.

With a :class:`BrowserSetup` the server also opens its HTTP connector on the same loopback host
and serves Neo4j Browser (unpacked from Maven Central's ``org.neo4j.client:neo4j-browser`` at
build time) at ``/browser/``, plus the setup's own files at ``/browser/hippograph/``. Without one,
HTTP stays off.

The Neo4j version is the pom's (2026.x) unless ``neo4j_version`` names another (the 5.26 LTS line,
``HIPPOGRAPH_NEO4J_VERSION=5.26.31``): each version is built into a folder of its own and runs on
the Java it needs (:func:`~hippograph.dbms.java_runtime.java_range`). A data folder remembers the
version that last ran it (``home/neo4j-version``), and an older line is refused there: Neo4j
cannot open a store a newer version wrote.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib.resources import as_file, files
from pathlib import Path
from typing import Any

from hippograph.dbms.java_runtime import find_java, find_runtime, vector_flags
from hippograph.errors import ConfigurationError, ConflictError, InvalidInputError, StoreUnavailableError

READY_LINE = "HIPPOGRAPH_NEO4J_READY"
DEFAULT_NEO4J_VERSION = "2026.08.1"
"""The launcher pom's ``neo4j.version`` (a unit test holds the two together)."""
OLDEST_NEO4J = (5, 26)
LTS_JAVA_RELEASE = "17"
"""The class-file level the launcher is compiled for on the 5.x line (the pom's is 21)."""
_VERSION = re.compile(r"(\d+)\.(\d+)\.(\d+)")
BROWSER_FILES = "hippograph"
"""The folder under ``/browser/`` that serves a :class:`BrowserSetup`'s files."""
MAIN_CLASS = "io.hippograph.launcher.Launcher"
JVM_FLAGS = (
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-XX:+ExitOnOutOfMemoryError",
    "-XX:-OmitStackTraceInFastThrow",
)
"""``-OmitStackTraceInFastThrow``: the JIT otherwise throws a message-less exception once a failure
repeats at a hot site, and Neo4j 2026.08's Bolt server cannot send a failure without a message: the
client's query then hangs instead of failing (seen with the vector index's internal error)."""
GC_FLAGS = ("-XX:+UseG1GC", "-XX:MaxTenuringThreshold=1")
"""G1, objects promoted after surviving one young collection. With G1's default (promotion after
up to 15) every young collection copied the same ≈ 25 MB of middle-aged objects again (≈ 90 % of
the pause), stopping the server 30–70 ms every few seconds of recall traffic: one recall in 30–50
waited behind a pause. Promoted at once, they are copied once."""


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "hippograph"


def neo4j_line(version: str) -> tuple[int, int]:
    """``"5.26.31"`` → ``(5, 26)``.

    Raises:
        InvalidInputError: Not a release number (``5.26.31``, ``2026.08.1``), or older than 5.26.
    """
    found = _VERSION.fullmatch(version.strip())
    if found is None:
        raise InvalidInputError("neo4j_version", f"{version!r} is not a Neo4j release such as 5.26.31 or 2026.08.1")
    line = (int(found.group(1)), int(found.group(2)))
    if line < OLDEST_NEO4J:
        raise InvalidInputError("neo4j_version", f"{version} is older than 5.26, the oldest Neo4j hippograph runs on")
    return line


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


@dataclass(frozen=True)
class BrowserSetup:
    """Neo4j Browser on the local server (HTTP on the server's loopback host only).

    ``files`` (name → text) are served at ``/browser/hippograph/<name>``; ``post_connect`` is
    Browser's ``browser.post_connect_cmd`` (commands without their colon, ``;``-separated), in
    which ``{files_url}`` stands for the URL of those files."""

    http_port: int | None = None
    """HTTP port (default: a free one)."""
    files: Mapping[str, str] = field(default_factory=dict)
    post_connect: str = ""


@dataclass(frozen=True)
class ServerStatus:
    running: bool
    ready: bool
    pid: int | None
    uri: str | None
    data_dir: Path
    log_file: Path
    browser_url: str | None = None
    """Neo4j Browser's address when the server runs with it."""
    neo4j_version: str | None = None
    """The Neo4j version running (None when stopped)."""

    def describe(self) -> str:
        if not self.running:
            return f"stopped (data in {self.data_dir})"
        state = "ready" if self.ready else "starting"
        browser = f"; Neo4j Browser at {self.browser_url}" if self.browser_url else ""
        version = f"Neo4j {self.neo4j_version} " if self.neo4j_version else ""
        return f"{version}{state} at {self.uri} (pid {self.pid}, data in {self.data_dir}){browser}"


class LocalNeo4j:
    """Build, start, stop and inspect the local Neo4j of one data folder."""

    def __init__(
        self,
        data_dir: Path | str,
        *,
        port: int | None = None,
        host: str = "127.0.0.1",
        heap: str = "1g",
        pagecache_mb: int = 256,
        tx_max_mb: int = 512,
        cache_dir: Path | None = None,
        stop_with_parent: bool = False,
        browser: BrowserSetup | None = None,
        neo4j_version: str | None = None,
    ) -> None:
        self.data_dir = Path(data_dir).expanduser().resolve()
        self.host = host
        self.port = port
        self.heap = heap
        self.pagecache_mb = pagecache_mb
        self.tx_max_mb = tx_max_mb
        self.cache_dir = cache_dir or default_cache_dir()
        self.stop_with_parent = stop_with_parent
        """Stop the server when this Python process is gone (tests, benchmarks)."""
        self.browser = browser
        """Serve Neo4j Browser over HTTP (on ``host`` only) when set."""
        version = (neo4j_version or "").strip() or DEFAULT_NEO4J_VERSION
        neo4j_line(version)  # refuse a malformed or too old version before anything is built
        self.neo4j_version = version
        """The Neo4j release built and run (default: the pom's, :data:`DEFAULT_NEO4J_VERSION`)."""

    @property
    def lts(self) -> bool:
        """True for the 5.x line (Java 17–21, compiled for Java 17)."""
        return neo4j_line(self.neo4j_version) < (2025, 1)

    # -- files ---------------------------------------------------------------------------
    @property
    def pid_file(self) -> Path:
        return self.data_dir / "neo4j.pid"

    @property
    def state_file(self) -> Path:
        return self.data_dir / "neo4j.json"

    @property
    def log_file(self) -> Path:
        return self.data_dir / "neo4j.log"

    @property
    def password_file(self) -> Path:
        return self.data_dir / "password"

    @property
    def version_file(self) -> Path:
        """The Neo4j version that last ran this data folder's database."""
        return self.data_dir / "home" / "neo4j-version"

    def password(self) -> str:
        """The generated password of this data folder (created on first use)."""
        if not self.password_file.exists():
            self.data_dir.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.password_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as fh:
                fh.write(secrets.token_urlsafe(24))
        return self.password_file.read_text().strip()

    # -- build ---------------------------------------------------------------------------
    def build(self, *, quiet: bool = True) -> Path:
        """Build the launcher once (cached by a hash of its sources); return its folder."""
        source = files("hippograph").joinpath("dbms", "launcher")
        with as_file(source) as src:
            src_path = Path(src)
            target = self._launcher_dir(src_path)
            if self._is_built(target):
                return target
            mvn = shutil.which("mvn")
            if mvn is None:
                raise ConfigurationError(
                    "Maven (mvn) is needed once to build the local Neo4j launcher: "
                    "install it (e.g. `apt-get install maven`) or set HIPPOGRAPH_NEO4J_URI"
                )
            jdk = find_runtime(jdk=True, neo4j_version=self.neo4j_version)  # fail early with a clear message
            tmp = target.with_name(target.name + f".tmp{os.getpid()}")
            shutil.rmtree(tmp, ignore_errors=True)
            shutil.copytree(src_path, tmp, ignore=shutil.ignore_patterns("target"))
            cmd = [mvn, "-B", "package", "-DskipTests", f"-Dneo4j.version={self.neo4j_version}"]
            cmd += [f"-Dmaven.compiler.release={LTS_JAVA_RELEASE}"] if self.lts else []
            cmd += ["-q"] if quiet else []
            env = {**os.environ, "JAVA_HOME": str(jdk.home)}  # Maven compiles with this JDK's javac
            proc = subprocess.run(cmd, cwd=tmp, env=env, capture_output=quiet, text=True, check=False)
            if proc.returncode != 0:
                tail = (proc.stdout or "")[-3000:] + (proc.stderr or "")[-2000:]
                raise ConfigurationError(f"building the Neo4j launcher failed:\n{tail}")
            if target.exists():  # another process won the race
                shutil.rmtree(tmp, ignore_errors=True)
            else:
                tmp.rename(target)
            return target

    def built_launcher(self) -> Path | None:
        """The launcher's folder when this version of it is already built (no Maven needed)."""
        with as_file(files("hippograph").joinpath("dbms", "launcher")) as src:
            target = self._launcher_dir(Path(src))
        return target if self._is_built(target) else None

    def _launcher_dir(self, sources: Path) -> Path:
        """One folder per launcher source and Neo4j version (the default's keeps its old name)."""
        suffix = "" if self.neo4j_version == DEFAULT_NEO4J_VERSION else f"-neo4j-{self.neo4j_version}"
        return self.cache_dir / f"launcher-{_tree_digest(sources)}{suffix}"

    @staticmethod
    def _is_built(target: Path) -> bool:
        return all((target / "target" / part).is_dir() for part in ("lib", "classes", "browser-root"))

    # -- lifecycle -----------------------------------------------------------------------
    def status(self) -> ServerStatus:
        state = self._read_state() or {}
        pid = state.get("pid")
        running = pid is not None and _alive(pid)
        uri = state.get("uri")
        ready = running and uri is not None and _bolt_answers(self.host, int(state["port"]))
        browser_url = state.get("browser_url") if running else None
        version = state.get("neo4j_version") if running else None
        return ServerStatus(
            running, ready, pid if running else None, uri, self.data_dir, self.log_file, browser_url, version
        )

    def start(self, *, timeout: float = 180.0) -> ServerStatus:
        """Start (building first if needed) and wait until Bolt answers. Idempotent.

        Raises:
            ConfigurationError: Browser was asked for but the server already runs without it.
        """
        current = self.status()
        if current.running:
            if current.neo4j_version not in (None, self.neo4j_version):
                raise ConfigurationError(
                    f"the local Neo4j of {self.data_dir} already runs Neo4j {current.neo4j_version}, not "
                    f"{self.neo4j_version}: stop it first (hippograph neo4j stop), or use another --data-dir"
                )
            if self.browser is not None and current.browser_url is None:
                raise ConfigurationError(
                    f"the local Neo4j of {self.data_dir} already runs without Neo4j Browser: "
                    "stop it first (hippograph neo4j stop), then start it with --browser"
                )
            if not current.ready:
                self._wait_ready(current.pid or 0, int((self._read_state() or {})["port"]), timeout)
            return self.status()
        self._refuse_older_line()
        build_dir = self.build()
        port = self.port or free_port(self.host)
        self.password()  # generated on first start, read by the launcher
        home = self.data_dir / "home"
        home.mkdir(parents=True, exist_ok=True)
        self.version_file.write_text(self.neo4j_version + "\n")
        parts = [build_dir / "target" / "classes", build_dir / "target" / "lib" / "*"]
        browser_args: list[str] = []
        browser_url = None
        if self.browser is not None:
            root = build_dir / "target" / "browser-root"
            _write_browser_files(root / "browser" / BROWSER_FILES, self.browser.files)
            parts.append(root)
            http_port = self.browser.http_port or free_port(self.host)
            browser_url = f"http://{self.host}:{http_port}/browser/"
            post_connect = self.browser.post_connect.replace("{files_url}", browser_url + BROWSER_FILES)
            browser_args = ["--http-port", str(http_port), "--browser-post-connect", post_connect]
        classpath = os.pathsep.join(str(p) for p in parts)
        java = find_java(self.neo4j_version)
        cmd = [
            java,
            f"-Xms{self.heap}",
            f"-Xmx{self.heap}",
            *JVM_FLAGS,
            *GC_FLAGS,
            *vector_flags(java),
            "-cp",
            classpath,
            MAIN_CLASS,
            "--home",
            str(home),
            "--host",
            self.host,
            "--port",
            str(port),
            "--password-file",
            str(self.password_file),
            "--pagecache",
            str(self.pagecache_mb << 20),
            "--tx-max",
            str(self.tx_max_mb << 20),
        ]
        cmd += browser_args
        if self.stop_with_parent:
            cmd += ["--parent-pid", str(os.getpid())]
        since = self.log_file.stat().st_size if self.log_file.exists() else 0  # an earlier run's ready line is not ours
        log = open(self.log_file, "ab")  # noqa: SIM115 — handed to the child process
        try:
            proc = subprocess.Popen(
                cmd,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
                cwd=self.data_dir,
            )
        finally:
            log.close()
        uri = f"bolt://{self.host}:{port}"
        self.pid_file.write_text(str(proc.pid))
        state = {"pid": proc.pid, "port": port, "uri": uri, "browser_url": browser_url}
        state["neo4j_version"] = self.neo4j_version
        self.state_file.write_text(json.dumps(state))
        self._wait_ready(proc.pid, port, timeout, since=since)
        return self.status()

    def stop(self, *, timeout: float = 60.0) -> bool:
        """SIGTERM, wait for a clean shutdown, SIGKILL after ``timeout``. True if it was running."""
        state = self._read_state()
        pid = state.get("pid") if state else None
        was_running = pid is not None and _alive(pid)
        if was_running and pid is not None:
            os.kill(pid, signal.SIGTERM)
            deadline = time.monotonic() + timeout
            while _alive(pid) and time.monotonic() < deadline:
                time.sleep(0.2)
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
                while _alive(pid):
                    time.sleep(0.1)
        for f in (self.pid_file, self.state_file):
            f.unlink(missing_ok=True)
        return was_running

    def backup(self, target: Path | str) -> Path:
        """Copy the stopped server's database (``home/``) into the new folder ``target``.

        Raises:
            ConflictError: The server is running (stop it first: a live copy could be torn).
            InvalidInputError: ``target`` exists already.
        """
        self._refuse_while_running("back up")
        destination = Path(target).expanduser().resolve()
        if destination.exists():
            raise InvalidInputError("target", f"{destination} exists already; a backup goes into a new folder")
        shutil.copytree(self.data_dir / "home", destination / "home", symlinks=True)
        return destination

    def restore(self, source: Path | str) -> None:
        """Replace the stopped server's database with the backup in ``source`` (made by
        :meth:`backup`); the old database is removed only once the copy is complete.

        Raises:
            ConflictError: The server is running.
            InvalidInputError: ``source`` holds no backup.
        """
        self._refuse_while_running("restore")
        backup = Path(source).expanduser().resolve() / "home"
        if not backup.is_dir():
            raise InvalidInputError("source", f"{backup} is not a backup made by `hippograph neo4j backup`")
        home = self.data_dir / "home"
        incoming, outgoing = home.with_name("home.restoring"), home.with_name("home.replaced")
        shutil.rmtree(incoming, ignore_errors=True)
        shutil.copytree(backup, incoming, symlinks=True)
        if home.exists():
            home.rename(outgoing)
        incoming.rename(home)
        shutil.rmtree(outgoing, ignore_errors=True)

    def _refuse_older_line(self) -> None:
        """A database written by a newer Neo4j line cannot be opened by an older one."""
        try:
            before = self.version_file.read_text().strip()
            wrote = neo4j_line(before)
        except (FileNotFoundError, InvalidInputError):
            return
        if wrote > neo4j_line(self.neo4j_version):
            raise ConfigurationError(
                f"the database in {self.data_dir} was last run by Neo4j {before}, which Neo4j "
                f"{self.neo4j_version} cannot open: use another data folder (--data-dir) for {self.neo4j_version}"
            )

    def _refuse_while_running(self, action: str) -> None:
        if self.status().running:
            raise ConflictError(f"the local Neo4j of {self.data_dir} is running: stop it before you {action}")

    def uri(self) -> str:
        state = self._read_state()
        if not state:
            raise StoreUnavailableError(f"(local, {self.data_dir})", "the local Neo4j is not running")
        return str(state["uri"])

    def _wait_ready(self, pid: int, port: int, timeout: float, *, since: int = 0) -> None:
        """Wait for this process's ready line (in the log after byte ``since``) and Bolt."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not _alive(pid):
                raise StoreUnavailableError(
                    f"bolt://{self.host}:{port}",
                    f"the local Neo4j exited during start-up; last log lines:\n{self._log_tail()}",
                )
            if READY_LINE in self._log_since(since) and _bolt_answers(self.host, port):
                return
            time.sleep(0.25)
        raise StoreUnavailableError(
            f"bolt://{self.host}:{port}", f"not ready after {timeout:.0f}s; see {self.log_file}"
        )

    def _log_since(self, offset: int) -> str:
        try:
            with self.log_file.open("rb") as fh:
                fh.seek(offset)
                return fh.read().decode(errors="replace")
        except FileNotFoundError:
            return ""

    def _log_tail(self, lines: int = 30) -> str:
        try:
            text = self.log_file.read_text(errors="replace")
        except FileNotFoundError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def _read_state(self) -> dict[str, Any] | None:
        try:
            data = json.loads(self.state_file.read_text())
        except (FileNotFoundError, json.JSONDecodeError):
            return None
        return data if isinstance(data, dict) else None


def _write_browser_files(folder: Path, files: Mapping[str, str]) -> None:
    """Write Browser's extra files, each atomically (another start may be reading them)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        if "/" in name or name.startswith("."):
            raise ConfigurationError(f"a Browser file name must be a plain file name, got {name!r}")
        tmp = folder / f".{name}.{os.getpid()}"
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, folder / name)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie child counts as gone
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(") ")[-1][:1] != "Z"
    except OSError:
        return sys.platform != "linux"


def _bolt_answers(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


def _tree_digest(root: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file() and "target" not in p.parts):
        h.update(str(path.relative_to(root)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:12]
