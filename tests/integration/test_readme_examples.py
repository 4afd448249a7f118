"""The code of README.md and of the docs runs, as a user would run it, against the test Neo4j
(which block runs where: tests/support/pages.py).

A complete example is a python block that runs itself (``asyncio.run(...)``): the examples run in
one fresh interpreter (one namespace each, as separate scripts), from a throwaway folder. Only
three things are substituted, all of them the reader's own set-up: the ``NEO4J_URI`` /
``NEO4J_PASSWORD`` lines become the test server's, ``hg.open_memory()`` finds it through
``HIPPOGRAPH_NEO4J_URI`` / ``HIPPOGRAPH_NEO4J_PASSWORD`` (as the docs say), and the tenant
``"acme"`` gets a unique id so that the examples can never touch data of anyone else.

The other python blocks of the guides are fragments: each page's run in order in one namespace
(top-level ``await`` allowed), given the names the pages take as given — ``memory``, ``store``,
``embedder``, ``scope``, ``model``, ``NEO4J_URI`` … — over the test server and a tenant of the
test's own. The ``hippograph`` command lines of the bash blocks run as a shell runs them (pipes
included), against the test server, with the pages' tenants (``org:acme``, ``org:demo``) made
unique the same way.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

from hippograph.app.demo import sample_turns
from hippograph.embeddings import HashingEmbeddings
from hippograph.memory import Memory
from hippograph.scope import Scope
from hippograph.store import GraphStore
from tests.support.pages import PYTHON, ROOT, blocks, unmarked

README = ROOT / "README.md"
DOCS = ROOT / "docs"
_URI_LINE = re.compile(r"^NEO4J_URI = .*$", re.M)
_PASSWORD_LINE = re.compile(r"^NEO4J_PASSWORD = .*$", re.M)

_RUNNER = """
import contextlib, io, json, sys, traceback
blocks = json.load(sys.stdin)
outputs = []
for i, code in enumerate(blocks):
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(code, f"example {i + 1}", "exec"), {"__name__": "__main__"})
    except BaseException:
        outputs.append({"ok": False, "out": out.getvalue(), "error": traceback.format_exc()})
        break
    outputs.append({"ok": True, "out": out.getvalue()})
