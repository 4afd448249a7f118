"""Every complete ```python example of README.md and of docs/ runs, as a user would run it,
against the test Neo4j.

A complete example is a block that runs itself (``asyncio.run(...)``); the shorter fragments of
the concept pages are not programs. The examples run in one fresh interpreter (one namespace
each, as separate scripts), from a throwaway folder. Only three things are substituted, all of
them the reader's own set-up: the ``NEO4J_URI`` / ``NEO4J_PASSWORD`` lines become the test
server's, ``hg.open_memory()`` finds it through ``HIPPOGRAPH_NEO4J_URI`` /
``HIPPOGRAPH_NEO4J_PASSWORD`` (as the docs say), and the
tenant ``"acme"`` gets a unique id so that the examples can never touch data of anyone else.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

from hippograph.scope import Scope
from hippograph.store import GraphStore

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
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
    found = []
    for page in [README, *sorted(DOCS.rglob("*.md"))]:
        name = page.relative_to(ROOT).as_posix()
        blocks = _BLOCK.findall(page.read_text(encoding="utf-8"))
        found += [(f"{name}#{i + 1}", block) for i, block in enumerate(blocks) if "asyncio.run(" in block]
    return found


def test_the_readme_and_docs_have_examples_starting_from_the_front_door() -> None:
    found = dict(examples())
    assert any(where.startswith("README.md#") for where in found)
    assert {"docs/guides/library.md#1", "docs/guides/library.md#2", "docs/guides/agent.md#1"} <= set(found)
    assert all("import hippograph as hg" in block for block in found.values())
    assert "from hippograph" not in "".join(found.values())  # `hg.` is all a reader needs


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
    capability = out["docs/guides/library.md#2"].splitlines()
    assert capability[0] == "(nothing yet)", capability  # a fresh scope recalls nothing
    assert "Rua Augusta" in capability[1], capability  # the recorded exchange is recalled next turn
    assert (tmp_path / ".hippograph").exists() is False  # open_memory used the given server, started none
