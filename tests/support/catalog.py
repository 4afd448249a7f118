"""Every component's query enum, imported here (the store's catalog knows none of them)."""

from __future__ import annotations

import re

from hippograph.app.access.queries import AccessQuery
from hippograph.app.api.queries import ApiQuery
from hippograph.audit import AuditQuery
from hippograph.consolidation.queries import ConsolidationQuery
from hippograph.retrieval.queries import RetrievalQuery
from hippograph.retrieval.statement import recall_stages, recall_statement
from hippograph.store.catalog import CypherQuery, RenderedQuery, Statement
from hippograph.store.fragments import STAGE_PREFIX
from hippograph.store.queries import MemoryQuery, SchemaQuery

QUERY_ENUMS: tuple[type[CypherQuery], ...] = (
    SchemaQuery,
    MemoryQuery,
    RetrievalQuery,
    ConsolidationQuery,
    AuditQuery,
    ApiQuery,
    AccessQuery,
)


def all_queries() -> list[CypherQuery]:
    """Every member of every component's query enum."""
    return [q for enum in QUERY_ENUMS for q in enum]


def rendered_statements(*, lts: bool) -> dict[str, RenderedQuery]:
    """Every statement rendered from fragments for a server (``lts``: Neo4j 5.26), by its
    catalog name: the one recall statement and each of its fragments as a stage; the vector
    slots of a re-embedding render from these (``slot_query``)."""
    found = {q.path: q for q in (recall_statement(lts=lts), *(s.query for s in recall_stages(lts=lts)))}
    return found


_SAMPLES: dict[str, object] = {
    "visible": ["nobody"],
    "keys": ["nobody"],
    "ids": ["nobody"],
    "scope_key": "nobody",
    "prefix": "nobody/",
    "subtree_prefix": "nobody/",
    "key": "nobody",
    "text": "hello",
    "lucene": "hello",
    "after": "",
    "after_id": "",
    "since_id": "",
    "separators": [" "],
    "with_embedding": False,
    "include_retracted": False,
    "retracted": False,
    "superseded": False,
    "layers": None,
    "vector": [0.1] * 384,
}
"""Parameter values by name for running a statement where it finds nothing (a scope no test
writes); numbers not named here are 1, lists of a recall stage's inputs empty."""
_NUMBERS = frozenset(
    {"limit", "k", "fetch_k", "offset", "batch", "cap", "window", "reach", "since", "since_at", "now", "min_score"}
    | {"fold_size", "max_events", "max_folds", "max_per_run", "min_chars", "min_occurrences", "max_probes"}
    | {"fulltext_weight", "vector_weight", "person_bonus", "max_nodes"}
)


def sample_params(query: Statement, *, vector_index: str) -> dict[str, object]:
    """A value for every parameter ``query`` names, such that it runs (and finds nothing)."""
    code = "\n".join(line for line in query.text.splitlines() if not line.lstrip().startswith("//"))
    params: dict[str, object] = {}
    for name in set(re.findall(r"\$([a-z_][a-z0-9_]*)", code)):
        if name == "vector_index":
            params[name] = vector_index
        elif name in _SAMPLES:
            params[name] = _SAMPLES[name]
        elif name in _NUMBERS:
            params[name] = 1
        elif name.startswith(STAGE_PREFIX):
            params[name] = []
        else:
            params[name] = None
    return params