print(json.dumps(outputs))
"""


def examples() -> list[tuple[str, str]]:
    """(where, code) of every complete example: README.md first, then the docs pages."""
    pages = [README, *sorted(DOCS.rglob("*.md"))]
    return [(b.where, b.code) for b in blocks(pages) if b.complete and b.marker is None]


def test_the_readme_and_docs_have_examples_starting_from_the_front_door() -> None:
    found = dict(examples())
    assert any(where.startswith("README.md#") for where in found)
    assert {"docs/guides/library.md#1", "docs/guides/library.md#3", "docs/guides/agent.md#1"} <= set(found)
    assert all("import hippograph as hg" in block for block in found.values())
    front = [
        block
        for where, block in found.items()
        if where.startswith(("README", "docs/guides/library", "docs/guides/agent"))
    ]
    assert "from hippograph" not in "".join(front)  # `hg.` is all a reader of the front door needs


def _prepared(block: str, uri: str, password: str, tenant: str) -> str:
    if _URI_LINE.search(block):
        block, uris = _URI_LINE.subn(f"NEO4J_URI = {uri!r}", block)
        block, passwords = _PASSWORD_LINE.subn(f"NEO4J_PASSWORD = {password!r}", block)
        assert uris == passwords == 1, "a block using NEO4J_URI defines it on one line"
    else:
        assert "hg.open_memory()" in block, "a block connects by NEO4J_URI or hg.open_memory()"
    block, tenants = re.subn(r'Scope\.root\("org", "acme"\)', f'Scope.root("org", "{tenant}")', block)
    assert tenants >= 1 and '"acme"' not in block, "examples work in the tenant org:acme"
    return block


async def test_every_python_example_in_the_readme_and_docs_runs(
    neo4j_server: tuple[str, str], store: GraphStore, tmp_path: Path
) -> None:
    uri, password = neo4j_server
    tenant = f"readme-{uuid.uuid4().hex[:12]}"
    code = dict(examples())
    where = list(code)
    blocks = [_prepared(block, uri, password, tenant) for block in code.values()]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]),
        "HIPPOGRAPH_NEO4J_URI": uri,
        "HIPPOGRAPH_NEO4J_PASSWORD": password,
        "HF_HUB_OFFLINE": "1",
        "TOKENIZERS_PARALLELISM": "false",
    }
    try:
        done = subprocess.run(
            [sys.executable, "-c", _RUNNER],
            input=json.dumps(blocks),
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env=env,
            timeout=600,
            check=False,
        )
    finally:
        await store.delete_subtree(Scope.root("org", tenant))
    assert done.returncode == 0, done.stderr[-3000:]
    outputs = json.loads(done.stdout.strip().splitlines()[-1])
    for i, result in enumerate(outputs, start=1):
        assert result["ok"], f"the example {where[i - 1]} failed:\n{result['error']}"
    assert len(outputs) == len(blocks)
    out = {name: result["out"] for name, result in zip(where, outputs, strict=True)}
    print(*(f"--- {name}\n{text}" for name, text in out.items()), sep="\n")  # shown with -s or on failure

    for name, text in out.items():
        recall_lines = [line for line in text.splitlines() if " | " in line]
        if "Bob's city" in code[name]:  # the superseding fact: the current one ranks high
            assert "Porto" in recall_lines[0] or "Porto" in recall_lines[1], text
    readme = out[next(name for name in out if name.startswith("README.md#"))]
    assert "Pixel" in readme  # the ingested turn is recalled
    library = out["docs/guides/library.md#1"]
    assert "Pixel" in library
    assert re.search(r"^completed \d+ phases$", library, re.M), library
    assert re.search(r"^\d+ memories erased$", library, re.M), library
    agent = out["docs/guides/agent.md#1"]
    assert "bacalhau" in agent.splitlines()[-1], agent  # learnt in turn one, recalled in a new session
    capability = out["docs/guides/library.md#3"].splitlines()
    assert capability[0] == "(nothing yet)", capability  # a fresh scope recalls nothing
    assert "Rua Augusta" in capability[1], capability  # the recorded exchange is recalled next turn
    assert (tmp_path / ".hippograph").exists() is False  # open_memory used the given server, started none


_FRAGMENTS = """
import ast, asyncio, contextlib, io, json, sys, traceback
import hippograph
import hippograph as hg
from tests.support.memory_internals import internals

job = json.load(sys.stdin)


async def page_session() -> dict:
    memory = await hg.Memory.connect(job["uri"], password=job["password"])
    return {
        "__name__": "__main__", "asyncio": asyncio, "hg": hg, "hippograph": hippograph,
        "NEO4J_URI": job["uri"], "NEO4J_PASSWORD": job["password"], "uri": job["uri"], "pw": job["password"],
        "memory": memory, "store": internals(memory).store, "embedder": internals(memory).services.embedder,
        "scope": hg.Scope.root("org", job["tenant"]).child("user", "ana"), "model": hg.demo_model(),
    }


async def main() -> None:
    results = []
    for page, codes in job["pages"].items():
        ns = await page_session()
        opened = [ns["memory"]]
        for i, code in enumerate(codes):
            out = io.StringIO()
            try:
                with contextlib.redirect_stdout(out):
                    flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
                    done = eval(compile(code, f"{page} fragment {i + 1}", "exec", flags=flags), ns)
                    if asyncio.iscoroutine(done):
                        await done
            except BaseException:
                results.append({"ok": False, "error": traceback.format_exc()})
                break
            results.append({"ok": True, "out": out.getvalue()})
            if ns.get("memory") is not None and all(ns["memory"] is not m for m in opened):
                opened.append(ns["memory"])  # a fragment connected a memory of its own
        for memory in opened:
            with contextlib.suppress(Exception):
                await memory.close()
    print(json.dumps(results))


