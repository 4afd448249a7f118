from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from hippograph.store.catalog import CypherQuery, catalog_files, cypher_root
from tests.support.catalog import QUERY_ENUMS, all_queries

REPO = Path(__file__).resolve().parents[2]


def test_every_query_has_a_file_and_every_file_a_query() -> None:
    names = [q.path for q in all_queries()]
    assert len(names) == len(set(names)), "two enum members name the same file"
    assert set(names) == catalog_files()


def test_every_query_enum_is_listed_here() -> None:
    """A component that adds an enum must add it to QUERY_ENUMS, or its files go unchecked."""
    import hippograph.agent
    import hippograph.consolidation
    import hippograph.layers  # noqa: F401

    assert set(CypherQuery.__subclasses__()) == set(QUERY_ENUMS)


def test_each_enum_owns_one_folder_and_members_are_the_file_names() -> None:
    folders = [enum.folder for enum in QUERY_ENUMS]
    assert len(folders) == len(set(folders))
    for enum in QUERY_ENUMS:
        for q in enum:
            assert q.value == q.name.lower()
            assert q.path == f"{enum.folder}/{q.name.lower()}"


def test_query_files_are_not_empty_and_use_parameters_not_formatting() -> None:
    for q in all_queries():
        text = q.text
        assert text, q
        assert "{}" not in text and "%s" not in text, q


def test_the_catalog_is_the_checkouts_top_level_cypher_folder() -> None:
    assert Path(str(cypher_root())).resolve() == REPO / "cypher"
    assert not (REPO / "src" / "hippograph" / "cypher").exists()


def test_the_store_imports_no_other_component() -> None:
    code = (
        "import sys, hippograph.store, hippograph.store.catalog, hippograph.store.queries\n"
        "others = sorted(m for m in sys.modules if m.startswith('hippograph.') and m.split('.')[1] not in\n"
        "    {'_lazy', 'store', 'errors', 'models', 'scope', 'cues', 'embeddings'})\n"
        "print(','.join(others))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == ""


def test_every_query_declares_its_transaction_on_its_first_line() -> None:
    from hippograph.store.catalog import TransactionKind

    for q in all_queries():
        assert q.kind in TransactionKind, q
        code = "\n".join(line for line in q.text.splitlines() if not line.lstrip().startswith("//"))
        if "IN TRANSACTIONS" in code:
            assert q.kind is TransactionKind.AUTOCOMMIT, q
        if q.name.startswith(("CREATE_", "DROP_")):
            assert q.kind is TransactionKind.AUTOCOMMIT, q
        if q.name.startswith(("UPSERT_", "UPDATE_")) and "IN TRANSACTIONS" not in code:
            assert q.kind is TransactionKind.WRITE, q
