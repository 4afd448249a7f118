"""The import graph has no circle: not among hippograph's packages, and not among the children of
any package (its sub-packages and modules, each taken together with everything below it). Imports
under ``TYPE_CHECKING`` and inside functions count: a circle that only the type checker or a lazy
import sees is still one a reader has to hold in mind. Imports of a package's own ``__init__`` by
its modules are not edges between children, so they do not count."""

from __future__ import annotations

from pathlib import Path

import grimp
import pytest

import hippograph

pytestmark = pytest.mark.unit

SRC = Path(__file__).resolve().parents[2] / "src"


def circles(graph: grimp.ImportGraph) -> list[str]:
    """One line per circle-breaking import grimp nominates, with the way back that closes the
    circle: ``a -> b (b -> ... -> a)``; empty when the graph is acyclic at every level."""
    found: list[str] = []
    for package in sorted(m for m in graph.modules if graph.find_children(m)):
        for importer, imported in sorted(graph.nominate_cycle_breakers(package)):
            back = graph.find_shortest_chain(importer=imported, imported=importer) or ()
            found.append(f"in {package}: {importer} -> {imported} ({' -> '.join(back)})")
    return found


def test_the_check_finds_a_circle_between_packages_and_within_one() -> None:
    graph = grimp.ImportGraph()
    for module in ["pkg", "pkg.a", "pkg.a.x", "pkg.b", "pkg.b.y", "pkg.b.z"]:
        graph.add_module(module)
    found = circles(graph)
    assert not found, "import circles:\n" + "\n".join(found)
    graph.add_import(importer="pkg.a.x", imported="pkg.b.y")
    graph.add_import(importer="pkg.b.z", imported="pkg.a")
    assert [line.split(":")[0] for line in circles(graph)] == ["in pkg"]
    graph.add_import(importer="pkg.b.y", imported="pkg.b.z")
    graph.add_import(importer="pkg.b.z", imported="pkg.b.y")
    assert [line.split(":")[0] for line in circles(graph)] == ["in pkg", "in pkg.b"]


def test_no_circle_among_packages_or_within_one() -> None:
    assert Path(hippograph.__file__).resolve().parent == SRC / "hippograph", "run the tests on this checkout's src/"
    graph = grimp.build_graph("hippograph", cache_dir=None)
    assert len(graph.modules) > 100, "the graph was not built from the package"
    found = circles(graph)
    assert not found, "import circles:\n" + "\n".join(found)