asyncio.run(main())
"""


def fragments() -> dict[str, list[tuple[str, str]]]:
    """page → (where, code) of its python blocks that are not complete examples, in order."""
    found: dict[str, list[tuple[str, str]]] = {}
    for block in unmarked(*PYTHON):
        if not block.complete:
            found.setdefault(block.page, []).append((block.where, block.code))
    return found


def _env(uri: str, password: str) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT), os.environ.get("PYTHONPATH", "")]),
        "HIPPOGRAPH_NEO4J_URI": uri,
        "HIPPOGRAPH_NEO4J_PASSWORD": password,
        "HF_HUB_OFFLINE": "1",
        "TOKENIZERS_PARALLELISM": "false",
        "COLUMNS": "160",
    }


async def test_every_fragment_of_the_guides_runs_in_its_page_session(
    neo4j_server: tuple[str, str], store: GraphStore, tmp_path: Path
) -> None:
    uri, password = neo4j_server
    tenant = f"fragments-{uuid.uuid4().hex[:12]}"
    pages = fragments()
    assert {"docs/guides/library.md", "docs/guides/agent.md", "docs/guides/langgraph-store.md"} <= set(pages)
    where = [w for page in pages.values() for w, _ in page]
    codes = {name: [_tenanted(code, tenant) for _, code in page] for name, page in pages.items()}
    job = {"uri": uri, "password": password, "tenant": tenant, "pages": codes}
    try:
        done = subprocess.run(
            [sys.executable, "-c", _FRAGMENTS],
            input=json.dumps(job),
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env=_env(uri, password),
            timeout=600,
            check=False,
        )
    finally:
        await store.delete_subtree(Scope.root("org", tenant))
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads(done.stdout.strip().splitlines()[-1])
    for name, result in zip(where, results, strict=False):
        assert result["ok"], f"the fragment {name} failed:\n{result['error']}"
    assert len(results) == len(where)
    assert "docs/guides/claude-memory-tool.md#1" in where  # the SDK's own backend, imported as the guide says


def _tenanted(code: str, tenant: str) -> str:
    """The pages' example tenants made the test's own."""
    return re.sub(r'"(acme|demo)"', f'"{tenant}"', re.sub(r"\borg:(acme|demo)\b", f"org:{tenant}", code))


def bash_commands() -> list[tuple[str, str]]:
    """(where, command line) of every line of the bash blocks the runner takes."""
    lines = []
    for block in unmarked("bash"):
        for line in block.code.splitlines():
            if line.strip() and not line.lstrip().startswith("#"):
                lines.append((block.where, line))
    return lines


def test_the_bash_blocks_left_to_run_are_hippograph_commands() -> None:
    commands = bash_commands()
    assert commands
    for where, line in commands:  # any other command (pip, curl, a server) is marked in its page
        assert line.startswith("hippograph "), f"{where}: {line!r} is not a hippograph command"


async def test_every_hippograph_command_of_the_pages_runs(
    neo4j_server: tuple[str, str], store: GraphStore, tmp_path: Path
) -> None:
    uri, password = neo4j_server
    tenant = f"commands-{uuid.uuid4().hex[:12]}"
    shims = tmp_path / "bin"
    shims.mkdir()
    hippograph = shims / "hippograph"
    hippograph.write_text(f'#!/bin/sh\nexec {sys.executable} -m hippograph.app.cli "$@"\n')
    hippograph.chmod(0o755)
    env = _env(uri, password) | {
        "PATH": f"{shims}{os.pathsep}{os.environ['PATH']}",
        "HIPPOGRAPH_DATA_DIR": str(tmp_path),
    }
    memory = Memory(store, HashingEmbeddings())
    await memory.ingest(Scope.parse(f"org:{tenant}/user:sam"), sample_turns())  # what the demo leaves
    outputs = {}
    try:
        for where, line in bash_commands():
            done = await asyncio.to_thread(
                subprocess.run,
                ["bash", "-o", "pipefail", "-c", _tenanted(line, tenant)],
                capture_output=True,
                text=True,
                cwd=tmp_path,
                env=env,
                timeout=600,
                check=False,
            )
            assert done.returncode == 0, f"{where}: {line}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
            outputs[line] = done.stdout
    finally:
        await store.delete_subtree(Scope.root("org", tenant))
    print(*(f"$ {line}\n{out}" for line, out in outputs.items()), sep="\n")
    recall = next(out for line, out in outputs.items() if line.startswith("hippograph recall"))
    assert "Porto" in recall, recall
