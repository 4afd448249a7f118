"""Context assembly: recalled memories rendered per layer, credentials scrubbed, cut to a
token budget, with an explanation per item (channel, score parts, path)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from pydantic import BaseModel

from hippograph.models import Layer, MemoryNode
from hippograph.retrieval.types import RecallItem
from hippograph.scrub import Scrubber

CHARS_PER_TOKEN = 4
Renderer = Callable[[RecallItem], str]


def approx_tokens(text: str) -> int:
    """Tokens by the chars/4 heuristic (no tokenizer download needed), never 0 for text."""
    return max(1, -(-len(text) // CHARS_PER_TOKEN)) if text else 0


HANDLE_CHARS = 8
"""A memory's handle is the start of its id: short, and the same in every turn."""
HANDLE_PREFIX = "id:"


def handle_of(memory_id: str, taken: Mapping[str, str] | None = None) -> str:
    """The short stable handle of a memory: the first 8 characters of its id, longer only
    when another memory of the same context already has that start (``taken``: handle → id)."""
    taken = taken or {}
    size = HANDLE_CHARS
    while size < len(memory_id) and taken.get(memory_id[:size], memory_id) != memory_id:
        size += 2
    return memory_id[:size]


def path_in_words(item: RecallItem, labels: Mapping[str, str]) -> str:
    """How activation reached an item, e.g. ``via "Bob's city" -RELATES_TO-> this``: memories
    by their label (or handle), shared cues by what they share, edges by their type."""
    if len(item.path) < 2:
        return ""
    words: list[str] = []
    for step, nxt in zip(item.path[:-1], item.path[1:], strict=True):
        if step.node_id.startswith("cue:"):
            kind, _, value = step.node_id[4:].partition(":")
            words.append(f'shared {kind} "{value}"')
        else:
            label = labels.get(step.node_id)
            words.append(f'"{label[:60]}"' if label else f"[{HANDLE_PREFIX}{handle_of(step.node_id)}]")
        rel = nxt.relationship
        words.append(f"-{rel}->" if rel and rel != "HAS_CUE" else "->")
    return "via " + " ".join(words) + " this"


class ContextEntry(BaseModel):
    id: str
    layer: Layer
    text: str
    tokens: int
    explanation: str
    handle: str = ""
    """The short id the line starts with (``[id:<handle>]``): what a model names to retract it."""


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
    scrubber: Scrubber | None = None,
) -> MemoryContext:
    """Render items best first until the budget is spent; activation-only items go under
    "Associated Context" with the path that reached them, in words. Every line starts with
    its memory's handle, ``[id:<handle>]``, and is scrubbed of credentials (by ``scrubber``;
    None: the built-in patterns)."""
    scrub = scrubber or Scrubber.default()
    entries: list[ContextEntry] = []
    dropped: list[str] = []
    lines: list[str] = []
    used = 0
    handles: dict[str, str] = {}
    labels = {i.node.id: i.node.label for i in (*items, *associated) if i.node.label}

    def tagged(text: str, item_id: str) -> tuple[str, str]:
        handle = handle_of(item_id, handles)
        return f"[{HANDLE_PREFIX}{handle}] {scrub.text(text)}", handle

    def take(text: str, item_id: str, layer: Layer, why: str) -> None:
        nonlocal used
        text, handle = tagged(text, item_id)
        cost = approx_tokens(text) + 1
        if used + cost > budget:
            dropped.append(item_id)
            return
        used += cost
        handles[handle] = item_id
        lines.append(text)
        entries.append(ContextEntry(id=item_id, layer=layer, text=text, tokens=cost, explanation=why, handle=handle))

    for node in working:
        render = working_renderer or (lambda n: f"[working] {n.content}")
        take(render(node), node.id, Layer.WORKING, "recent turn (working memory)")
    for item in items:
        take(renderers[item.node.layer](item), item.node.id, item.node.layer, item.explain())
    if associated:
        header = "Associated Context:"
        header_cost = approx_tokens(header) + 1
        for item in associated:
            via = path_in_words(item, labels)
            text = renderers[item.node.layer](item) + (f" ({via})" if via else "")
            first = header not in lines
            if used + approx_tokens(tagged(text, item.node.id)[0]) + 1 + (header_cost if first else 0) > budget:
                dropped.append(item.node.id)
                continue
            if first:
                lines.append(header)
                used += header_cost
            take(text, item.node.id, item.node.layer, item.explain())
    return MemoryContext(text="\n".join(lines), entries=entries, tokens=used, budget=budget, dropped=dropped)
