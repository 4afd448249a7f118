"""The recall statement's parameters keep one type and one size bucket whatever their value:
the server plans the statement once per mix of parameter types and of list / string size
buckets (0, 1, 2–10, 11–100, 101–1000 …; seconds per plan), so "count here", "no fulltext", "no
direction" and "no name" go as -1, a blank query, the zero vector with ``directed`` false and
'' padding rather than null or an empty list (a fake connection records what would be sent)."""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

from hippograph.retrieval.config import ActivationConfig
from hippograph.retrieval.repository import RecallRepository
from hippograph.retrieval.statement import recall_statement
from hippograph.store.server_capabilities import ServerCapabilities


class Recorder:
    capabilities = ServerCapabilities()

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    async def read_plain_as(self, query: Any, row: Any, **params: Any) -> list[Any]:
        assert query is recall_statement(lts=False)
        self.sent.append(params)
        return [SimpleNamespace()]


def bucket(n: int) -> int:
    """Neo4j 2026.08's size bucket of a list or string parameter: its plan cache keys a statement on
    each list's and string's size rounded up to a power of ten (0, 1, 2–10, 11–100, …)."""
    return 0 if n == 0 else 10 ** math.ceil(math.log10(n))


def shape(value: Any) -> tuple[Any, ...]:
    """What the plan cache keys a parameter on: its type, and a list's or string's size bucket
    (a list's element type too)."""
    if isinstance(value, list):
        return (list, bucket(len(value)), *sorted({type(v).__name__ for v in value}))
    if isinstance(value, str):
        return (str, bucket(len(value)))
    return (type(value),)


async def recall(repo: RecallRepository, **given: Any) -> None:
    params: dict[str, Any] = dict(
        vector=[0.1] * 384, lucene="search_text:cat", visible=["org:a"], layers=["semantic"], k=10, fetch_k=40,
        exact_below=5000, keys=[], population=None, vector_weight=1.0, fulltext_weight=1.0,
        person_bonus=0.5, activation=ActivationConfig(max_hops=2), rank_n=30, dimensions=384,
    )  # fmt: skip
    await repo.search_recall(**{**params, **given})


async def test_every_recall_sends_one_mix_of_types_and_size_buckets() -> None:
    conn = Recorder()
    repo = RecallRepository(SimpleNamespace(conn=conn))  # type: ignore[arg-type]
    long_query = " OR ".join(f"search_text:word{i}" for i in range(48)) + " AND (scope_tag:(1 OR 2 OR 3))^0"
    variants: list[dict[str, Any]] = [
        {},
        {"population": 1234, "lucene": None},
        {"lucene": long_query, "keys": ["ann"]},
        {"keys": ["ann", "bob", "cleo"], "visible": ["org:a", "org:a/b", "org:a/b/c", "org:a/b/c/d"]},
        {"vector": None, "layers": ["semantic", "episodic", "working", "procedural", "prospective"]},
        {  # ints from a hand-made config, the options on
            "vector_weight": 1,
            "fulltext_weight": 2,
            "person_bonus": 0,
            "session_prior": 1,
            "feedback_weight": 1,
            "activation": ActivationConfig(max_hops=2, cue_rarity="inverse"),
        },
    ]
    for given in variants:
        await recall(repo, **given)
    for name in conn.sent[0]:
        assert len({shape(p[name]) for p in conn.sent}) == 1, (name, {shape(p[name]) for p in conn.sent})
    (plain, counted, named, many, undirected, _) = conn.sent
    assert (plain["population"], counted["population"]) == (-1, 1234)
    assert counted["lucene"].strip() == "" and named["lucene"].rstrip() == long_query
    assert plain["lucene"].rstrip() == "search_text:cat"
    assert (plain["directed"], undirected["directed"]) == (True, False)
    assert undirected["vector"] == [0.0] * 384
    assert plain["keys"] == ["", ""] and named["keys"] == ["ann", ""] and many["keys"] == ["ann", "bob", "cleo"]
    assert plain["visible"] == ["org:a", ""] and plain["layers"] == ["semantic", ""]
    text = recall_statement(lts=False).text
    # what the statement reads them as: the padding as absent
    assert "$population < 0" in text and "trim($lucene) = ''" in text
    assert "sk <> ''" in text and "nk <> ''" in text and "NOT $directed" in text
    for name in ("population", "lucene", "vector", "keys"):
        assert f"${name} IS NULL" not in text and f"${name} IS NOT NULL" not in text
