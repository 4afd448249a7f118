"""The notebooks of ``notebooks/``, executed top to bottom against the test Neo4j (so they never
rot), and kept without outputs in git."""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
import pytest

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
ALL = sorted(NOTEBOOKS.glob("*.ipynb"))
# LoCoMo is not redistributable: the file comes from HIPPOGRAPH_LOCOMO_DATA, else from a data
# checkout beside the repository (where CI keeps it).
LOCOMO_DEV = NOTEBOOKS.parents[1] / "shared" / "data" / "locomo" / "locomo-dev.json"


def locomo_data() -> str | None:
    named = os.environ.get("HIPPOGRAPH_LOCOMO_DATA")
    return named or (str(LOCOMO_DEV) if LOCOMO_DEV.is_file() else None)


def test_the_notebooks_are_there() -> None:
    assert {p.name for p in ALL} >= {"activation_paths.ipynb", "retrieval_quality.ipynb"}


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.stem)
def test_notebook_is_committed_without_outputs(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    code = [(i, cell) for i, cell in enumerate(nb.cells) if cell.cell_type == "code"]
    dirty = [i for i, cell in code if cell.outputs or cell.execution_count]
    assert not dirty, f"{path.name}: cells {dirty} have outputs; clear them (e.g. nbstripout) before committing"


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.stem)
def test_notebook_runs(path: Path, neo4j_server: tuple[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    from nbclient import NotebookClient

    uri, password = neo4j_server
    if data := locomo_data():
        monkeypatch.setenv("HIPPOGRAPH_LOCOMO_DATA", data)
    elif path.stem == "retrieval_quality":
        pytest.skip("no LoCoMo data: set HIPPOGRAPH_LOCOMO_DATA to the dev split's JSON file")
    monkeypatch.setenv("HIPPOGRAPH_NEO4J_URI", uri)
    monkeypatch.setenv("HIPPOGRAPH_NEO4J_PASSWORD", password)
    monkeypatch.setenv("LOCOMO_CONVERSATIONS", "1")
    monkeypatch.setenv("LOCOMO_QUESTIONS", "40")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS)}})
    client.execute()
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert any("image/png" in o.get("data", {}) for o in outputs), "the notebook draws its plots"
