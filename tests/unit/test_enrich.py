"""The offline enricher's parts — candidate phrases, maximal marginal relevance, dates resolved
against the session date, the speaker's statements told of the speaker — and the fusion of key
hits into a channel."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from hippograph.embeddings import HashingEmbeddings
from hippograph.memory.enrich import (
    KeyphraseEnricher,
    TurnToEnrich,
    absolute_date,
    candidate_phrases,
    dated_statement,
    mmr,
    speaker_statements,
)
from hippograph.models import KeyKind
from hippograph.retrieval.recall_state import with_keys
from hippograph.retrieval.repository import CandidateRow


def ts(y: int, m: int, d: int) -> float:
    return datetime(y, m, d, tzinfo=UTC).timestamp()


def turn(text: str, at: float | None = None, speaker: str = "Ana") -> TurnToEnrich:
    return TurnToEnrich(memory_id="t1", turn_id="D1:1", speaker=speaker, text=text, occurred_at=at)


def test_candidate_phrases_neither_start_nor_end_with_a_stopword() -> None:
    found = candidate_phrases("I joined a local pottery class with my sister", max_words=3)
    assert found[:3] == ["joined", "joined a local", "local"]
    assert "local pottery class" in found and "pottery class" in found and "sister" in found
    assert not any(p.split()[0].lower() in {"i", "a", "with", "my"} for p in found)
    assert not any(p.split()[-1].lower() in {"a", "with", "my"} for p in found)
    assert len(candidate_phrases("word " * 3 + " ".join(f"term{i}" for i in range(50)), limit=10)) == 10


def test_mmr_takes_the_most_relevant_then_the_least_redundant() -> None:
    doc = [1.0, 1.0, 0.0]
    cands = [[1.0, 1.0, 0.1], [1.0, 1.0, 0.2], [1.0, 0.4, 0.0], [0.0, 0.0, 1.0]]
    assert mmr(doc, cands, 2, diversity=0.5) == [0, 2]  # the near-copy of the first is redundant
    assert mmr(doc, cands, 2, diversity=0.0) == [0, 1]  # relevance alone
    assert mmr(doc, cands, 9, diversity=0.5) == [0, 2, 1, 3]
    assert mmr(doc, [], 3, diversity=0.5) == []


def test_a_window_reads_as_the_date_it_is() -> None:
    assert absolute_date((ts(2023, 5, 7), ts(2023, 5, 8))) == "7 May 2023"
    assert absolute_date((ts(2023, 5, 1), ts(2023, 6, 1))) == "May 2023"
    assert absolute_date((ts(2022, 1, 1), ts(2023, 1, 1))) == "2022"
    assert absolute_date((ts(2023, 4, 24), ts(2023, 5, 8))) == "between 24 April 2023 and 7 May 2023"


def test_relative_dates_are_resolved_against_the_session_date() -> None:
    said = ts(2023, 5, 8)
    assert (
        dated_statement(turn("Guess what! I went to the pottery class yesterday and made a bowl.", said))
        == "Ana went to the pottery class on 7 May 2023 and made a bowl."
    )
    assert dated_statement(turn("We moved here last June", ts(2023, 8, 1))) == "We moved here in June 2023"
    assert dated_statement(turn("The trip was two weeks ago", said)) == (
        "The trip was between 17 April 2023 and 30 April 2023"
    )
    assert dated_statement(turn("My sister visited 2 years ago", said)) is not None
    assert dated_statement(turn("It happened in May 2023", said)) is None  # already absolute
    assert dated_statement(turn("Nothing with a time in it", said)) is None
    assert dated_statement(turn("I went there yesterday", None)) is None  # no session date


def test_the_speakers_statements_are_told_of_the_speaker() -> None:
    text = "I'm moving to Porto next month. What about you? My dog loves the beach. Ok. It rains a lot here."
    assert speaker_statements(turn(text)) == [
        "Ana is moving to Porto next month.",
        "Ana's dog loves the beach.",
    ]
    assert speaker_statements(turn(text, speaker="")) == []
    assert speaker_statements(turn("I've painted a lake at sunrise for me")) == [
        "Ana has painted a lake at sunrise for Ana"
    ]


async def test_the_offline_enricher_gives_each_turn_its_keys() -> None:
    enricher = KeyphraseEnricher(HashingEmbeddings(), keyphrases=2)
    said = ts(2023, 5, 8)
    keys = await enricher.keys(
        [turn("I went to a pottery workshop yesterday with my sister.", said), turn("Okay!", said, "Ben")]
    )
    assert len(keys) == 2 and keys[1] == []
    kinds = [k.kind for k in keys[0]]
    assert kinds == [KeyKind.KEYPHRASE, KeyKind.KEYPHRASE, KeyKind.DATE, KeyKind.STATEMENT]
    assert keys[0][2].text == "Ana went to a pottery workshop on 7 May 2023 with Ana's sister."
    assert keys == await enricher.keys(  # deterministic
        [turn("I went to a pottery workshop yesterday with my sister.", said), turn("Okay!", said, "Ben")]
    )


def row(i: str, score: float | None = None, cosine: float | None = None, key: str | None = None) -> CandidateRow:
    return CandidateRow(id=i, score=score, cosine=cosine, key=key)


def test_a_key_hit_lifts_its_turn_only_when_it_scores_higher() -> None:
    own = [row("a", score=3.0), row("b", score=2.0), row("c", score=1.0)]
    keys = [row("c", score=4.0, key="c's key"), row("b", score=1.5, key="weak key"), row("d", score=2.5, key="d's")]
    fused = with_keys(own, keys, 3, bm25=True)
    assert [(r.id, r.score, r.key) for r in fused] == [("c", 4.0, "c's key"), ("a", 3.0, None), ("d", 2.5, "d's")]
    assert with_keys(own, [], 2, bm25=True) == own  # no key hits: the channel as it was, uncut
    vec = with_keys([row("a", cosine=0.7)], [row("a", cosine=0.9, key="k")], 5, bm25=False)
    assert [(r.id, r.cosine, r.key) for r in vec] == [("a", 0.9, "k")]


async def test_without_keyphrases_nothing_is_embedded() -> None:
    class Counting(HashingEmbeddings):
        calls = 0

        async def embed_batch(self, texts: Sequence[str]) -> list[list[float]]:
            type(self).calls += len(texts)
            return await super().embed_batch(texts)

    keys = await KeyphraseEnricher(Counting(), keyphrases=0).keys(
        [turn("I went out yesterday with my dog.", ts(2023, 5, 8))]
    )
    assert [k.kind for k in keys[0]] == [KeyKind.DATE, KeyKind.STATEMENT] and Counting.calls == 0
