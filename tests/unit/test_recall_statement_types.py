"""The recall statement's parameters keep one type whatever their value: the server plans the
statement once per mix of parameter types (seconds each), so "count here" and "no fulltext" are
sent as -1 and '' rather than null (a fake connection records what would be sent)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from hippograph.retrieval.config import ActivationConfig
from hippograph.retrieval.queries import RetrievalQuery
from hippograph.retrieval.repository import RecallRepository


class Recorder:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    async def read_plain_as(self, query: Any, row: Any, **params: Any) -> list[Any]:
        assert query is RetrievalQuery.SEARCH_RECALL
        self.sent.append(params)
        return [SimpleNamespace()]


async def recall(repo: RecallRepository, *, population: int | None, lucene: str | None) -> None:
    await repo.search_recall(
        vector=[0.1] * 4, lucene=lucene, visible=["org:a"], layers=["semantic"], k=10, fetch_k=40,
        exact_below=5000, keys=[], population=population, vector_weight=1.0, fulltext_weight=1.0,
        person_bonus=0.5, activation=ActivationConfig(max_hops=2), rank_n=30,
    )  # fmt: skip


async def test_count_here_and_no_fulltext_are_sent_with_the_types_of_a_count_and_a_query() -> None:
    conn = Recorder()
    repo = RecallRepository(SimpleNamespace(conn=conn))  # type: ignore[arg-type]
    await recall(repo, population=None, lucene=None)
    await recall(repo, population=1234, lucene="search_text:cat")
    (unknown, known) = conn.sent
    assert (unknown["population"], unknown["lucene"]) == (-1, "")
    assert (known["population"], known["lucene"]) == (1234, "search_text:cat")
    assert {type(p["population"]) for p in conn.sent} == {int}
    assert {type(p["lucene"]) for p in conn.sent} == {str}
    text = RetrievalQuery.SEARCH_RECALL.text
    assert "$population < 0" in text and "$lucene = ''" in text  # what the statement reads them as
    assert "$population IS NULL" not in text and "$lucene IS NULL" not in text
