"""Facts that outrank chatter: the pure rules of recall's final scoring — a current fact on
its own evidence, a question turn as weak evidence, importance, a fact above the turns it
restates, a superseded version below its current one."""

from __future__ import annotations

import pytest

from hippograph.models import Layer, MemoryNode
from hippograph.retrieval import scoring
from hippograph.retrieval.config import RecallConfig
from hippograph.retrieval.fact_rules import rank_facts
from hippograph.retrieval.types import Channel, RecallItem, ScoreParts

pytestmark = pytest.mark.unit

NOW = 1_000_000.0
FOUND = {Channel.VECTOR: 1}


def turn(nid: str, content: str, speaker: str | None = "Maya") -> MemoryNode:
    props: dict[str, object] = {"kind": "turn"}
    if speaker is not None:
        props["speaker"] = speaker
    return MemoryNode(id=nid, layer=Layer.EPISODIC, content=content, properties=props, importance=3.0)  # type: ignore[arg-type]


def fact(nid: str, label: str, content: str, *, key: str | None = None, superseded_by: str | None = None) -> MemoryNode:
    return MemoryNode(id=nid, layer=Layer.SEMANTIC, label=label, content=content, key=key, superseded_by=superseded_by)


def item(n: MemoryNode, score: float, channels: dict[Channel, int] | None = None) -> RecallItem:
    return RecallItem(node=n, score=score, parts=ScoreParts(relevance=score), channels=channels or {})


def test_what_a_turn_asks_is_weak_evidence_what_it_says_is_not() -> None:
    asks = turn("t1", "What kind of dog is Rex? Is he new? ")
    both = turn("t2", "Rex is a beagle. Is he yours?")  # 16 characters say, 12 ask
    says = turn("t3", "Rex is a beagle.")
    exchange = turn("t4", "User: Who is Rex? | Agent: Your dog. Anything else?", speaker=None)
    fact_node = fact("f", "Rex?", "Is Rex a dog?")
    assert scoring.answer_weight(asks, 0.5) == 0.5
    assert scoring.answer_weight(both, 0.5) == pytest.approx(1 - 0.5 * 12 / 28)
    assert [scoring.answer_weight(n, 0.5) for n in (says, exchange, fact_node)] == [1.0, 1.0, 1.0]
    assert scoring.answer_weight(asks, 1.0) == 1.0


def test_importance_keeps_a_default_fact_as_it_scores_and_weighs_a_turn_less() -> None:
    assert scoring.importance_factor(fact("f", "l", "c"), 1.0) == 1.0
    assert scoring.importance_factor(turn("t", "x"), 1.0) == pytest.approx(0.6)
    assert scoring.importance_factor(turn("t", "x"), 0.0) == 1.0
    cfg = RecallConfig()

    def score(n: MemoryNode) -> float:
        signals = scoring.signals(n, cfg, now=NOW, hops=0, distance=0, window=None)
        return scoring.final_score(cfg, ScoreParts(relevance=1.0, **signals))

    assert score(turn("t", "x")) == pytest.approx(0.6 * score(fact("f", "l", "c")))


def test_a_current_fact_ranks_on_its_own_evidence_with_the_person_bonus_when_it_names_them() -> None:
    cfg = RecallConfig()
    evidence = {
        "t": ScoreParts(z_vector=1.0, z_fulltext=1.0, person=1.0),
        "f": ScoreParts(z_vector=1.0, z_fulltext=1.0),
    }
    nodes = {"t": turn("t", "Maya says hi"), "f": fact("f", "Maya's job", "Maya is a nurse."),
             "old": fact("old", "Maya's job", "Maya is a cook.", superseded_by="f")}  # fmt: skip
    total = {"t": 2.0, "f": 0.2, "old": 0.2}
    base = {"t": 1.0, "f": 0.5, "old": 0.5}
    on = scoring.footing(total, base, nodes, evidence, ["Maya"], cfg, NOW)
    assert on.person == "Maya" and on.person_evidence == pytest.approx(1.0)  # one bonus over a spread of 1
    assert on.best_evidence == pytest.approx(1.5)  # the fact's 0.5 and the bonus its text earns
    rel = {i: scoring.relevance(n, cfg, on, now=NOW, total=total[i], evidence=base[i]) for i, n in nodes.items()}
    assert rel == {"t": 1.0, "f": pytest.approx(1.0), "old": pytest.approx(0.1)}  # superseded: activation only
    off = cfg.model_copy(update={"fact_evidence": False})
    assert scoring.relevance(nodes["f"], off, on, now=NOW, total=0.2, evidence=0.5) == pytest.approx(0.1)
    nobody = scoring.footing(total, base, nodes, evidence, [], cfg, NOW)
    assert scoring.relevance(nodes["f"], cfg, nobody, now=NOW, total=0.2, evidence=0.5) == pytest.approx(0.5)


def test_names_person_matches_whole_words_in_any_case() -> None:
    n = fact("f", "Maya's job", "She nurses.")
    assert scoring.names_person(n, "maya") and not scoring.names_person(n, "May")


