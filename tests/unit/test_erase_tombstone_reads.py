"""Every read honours an erase's tombstone in the statement that reads: the scopes at or below an
``(:Erasure)`` marker are left out, one predicate spelled one way everywhere. A new read that
forgets it fails here (and the reliability test shows what it would leak)."""

from __future__ import annotations

import re

import pytest

from hippograph.analysis.browser import saved_queries
from hippograph.retrieval.statement import recall_statement
from hippograph.store.catalog import Statement
from tests.support.catalog import all_queries

MARKERS = "WITH COLLECT { MATCH (e:Erasure) RETURN e.key } AS erasing"
PREDICATE = re.compile(r"(none|any)\(gone IN erasing WHERE (?P<k>[^=]+?) = gone\s+OR (?P=k) STARTS WITH gone \+ '/'\)")

NOT_READS_FOR_CALLERS = {
    "memory/get_count": "a write-side cap (working memory overflow), never shown",
    "memory/get_current_fact": "the fact a keyed write supersedes, inside the write",
    "memory/get_owned_ids_by_prefix": "an ownership check of a write",
    "memory/get_session_tails": "the NEXT link a write appends to",
    "api/get_stored_node_count": "whether a bulk import may replace the database: every node counts",
}
"""Reads of the store's folders that feed a write, not a caller."""

STAGED_RECALL = "retrieval/"
"""The staged recall's reads take visible keys already filtered by get_erasing_scopes."""


def _reads() -> list[Statement]:
    found: list[Statement] = [recall_statement(lts=False), recall_statement(lts=True)]
    for q in all_queries():
        folder, name = q.path.split("/")  # catalogued: one folder, one file
        if not name.startswith(("get_", "search_")) or q.path in NOT_READS_FOR_CALLERS:
            continue
        if folder in ("memory", "api", "audit") or q.path in (
            "retrieval/get_erasing_scopes",
            "consolidation/search_consolidation_runs",
        ):
            found.append(q)
    return found


def _check(name: str, text: str) -> None:
    assert MARKERS in text, f"{name} reads without the erase's tombstone"
    uses = text.count("IN erasing")
    canonical = len(PREDICATE.findall(text))
    assert uses == canonical, f"{name}: an erasing check not spelled `none(gone IN erasing WHERE k = gone OR …)`"
    assert uses, f"{name} collects the markers but checks nothing against them"


@pytest.mark.parametrize("query", _reads(), ids=lambda q: q.path)
def test_every_read_leaves_out_the_scopes_under_erasure(query: Statement) -> None:
    _check(query.path, query.text)


@pytest.mark.parametrize("name", sorted(saved_queries()))
def test_every_saved_browser_query_leaves_them_out_too(name: str) -> None:
    _check(name, saved_queries()[name].statement)


def test_the_reads_checked_here_cover_every_folder_that_serves_callers() -> None:
    paths = {q.path for q in _reads()}
    assert {
        "memory/get_node",
        "memory/search_nodes",
        "api/search_export_memories",
        "audit/search_audit_entries",
    } <= paths
    recall = {"retrieval/recall@2026", "retrieval/recall@lts"}
    assert not any(p.startswith(STAGED_RECALL) for p in paths - recall - {"retrieval/get_erasing_scopes"})
    assert recall <= paths
