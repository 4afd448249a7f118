"""The query catalog: every Cypher statement is a ``.cypher`` file under ``hippograph/cypher``,
named ``<folder>/<verb_noun>``, loaded once from the installed package and looked up by a
member of a :class:`CypherQuery` enum. Each component declares its own enum (``StoreQuery``,
``RetrievalQuery``, ``ConsolidationQuery`` …) so that every query has one typed name; a test
checks that the members of all of them and the files match one to one."""

from __future__ import annotations

from enum import StrEnum
from functools import cache
from importlib.resources import files
from typing import LiteralString


class CypherQuery(StrEnum):
    """Base of the query enums. A member's value is its file's path under ``cypher/``."""

    @property
    def text(self) -> LiteralString:
        return _load(self.value)


@cache
def _load(name: str) -> LiteralString:
    text = files("hippograph").joinpath("cypher", f"{name}.cypher").read_text(encoding="utf-8")
    # Files are static, shipped with the package: never built from user text.
    return text.strip()


def all_queries() -> list[CypherQuery]:
    """Every member of every CypherQuery enum that has been imported."""
    import hippograph.catalog_index  # noqa: F401  (imports every component's enum)

    return [q for enum in CypherQuery.__subclasses__() for q in enum]


def catalog_files() -> set[str]:
    """Every ``.cypher`` file shipped under ``cypher/`` except the Browser folder."""
    root = files("hippograph").joinpath("cypher")
    found: set[str] = set()
    for folder in root.iterdir():
        if not folder.is_dir() or folder.name == "browser":
            continue
        found.update(f"{folder.name}/{f.name[:-7]}" for f in folder.iterdir() if f.name.endswith(".cypher"))
    return found
