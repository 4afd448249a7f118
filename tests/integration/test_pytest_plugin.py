"""hippograph's pytest plugin as a host project uses it: pytester runs the testing guide's
example, with the guide's conftest.py (the real embedding model), and a small scope-recording
test file in a pytest of its own (a subprocess, ``-p hippograph.testing``, pytest-asyncio in
strict mode) against the suite's Neo4j, named by ``HIPPOGRAPH_NEO4J_URI``; afterwards the
scopes the host's tests wrote in are gone."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from hippograph.scope import Scope
from hippograph.store import GraphStore

pytest_plugins = ["pytester"]

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guides" / "testing.md"

SCOPE_RECORDER = """
import pytest

from hippograph.memory import Memory, MemoryCapability
from hippograph.scope import Scope


@pytest.mark.asyncio
async def test_writes_in_its_scope(memory: MemoryCapability, hippograph_memory: Memory, memory_scope: Scope) -> None:
    await hippograph_memory.remember(memory_scope, "home city", "Alice lives in Lisbon")
    await memory.record("I moved to Lisbon.", "Noted!")
    assert memory.scope == memory_scope and memory_scope.key.startswith("test:")
    with open("scopes.txt", "a") as out:
        out.write(memory_scope.key + "\\n")


@pytest.mark.asyncio
async def test_each_test_has_its_own_scope(memory: MemoryCapability) -> None:
    assert (await memory.recall("Where does Alice live?")).text == ""
    with open("scopes.txt", "a") as out:
        out.write(memory.scope.key + "\\n")
"""


def _guide_block(after: str) -> str:
    """The first python block of the testing guide after the words ``after``, as the guide prints it."""
    text = GUIDE.read_text()
    block = text.index("```python\n", text.index(after)) + len("```python\n")
    return text[block : text.index("```", block)]


def _guide_example() -> str:
    """The host test file the testing guide tells users to copy."""
    return _guide_block("`tests/test_assistant.py` of a host project:")


EMBEDDER_CHECK = """
from hippograph.embeddings import HashingEmbeddings, default_embedder


def test_the_conftest_gives_the_real_model(hippograph_embedder) -> None:
    assert not isinstance(hippograph_embedder, HashingEmbeddings)
    assert type(hippograph_embedder) is type(default_embedder())
"""


async def test_a_host_test_file_uses_the_fixtures_and_its_scope_is_erased(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    neo4j_server: tuple[str, str],
    store: GraphStore,
) -> None:
    uri, password = neo4j_server
    monkeypatch.setenv("HIPPOGRAPH_NEO4J_URI", uri)
    monkeypatch.setenv("HIPPOGRAPH_NEO4J_PASSWORD", password)
    pytester.makeini("[pytest]\nasyncio_mode = strict\nasyncio_default_fixture_loop_scope = function\n")
    pytester.makepyfile(test_assistant=_guide_example(), test_scopes=SCOPE_RECORDER, test_embedder=EMBEDDER_CHECK)
    pytester.makeconftest(_guide_block("the embedder in your `conftest.py`"))  # the guide's real model

    run = await asyncio.to_thread(
        pytester.runpytest_subprocess, "-p", "hippograph.testing", "-p", "no:cacheprovider", "-q", timeout=300
    )

    run.assert_outcomes(passed=5)
    keys = (pytester.path / "scopes.txt").read_text().split()
    assert len(keys) == 2 and len(set(keys)) == 2
    for key in keys:
        scope = Scope.parse(key)
        assert await store.query_subtree(scope, {"include_retracted": True}) == []
