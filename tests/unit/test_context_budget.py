"""Context assembly (hippograph.retrieval.context): best first within the token budget, what was
left out reported, activation-only memories under "Associated Context", credentials masked."""

from __future__ import annotations

import pytest

from hippograph.models import Layer, MemoryNode
from hippograph.retrieval.context import approx_tokens, assemble
from hippograph.retrieval.types import Channel, PathStep, RecallItem, ScoreParts
from hippograph.scrub import REDACTED

HEADER = "Associated Context:"


def item(text: str, score: float, *, layer: Layer = Layer.SEMANTIC, activated: bool = False) -> RecallItem:
    node = MemoryNode(layer=layer, content=text)
    channels = {Channel.ACTIVATION: 1} if activated else {Channel.VECTOR: 1, Channel.FULLTEXT: 2}
    path = [PathStep(node_id="seed"), PathStep(node_id=node.id, relationship="NEXT")] if activated else []
    return RecallItem(node=node, score=score, parts=ScoreParts(relevance=score), channels=channels, path=path)


RENDER = {layer: (lambda i, layer=layer: f"[{layer.value}] {i.node.content}") for layer in Layer}


@pytest.mark.parametrize(("text", "tokens"), [("", 0), ("a", 1), ("abcd", 1), ("abcde", 2), ("x" * 400, 100)])
def test_approx_tokens(text: str, tokens: int) -> None:
    assert approx_tokens(text) == tokens


@pytest.mark.parametrize("budget", [50, 60, 100, 250, 2000])
def test_the_budget_is_never_exceeded_and_everything_left_out_is_reported(budget: int) -> None:
    items = [item(f"memory number {i} " + "word " * (i % 7 * 5), 1.0 - i / 100) for i in range(40)]
    ctx = assemble(items, RENDER, budget=budget)
    assert ctx.tokens <= budget and ctx.budget == budget
    assert sum(e.tokens for e in ctx.entries) == ctx.tokens
    assert approx_tokens(ctx.text) <= ctx.tokens
    kept = [e.id for e in ctx.entries]
    assert sorted(kept + ctx.dropped) == sorted(i.node.id for i in items)
    assert kept == [i.node.id for i in items if i.node.id in kept]  # best first, order kept
    assert ctx.text.splitlines() == [e.text for e in ctx.entries]


def test_a_long_item_is_dropped_but_shorter_later_ones_still_fit() -> None:
    items = [item("short one", 0.9), item("long " * 200, 0.8), item("short two", 0.7)]
    ctx = assemble(items, RENDER, budget=60)
    assert [e.text for e in ctx.entries] == [
        f"[id:{items[0].node.id[:8]}] [semantic] short one",
        f"[id:{items[2].node.id[:8]}] [semantic] short two",
    ]  # each line starts with its memory's handle (issue 9 #5)
    assert ctx.dropped == [items[1].node.id]


def test_each_entry_explains_itself() -> None:
    it = item("the harbor lantern", 0.8)
    entry = assemble([it], RENDER, budget=100).entries[0]
    assert entry.explanation == it.explain()
    assert "found by fulltext #2, vector #1" in entry.explanation and entry.layer is Layer.SEMANTIC


def test_working_memory_comes_first_then_direct_hits_then_associated_context() -> None:
    turn = MemoryNode(layer=Layer.WORKING, content="User: hi")
    direct, assoc = item("direct hit", 0.9), item("reached by activation", 0.5, activated=True)
    ctx = assemble([direct], RENDER, budget=200, associated=[assoc], working=[turn])
    assert [line.split("] ", 1)[1] if line != HEADER else line for line in ctx.text.splitlines()] == [
        "[working] User: hi", "[semantic] direct hit", HEADER,
        "[semantic] reached by activation (via [id:seed] -NEXT-> this)",  # the path, in words
    ]  # fmt: skip
    assert [e.id for e in ctx.entries] == [turn.id, direct.node.id, assoc.node.id]
    assert ctx.tokens == sum(e.tokens for e in ctx.entries) + approx_tokens(HEADER) + 1 <= 200


def test_no_header_when_no_associated_item_fits() -> None:
    ctx = assemble([item("direct", 0.9)], RENDER, budget=20, associated=[item("x " * 200, 0.5, activated=True)])
    assert HEADER not in ctx.text and len(ctx.dropped) == 1


def test_the_associated_header_never_pushes_the_count_over_the_budget() -> None:
    direct = [item("x" * 180, 0.9)]  # 45 + 1 tokens
    ctx = assemble(direct, RENDER, budget=50, associated=[item("y" * 40, 0.5, activated=True)])
    assert ctx.tokens <= 50


def test_credentials_never_reach_the_context_text() -> None:
    secrets = [
        "sk-ant-api03-ZZZZZZZZZZZZZZZZZZZZ",
        "hunter2",
        "abcdefghijklmnopqrst",
        "AKIAABCDEFGHIJKLMNOP",
    ]
    items = [
        item(f"deploy key {secrets[0]}", 0.9),
        item(f"db password: {secrets[1]}", 0.8, layer=Layer.PROCEDURAL),
        item(f"Authorization: Bearer {secrets[2]}", 0.7, layer=Layer.EPISODIC),
    ]
    working = [MemoryNode(layer=Layer.WORKING, content=f"aws {secrets[3]}")]
    ctx = assemble(items, RENDER, budget=500, associated=[item(f"token={secrets[1]}", 0.3, activated=True)],
                   working=working)  # fmt: skip
    for secret in secrets:
        assert secret not in ctx.text
        assert all(secret not in e.text for e in ctx.entries)
    assert ctx.text.count(REDACTED) == 5
