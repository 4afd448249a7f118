"""Context assembly: recalled memories rendered per layer, credentials scrubbed, cut to a
token budget, with an explanation per item (channel, score parts, path)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from pydantic import BaseModel

from hippograph.models import Layer, MemoryNode
from hippograph.retrieval.types import RecallItem
from hippograph.scrub import scrub_text

CHARS_PER_TOKEN = 4
Renderer = Callable[[RecallItem], str]


def approx_tokens(text: str) -> int:
    """Tokens by the chars/4 heuristic (no tokenizer download needed), never 0 for text."""
    return max(1, -(-len(text) // CHARS_PER_TOKEN)) if text else 0


class ContextEntry(BaseModel):
    id: str
    layer: Layer
    text: str
    tokens: int
    explanation: str


class MemoryContext(BaseModel):
    """The memory block of a prompt and what went into it."""

    text: str
    entries: list[ContextEntry]
    tokens: int
    budget: int
    dropped: list[str]
    """Ids recalled but left out to stay within the budget."""


def assemble(
    items: Sequence[RecallItem],
    renderers: Mapping[Layer, Renderer],
    *,
    budget: int,
    associated: Sequence[RecallItem] = (),
    working: Sequence[MemoryNode] = (),
    working_renderer: Callable[[MemoryNode], str] | None = None,
) -> MemoryContext:
    """Render items best first until the budget is spent; activation-only items go under
    "Associated Context". Every line is scrubbed of credentials."""
    entries: list[ContextEntry] = []
    dropped: list[str] = []
    lines: list[str] = []
    used = 0

    def take(text: str, item_id: str, layer: Layer, why: str) -> None:
        nonlocal used
        text = scrub_text(text)
        cost = approx_tokens(text) + 1
        if used + cost > budget:
            dropped.append(item_id)
            return
        used += cost
        lines.append(text)
        entries.append(ContextEntry(id=item_id, layer=layer, text=text, tokens=cost, explanation=why))

    for node in working:
        render = working_renderer or (lambda n: f"[working] {n.content}")
        take(render(node), node.id, Layer.WORKING, "recent turn (working memory)")
    for item in items:
        take(renderers[item.node.layer](item), item.node.id, item.node.layer, item.explain())
    if associated:
        header = "Associated Context:"
        header_cost = approx_tokens(header) + 1
        for item in associated:
            text = scrub_text(renderers[item.node.layer](item))
            first = header not in lines
            if used + approx_tokens(text) + 1 + (header_cost if first else 0) > budget:
                dropped.append(item.node.id)
                continue
            if first:
                lines.append(header)
                used += header_cost
            take(text, item.node.id, item.node.layer, item.explain())
    return MemoryContext(text="\n".join(lines), entries=entries, tokens=used, budget=budget, dropped=dropped)
