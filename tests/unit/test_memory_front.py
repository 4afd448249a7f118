"""`Memory` is a front, not a toolbox: code outside ``hippograph.memory`` (the library, the docs'
code and the notebooks) calls its methods and never reaches into its collaborators (the store,
recall's engine, the layers, the writer …), which are private; tests reach them only through
tests/support/memory_internals.py."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

import hippograph as hg
from hippograph.memory.memory import Memory

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "hippograph"
FRONT = SRC / "memory"

API_PAGE = ROOT / "docs" / "reference" / "python.md"

_MEMORY_NAME = re.compile(r"^_?(memory|mem)$")
_FENCE = re.compile(r"^```(?:python|py)[^\n]*\n(.*?)^```", re.S | re.M)
_INLINE = re.compile(r"`([^`\n]+)`")


def _collaborators() -> set[str]:
    """The names of what ``Memory.__init__`` builds (``self._x = …``), without the underscore."""
    tree = ast.parse((FRONT / "memory.py").read_text(encoding="utf-8"))
    init = next(
        node
        for cls in tree.body
        if isinstance(cls, ast.ClassDef) and cls.name == "Memory"
        for node in cls.body
        if isinstance(node, ast.FunctionDef) and node.name == "__init__"
    )
    names = {
        target.attr
        for node in ast.walk(init)
        if isinstance(node, ast.Assign | ast.AnnAssign)
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self"
    }
    return {n.lstrip("_") for n in names}


INTERNALS = _collaborators()


def _is_memory(node: ast.expr) -> bool:
    """A receiver named like a memory: ``memory``, ``self._memory``, ``context.services.memory`` …"""
    name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""
    return bool(_MEMORY_NAME.match(name))


def reaches(code: str, where: str) -> list[str]:
    """``where:line memory.<internal>`` for every reach into a memory's collaborators in ``code``."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        tree = ast.parse(re.sub(r"^(\s*)await ", r"\1", code, flags=re.M))  # a fragment's top-level await
    return [
        f"{where}:{node.lineno} {ast.unparse(node)}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr.lstrip("_") in INTERNALS and _is_memory(node.value)
    ]


def _markdown(path: Path, where: str) -> list[str]:
    text = path.read_text(encoding="utf-8")
    found = [hit for block in _FENCE.findall(text) for hit in reaches(block, where)]
    for span in _INLINE.findall(_FENCE.sub("", text)):
        try:
            found += reaches(span, where)
        except SyntaxError:
            continue  # prose in backticks
    return found


def _notebook(path: Path, where: str) -> list[str]:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return [
        hit
        for i, cell in enumerate(cells)
        if cell["cell_type"] == "code"
        for hit in reaches("".join(cell["source"]), f"{where}[cell {i}]")
    ]


def outside_reaches() -> list[str]:
    """Every reach into a memory's collaborators outside ``hippograph.memory``."""
    found: list[str] = []
    for path in sorted(SRC.rglob("*.py")):
        if not path.is_relative_to(FRONT):
            found += reaches(path.read_text(encoding="utf-8"), path.relative_to(ROOT).as_posix())
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        found += _markdown(path, path.relative_to(ROOT).as_posix())
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        found += _notebook(path, path.relative_to(ROOT).as_posix())
    return found


def test_nothing_outside_the_memory_package_reaches_into_memory() -> None:
    assert outside_reaches() == []


def test_the_scan_finds_a_reach_in_code_docs_and_notebooks(tmp_path: Path) -> None:
    assert {"store", "engine", "services", "pending", "semantic", "working", "writer"} <= INTERNALS
    code = "async def f(memory, self):\n    await memory.store.get_nodes(s, [])\n    self._memory._engine.drain()\n"
    assert sorted(r.split(" ", 1)[1] for r in reaches(code, "x.py")) == ["memory.store", "self._memory._engine"]
    assert reaches("await memory.recall(scope, 'q')\nstore.get_nodes(scope, [])\n", "ok.py") == []
    page = tmp_path / "page.md"
    page.write_text("Use `memory.semantic.history(s, k)`.\n\n```py\nmemory.pending.settle(s)\n```\n")
    notebook = tmp_path / "n.ipynb"
    notebook.write_text(json.dumps({"cells": [{"cell_type": "code", "source": ["x = await memory.store.conn\n"]}]}))
    assert len(_notebook(notebook, "n.ipynb")) == 1
    assert len(_markdown(page, "page.md")) == 2


def test_memory_collaborators_are_private_and_the_api_page_lists_every_public_name() -> None:
    public = {name for name in dir(Memory) if not name.startswith("_")}
    assert not public & INTERNALS
    page = API_PAGE.read_text(encoding="utf-8")
    listed = re.findall(r"^        - (\w+)$", page.split("::: hippograph.Memory", 1)[1].split(":::", 1)[0], re.M)
    assert sorted(listed) == sorted(public)
    assert listed[:2] == ["remember", "ingest"]  # the page opens with the product, not wiring
    assert Memory is hg.Memory