def test_a_found_fact_goes_just_above_the_turns_it_restates_when_both_match() -> None:
    source = turn("t1", "Maya works as a paediatric nurse in Leeds now.")
    chatter = turn("t2", "Say hi to Maya from me!")
    kept = fact("f1", "Maya's job", "Maya is a paediatric nurse in Leeds.", key="maya.job")
    other = fact("f2", "Maya's cat", "Maya has a cat called Leeds.", key="maya.cat")
    weak = fact("f3", "Maya's nursing", "Maya trained as a nurse in Leeds.", key="maya.training")
    items = [item(source, 0.8), item(chatter, 0.7), item(kept, 0.5, FOUND), item(other, 0.45), item(weak, 0.3, FOUND)]
    out = rank_facts(items, RecallConfig(), NOW)
    assert [i.node.id for i in out] == ["f1", "t1", "t2", "f2", "f3"]  # f2: no channel; f3: under half t1's score
    assert out[0].score > 0.8 and out[0].above == ["t1"]
    assert "above the turns it restates t1" in out[0].explain()
    off = rank_facts(items, RecallConfig(facts_above_turns=False), NOW)
    assert [i.node.id for i in off] == ["t1", "t2", "f1", "f2", "f3"]


def test_facts_lifted_above_one_turn_keep_their_own_order() -> None:
    source = turn("t", "Maya is a paediatric nurse at Leeds General now.")
    first = fact("z", "Maya's job", "Maya is a paediatric nurse.", key="maya.job")
    second = fact("a", "Maya's workplace", "Maya works at Leeds General.", key="maya.work")
    out = rank_facts([item(source, 0.8), item(first, 0.6, FOUND), item(second, 0.5, FOUND)], RecallConfig(), NOW)
    assert [i.node.id for i in out] == ["z", "a", "t"]


def test_a_superseded_version_goes_just_below_the_current_one() -> None:
    old = fact("v1", "Maya's city", "Maya lives in Leeds.", key="maya.city", superseded_by="v2")
    middle = fact("v2", "Maya's city", "Maya lives in York.", key="maya.city", superseded_by="v3")
    new = fact("v3", "Maya's city", "Maya lives in Hull.", key="maya.city")
    items = [item(old, 0.9, FOUND), item(middle, 0.8, FOUND), item(new, 0.4, FOUND)]
    out = rank_facts(items, RecallConfig(facts_above_turns=False), NOW)
    assert [i.node.id for i in out] == ["v3", "v1", "v2"]
    assert all(i.score < 0.4 for i in out[1:]) and out[1].below == ["v3"]
    assert "below the current version v3" in out[1].explain()
    unkeyed = [
        item(fact("u1", "l", "Maya lives in Leeds.", superseded_by="u2"), 0.9),
        item(fact("u2", "l", "Hull."), 0.3),
    ]
    assert [i.node.id for i in rank_facts(unkeyed, RecallConfig(), NOW)] == ["u2", "u1"]
    kept = rank_facts(items, RecallConfig(facts_above_turns=False, superseded_below_current=False), NOW)
    assert kept == items


def test_expired_facts_are_not_current() -> None:
    gone = MemoryNode(id="g", layer=Layer.SEMANTIC, label="l", content="c", valid_until=NOW - 1)
    assert not scoring.is_current_fact(gone, NOW) and scoring.is_current_fact(fact("f", "l", "c"), NOW)
    assert not scoring.is_current_fact(turn("t", "c"), NOW)


def test_a_current_fact_is_not_made_old_by_its_age() -> None:
    year = 365 * scoring.DAY
    kept = fact("f", "Maya's job", "Maya is a nurse.").model_copy(update={"updated_at": NOW - year})
    replaced = fact("o", "Maya's job", "Maya is a cook.", superseded_by="f").model_copy(
        update={"updated_at": NOW - year}
    )
    said = turn("t", "Say hi to Maya!").model_copy(update={"occurred_at": NOW - scoring.DAY, "importance": 5.0})
    cfg = RecallConfig()
    dated = cfg.model_copy(update={"current_facts_timeless": False})

    def parts(n: MemoryNode, config: RecallConfig) -> ScoreParts:
        return ScoreParts(relevance=1.0, **scoring.signals(n, config, now=NOW, hops=0, distance=0, window=None))

    assert parts(kept, cfg).recency == 1.0 and parts(kept, cfg).timeless  # kept a year ago, still current
    assert parts(replaced, cfg).recency == pytest.approx(2 ** (-365 / 7))  # a superseded version ages
    assert parts(said, cfg).recency == pytest.approx(2 ** (-1 / 7))  # and so does what was said
    assert parts(kept, dated).recency == pytest.approx(2 ** (-365 / 7)) and not parts(kept, dated).timeless
    # asked about "now" (recency weighs), the year-old current fact outranks yesterday's equally
    # relevant and important turn; dated, it loses to it
    asked, asked_dated = (scoring.for_query(c, "What does Maya do now?") for c in (cfg, dated))
    assert asked.weights.recency > 0
    assert scoring.final_score(asked, parts(kept, asked)) > scoring.final_score(asked, parts(said, asked))
    assert scoring.final_score(asked_dated, parts(kept, asked_dated)) < scoring.final_score(
        asked_dated, parts(said, asked_dated)
    )
    assert "rec 1.00 (a current fact)" in RecallItem(node=kept, score=1.0, parts=parts(kept, cfg)).explain()
    assert "(a current fact)" not in RecallItem(node=said, score=1.0, parts=parts(said, cfg)).explain()
