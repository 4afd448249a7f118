"""The real-text benchmarks' chit-chat corpus (``benchmarks/realtext.py``) on a small mapping of
the dataset's own schema: which conversations a leaf holds, its turns and its questions."""

from __future__ import annotations

from typing import Any

import pytest

from benchmarks.realtext import CHITCHAT_MIN_TURNS, TEAMS, USERS, ChitChat

LEAVES = TEAMS * USERS


def _conversation(n: int, turns: int, prompt: str | None) -> dict[str, Any]:
    people = ["aaaa-1", "bbbb-2"] if n % 2 else ["cccc-3", "aaaa-1"]
    messages = []
    for j in range(turns):
        text = f"conversation {n} turn {j}, what do you think about it?" if j == 3 else f"c{n} t{j}"
        utterances = [{"text": text, "timestamp": f"2018-04-19T19:{j:02d}:51Z", "sender": people[j % 2]}]
        if j == 1:
            utterances.append({"text": "  ", "timestamp": "2018-04-19T19:01:52", "sender": people[1]})
        messages.append(utterances)
    return {"prompt": prompt, "ratings": {}, "start": "2018-04-20T01:57:41", "messages": messages}


@pytest.fixture
def corpus() -> ChitChat:
    raw = {f"id{n:03d}": _conversation(n, CHITCHAT_MIN_TURNS + n % 3, "Who is your hero?") for n in range(2 * LEAVES)}
    raw["short"] = _conversation(99, CHITCHAT_MIN_TURNS - 1, "Too short?")
    return ChitChat.from_raw(raw)


def test_short_conversations_are_left_out(corpus: ChitChat) -> None:
    assert len(corpus.convs) == 2 * LEAVES
    assert all(len(c.turns) >= CHITCHAT_MIN_TURNS for c in corpus.convs)


def test_a_leaf_holds_whole_conversations_as_sessions_with_recurring_speakers(corpus: ChitChat) -> None:
    turns = corpus.leaf_turns(1, CHITCHAT_MIN_TURNS + 2)
    assert len(turns) == CHITCHAT_MIN_TURNS + 2
    assert {t.session_id for t in turns} == {"id001", "id021"}
    assert turns[0].turn_id == "id001-0" and turns[0].text == "c1 t0"
    assert turns[1].text == "c1 t1"  # the blank utterance of the run is dropped
    assert [t.speaker for t in turns[:2]] == ["P0002", "P0003"]  # named in order of first appearance
    assert corpus.leaf_turns(0, CHITCHAT_MIN_TURNS)[1].speaker == "P0002"  # the same sender, the same name
    assert turns[0].occurred_at is not None and turns[0].occurred_at < turns[2].occurred_at  # type: ignore[operator]
    others = {t.session_id for t in corpus.leaf_turns(2, CHITCHAT_MIN_TURNS)}
    assert others == {"id002"}


def test_a_leafs_questions_are_its_prompts_then_questions_asked_in_it(corpus: ChitChat) -> None:
    assert corpus.questions(4, CHITCHAT_MIN_TURNS + 5) == [
        "Who is your hero?",
        "conversation 4 turn 3, what do you think about it?",
        "conversation 24 turn 3, what do you think about it?",
    ]


def test_a_size_past_the_corpus_is_refused_with_the_most_it_holds(corpus: ChitChat) -> None:
    with pytest.raises(SystemExit, match="at most"):
        corpus.leaf_turns(0, 10 * CHITCHAT_MIN_TURNS)
