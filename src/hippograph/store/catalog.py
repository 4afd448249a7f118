"""The query catalog: every Cypher statement is a ``.cypher`` file under the top-level
``cypher/`` folder (shipped in the wheel as ``hippograph/cypher``), one folder per component,
loaded once and looked up by a member of a :class:`CypherQuery` enum.

Each component declares its own enum over its own folder (``SchemaQuery`` → ``cypher/schema``,
``RetrievalQuery`` → ``cypher/retrieval`` …), members named after the files (``GET_NODE`` →
``get_node.cypher``). The store knows no other component: the test that files and members match
one to one imports the components itself.

Each file's first line declares the transaction it runs in (:class:`TransactionKind`)::

    // transaction: read          a managed read transaction (routed to a reader; no writes)
    // transaction: write         a managed write transaction
    // transaction: autocommit    auto-commit: DDL and ``CALL {…} IN TRANSACTIONS`` batch jobs

The connection runs a statement only in a transaction of its kind.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import LiteralString, Protocol

__all__ = ["CypherQuery", "RenderedQuery", "Statement", "TransactionKind", "catalog_files", "cypher_root"]

_EXCLUDED = frozenset({"browser"})  # saved Browser queries and styles, not catalogued
_KIND = re.compile(r"// transaction: (\w+)")


class TransactionKind(StrEnum):
    """The transaction a statement runs in, declared on its file's first line."""

    READ = "read"
    """A managed read transaction: the server refuses any write in it."""
    WRITE = "write"
    """A managed write transaction (all or nothing; the driver retries transient faults)."""
    AUTOCOMMIT = "autocommit"
    """An auto-commit transaction: DDL, and ``CALL {…} IN TRANSACTIONS`` batch jobs."""


class CypherQuery(StrEnum):
    """Base of the query enums: a subclass sets ``folder = nonmember("<folder>")`` and declares
    ``NAME = auto()`` members, whose value is the lower-cased name, i.e. the file's stem."""

    @property
    def folder(self) -> str:
        """The component's folder under ``cypher/`` (a subclass sets it with ``nonmember``)."""
        raise NotImplementedError(type(self).__name__)

    @property
    def path(self) -> str:
        """``<folder>/<file stem>``, the query's place in the catalog."""
        return f"{self.folder}/{self.value}"

    @property
    def text(self) -> LiteralString:
        return _load(self.folder, self.value)

    @property
    def kind(self) -> TransactionKind:
        """The transaction the file's first line declares."""
        return _kind(self.folder, self.value)


class Statement(Protocol):
    """What the connection runs: a catalogued query, or one rendered from it
    (:class:`RenderedQuery`)."""

    @property
    def path(self) -> str: ...

    @property
    def text(self) -> LiteralString: ...

    @property
    def kind(self) -> TransactionKind: ...


@dataclass(frozen=True, slots=True)
class RenderedQuery:
    """A catalogued query with names or numbers the server cannot take as parameters put into
    its text (a vector index's dimensions in DDL; the vector property and index recall reads):
    made only by the store from a catalog file and validated names or integers, never from user
    text."""

    path: str
    text: LiteralString
    kind: TransactionKind


@cache
def cypher_root() -> Traversable:
    """The ``cypher`` folder: inside the installed package (wheel), else the checkout's
    top-level ``cypher/`` next to ``src/`` (editable install or ``PYTHONPATH=src``)."""
    packaged = files("hippograph").joinpath("cypher")
    if packaged.joinpath("schema").is_dir():  # not just an empty folder left in a checkout
        return packaged
    checkout = Path(__file__).resolve().parents[3] / "cypher"
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError(f"no query catalog: neither {packaged} nor {checkout} exists")


@cache
def _load(folder: str, name: str) -> LiteralString:
    text = cypher_root().joinpath(folder, f"{name}.cypher").read_text(encoding="utf-8")
    # Files are static, shipped with the package: never built from user text.
    return text.strip()


@cache
def _kind(folder: str, name: str) -> TransactionKind:
    first = _load(folder, name).partition("\n")[0]
    found = _KIND.fullmatch(first)
    kinds = {k.value: k for k in TransactionKind}
    if found is None or found.group(1) not in kinds:
        raise ValueError(f"{folder}/{name}.cypher: the first line must be '// transaction: {' | '.join(kinds)}'")
    return kinds[found.group(1)]


def catalog_files() -> set[str]:
    """``<folder>/<stem>`` of every ``.cypher`` file in the catalog (the Browser folder aside)."""
    found: set[str] = set()
    for folder in cypher_root().iterdir():
        if not folder.is_dir() or folder.name in _EXCLUDED:
            continue
        found.update(f"{folder.name}/{f.name[:-7]}" for f in folder.iterdir() if f.name.endswith(".cypher"))
    return found
