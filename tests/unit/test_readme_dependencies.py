"""README's "Install and extras" says what pyproject.toml declares: the core's packages, and for
every extra the packages (and the extras) it brings. A package added to or dropped from
pyproject without the README, or the other way round, fails here."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
SECTION = "## Install and extras"
ELIDED = {"dev"}
"""Rows that may end in "…" (the test tools): they still name every extra they include, and
only packages the extra declares."""

_TICKED = re.compile(r"`([^`]+)`")


def _project() -> dict[str, object]:
    project: dict[str, object] = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return project


def _brings(requirements: list[str]) -> set[str]:
    """The names a README row uses for these requirements: a package by its name, an extra
    of hippograph itself (``hippograph[a,b]``) by each extra's name."""
    names: set[str] = set()
    for line in requirements:
        req = Requirement(line)
        names |= set(req.extras) if req.name == "hippograph" else {canonicalize_name(req.name)}
    return names


def _section() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return readme.split(SECTION, 1)[1].split("\n## ", 1)[0]


def _rows() -> dict[str, str]:
    """extra → its "brings" cell, from the section's table."""
    rows = {}
    for line in _section().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| `") and len(cells) == 3:
            rows[cells[0].strip("`")] = cells[1]
    return rows


def _named(cell: str) -> set[str]:
    return {canonicalize_name(name) for name in _TICKED.findall(cell)}


def test_the_core_packages_are_the_ones_the_readme_names() -> None:
    core = _section().split("\n\n")[1]
    assert core.startswith("`pip install hippograph` is the core:")
    named = {canonicalize_name(n) for n in _TICKED.findall(core.split("— ", 1)[0].split(":", 1)[1])}
    dependencies = _project()["dependencies"]
    assert isinstance(dependencies, list)
    assert named == _brings(dependencies)


def test_every_extra_has_a_row_naming_what_it_brings() -> None:
    extras = _project()["optional-dependencies"]
    assert isinstance(extras, dict)
    rows = _rows()
    assert list(rows) and set(rows) == set(extras), "one row per extra of pyproject.toml, and no other"
    for extra, cell in rows.items():
        declared = _brings(extras[extra])
        named = _named(cell)
        assert named <= declared, f"{extra}: the README names {sorted(named - declared)}, which it does not bring"
        if extra in ELIDED and cell.endswith("…"):
            included = {n for n in declared if n in extras}
            assert included <= named, f"{extra}: the README omits the extras {sorted(included - named)}"
        else:
            assert named == declared, f"{extra}: the README omits {sorted(declared - named)}"
