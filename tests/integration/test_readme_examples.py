"""Every ```python block of README.md runs, as a user would run it, against the test Neo4j.

The blocks run in one fresh interpreter (one namespace each, as separate scripts), from a
throwaway folder. Only three things are substituted, all of them the reader's own set-up: the
``NEO4J_URI`` / ``NEO4J_PASSWORD`` lines become the test server's, ``hg.open_memory()`` finds it
through ``HIPPOGRAPH_NEO4J_URI`` / ``HIPPOGRAPH_NEO4J_PASSWORD`` (as the README says), and the
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
            exec(compile(code, f"README.md python block {i + 1}", "exec"), {"__name__": "__main__"})
    except BaseException:
        outputs.append({"ok": False, "out": out.getvalue(), "error": traceback.format_exc()})
        break
    outputs.append({"ok": True, "out": out.getvalue()})
print(json.dumps(outputs))
"""


def readme_blocks() -> list[str]:
    return _BLOCK.findall(README.read_text(encoding="utf-8"))


def test_the_readme_has_python_examples_starting_from_the_front_door() -> None:
    blocks = readme_blocks()
    assert len(blocks) >= 2
    assert all("import hippograph as hg" in block for block in blocks)
    assert "from hippograph" not in "".join(blocks)  # `hg.` is all a README reader needs


def _prepared(block: str, uri: str, password: str, tenant: str) -> str:
    if "NEO4J_URI" in block:
        block, uris = _URI_LINE.subn(f"NEO4J_URI = {uri!r}", block)
        block, passwords = _PASSWORD_LINE.subn(f"NEO4J_PASSWORD = {password!r}", block)
        assert uris == passwords == 1, "a block using NEO4J_URI defines it on one line"
    else:
        assert "hg.open_memory()" in block, "a block connects by NEO4J_URI or hg.open_memory()"
    block, tenants = re.subn(r'Scope\.root\("org", "acme"\)', f'Scope.root("org", "{tenant}")', block)
    assert tenants >= 1 and '"acme"' not in block, "examples work in the tenant org:acme"
    return block


async def test_every_python_example_in_the_readme_runs(
    neo4j_server: tuple[str, str], store: GraphStore, tmp_path: Path
) -> None:
    uri, password = neo4j_server
    tenant = f"readme-{uuid.uuid4().hex[:12]}"
    blocks = [_prepared(block, uri, password, tenant) for block in readme_blocks()]
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
        assert result["ok"], f"README python block {i} failed:\n{result['error']}"
    assert len(outputs) == len(blocks)

    library, agent = outputs[0]["out"], outputs[1]["out"]
    print(library, agent, sep="\n")  # shown with -s or on failure
    recall_lines = [line for line in library.splitlines() if " | " in line]
    assert "Porto" in recall_lines[0] or "Porto" in recall_lines[1], library  # the current fact ranks high
    assert "Pixel" in library  # the ingested turn is recalled
    assert re.search(r"^completed \d+ phases$", library, re.M), library
    assert re.search(r"^\d+ memories erased$", library, re.M), library
    assert "bacalhau" in agent.splitlines()[-1], agent  # learnt in turn one, recalled in a new session
    capability = outputs[2]["out"].splitlines()
    assert capability[0] == "(nothing yet)", capability  # a fresh scope recalls nothing
    assert "Rua Augusta" in capability[1], capability  # the recorded exchange is recalled next turn
    assert (tmp_path / ".hippograph").exists() is False  # open_memory used the given server, started none
