"""The Java the local Neo4j is built and run with.

Neo4j 2026.x needs Java 21 or newer; the 5.26 LTS line runs on Java 17 or 21
(:func:`java_range`). The first of these whose version fits is used:
``$HIPPOGRAPH_JAVA_HOME``, ``$JAVA_HOME``, ``java`` on PATH, then the JDKs under
``/usr/lib/jvm`` (``$HIPPOGRAPH_JVM_DIR`` when set; newest first) — so a machine whose default
``java`` is 17 still finds a JDK 21 installed beside it for 2026.x, and one whose default is 25
finds a 17 or 21 for 5.26. Building the launcher needs a full JDK
(``javac``); running it needs only ``java``. Lucene's vector instructions are switched on
(``--add-modules=jdk.incubator.vector``)
when the runtime has that module: jlinked runtimes without it refuse to start with the flag, so
the module list is probed, not the version.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from hippograph.errors import ConfigurationError

MIN_JAVA = 21
"""Neo4j 2026.x (the launcher's ``org.neo4j:neo4j``) is compiled for Java 21."""
LTS_JAVA = (17, 21)
"""The Java versions Neo4j 5.26 supports."""
JVM_SEARCH_DIR = "/usr/lib/jvm"
VECTOR_MODULE = "jdk.incubator.vector"
INSTALL_HINT = (
    f"install a JDK {MIN_JAVA}+ (e.g. `apt-get install openjdk-21-jdk-headless` on Ubuntu 24.04 / Debian 13, "
    "or Temurin 21/25 from adoptium.net) and set HIPPOGRAPH_JAVA_HOME (or JAVA_HOME) to it"
)


@dataclass(frozen=True)
class JavaRuntime:
    java: Path
    """The ``java`` executable."""
    major: int
    has_javac: bool
    """A full JDK: it can build the launcher."""

    @property
    def home(self) -> Path:
        return self.java.resolve().parent.parent


def java_version(java: str | Path) -> int | None:
    """The major version ``java -version`` reports (``"21.0.9"`` → 21, ``"1.8.0"`` → 8)."""
    try:
        out = subprocess.run([str(java), "-version"], capture_output=True, text=True, timeout=30, check=False)
    except OSError:
        return None
    found = re.search(r'version "(\d+)(?:\.(\d+))?', out.stderr + out.stdout)
    if not found:
        return None
    major = int(found.group(1))
    return int(found.group(2) or 0) if major == 1 else major


def _candidates() -> list[Path]:
    out: list[Path] = []
    for var in ("HIPPOGRAPH_JAVA_HOME", "JAVA_HOME"):
        if home := os.environ.get(var):
            out.append(Path(home) / "bin" / "java")
    if on_path := shutil.which("java"):
        out.append(Path(on_path))
    jvm_dir = Path(os.environ.get("HIPPOGRAPH_JVM_DIR") or JVM_SEARCH_DIR)
    if jvm_dir.is_dir():
        homes = sorted((p for p in jvm_dir.iterdir() if not p.is_symlink()), key=_version_key, reverse=True)
        out += [h / "bin" / "java" for h in homes]
    return out


def _version_key(home: Path) -> tuple[int, str]:
    found = re.search(r"(\d+)", home.name)
    return (int(found.group(1)) if found else 0, home.name)


@functools.cache
def _runtimes() -> tuple[JavaRuntime, ...]:
    seen: set[Path] = set()
    out = []
    for java in _candidates():
        if not java.is_file() or java.resolve() in seen:
            continue
        seen.add(java.resolve())
        major = java_version(java)
        if major is not None:
            out.append(JavaRuntime(java, major, (java.resolve().parent / "javac").is_file()))
    return tuple(out)


def java_range(neo4j_version: str | None = None) -> tuple[int, int | None]:
    """(lowest, highest or None) Java major version that runs ``neo4j_version`` (None: the
    launcher's default, 2026.x): 17–21 for the 5.x line, 21+ for the calendar releases."""
    major = (neo4j_version or "").split(".")[0]
    return LTS_JAVA if major.isdigit() and int(major) < 2025 else (MIN_JAVA, None)


def find_runtime(*, jdk: bool = False, neo4j_version: str | None = None) -> JavaRuntime:
    """The first Java in the search order that runs ``neo4j_version`` (:func:`java_range`;
    None: 2026.x, Java 21+), with ``javac`` when ``jdk``.

    Raises:
        ConfigurationError: None found; the message names what was found and what to install.
    """
    low, high = java_range(neo4j_version)
    found = _runtimes()
    for runtime in found:
        fits = runtime.major >= low and (high is None or runtime.major <= high)
        if fits and (runtime.has_javac or not jdk):
            return runtime
    seen = ", ".join(f"Java {r.major} at {r.java}" for r in found) or "no java at all"
    wanted = f"{low}+" if high is None else f"{low}–{high}"
    need = f"a JDK {wanted} (with javac) to build" if jdk else f"Java {wanted} to run"
    line = neo4j_version or "2026.x"
    hint = (
        INSTALL_HINT
        if high is None
        else (
            f"install a JDK {low} or {high} (e.g. `apt-get install openjdk-17-jdk-headless`) "
            "and set HIPPOGRAPH_JAVA_HOME (or JAVA_HOME) to it"
        )
    )
    raise ConfigurationError(f"the local Neo4j ({line}) needs {need} it; found {seen}: {hint}")


def find_java(neo4j_version: str | None = None) -> str:
    """The ``java`` the launcher runs on (see the module docstring for the search order)."""
    return str(find_runtime(neo4j_version=neo4j_version).java)


@functools.cache
def has_module(java: str, module: str) -> bool:
    """Whether the runtime lists ``module`` (``java --list-modules``)."""
    try:
        out = subprocess.run([java, "--list-modules"], capture_output=True, text=True, timeout=60, check=False)
    except OSError:
        return False
    return any(line.split("@")[0].strip() == module for line in out.stdout.splitlines())


def vector_flags(java: str) -> list[str]:
    """``--add-modules=jdk.incubator.vector`` when the runtime has it (Lucene's SIMD path), else none."""
    return [f"--add-modules={VECTOR_MODULE}"] if has_module(java, VECTOR_MODULE) else []
