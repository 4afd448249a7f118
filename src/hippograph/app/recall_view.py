"""A recall explained in words, for people and for agent hosts: which channels found each
memory, how its score came about, and the activation path that reached it, with the memories
on that path named by their text. The CLI's tree, the demo and the MCP server use it."""

from __future__ import annotations

from collections.abc import Mapping

from hippograph.memory import Memory
from hippograph.models import MemoryNode
from hippograph.retrieval.types import Channel, RecallItem, RecallResult
from hippograph.scope import Scope

CHANNEL_WORDS: dict[Channel, str] = {
    Channel.VECTOR: "meaning (vector index)",
    Channel.FULLTEXT: "words (full-text index)",
    Channel.ACTIVATION: "spreading activation",
    Channel.RECENT: "recent in its session",
}
SNIPPET = 80


def snippet(node: MemoryNode, limit: int = SNIPPET) -> str:
    """The memory's text (its label when it has none), cut to ``limit`` characters."""
    text = " ".join((node.content or node.label).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def channels_in_words(item: RecallItem) -> str:
    """``found by meaning (vector index) #1 and words (full-text index) #3``."""
    found = [f"{CHANNEL_WORDS[c]} #{rank}" for c, rank in sorted(item.channels.items(), key=lambda kv: kv[1])]
    return "found by " + " and ".join(found) if found else "found by no channel (carried by its context)"


def score_in_words(item: RecallItem) -> str:
    """The four signals and the multipliers that are not neutral, in words."""
    p = item.parts
    words = (
        f"score {item.score:.2f} = relevance {p.relevance:.2f} + recency {p.recency:.2f}"
        f" + frequency {p.frequency:.2f} + proximity {p.proximity:.2f}"
    )
    spread = p.edges + p.session + p.cues
    if spread:
        words += f"; activation added {spread:.2f} (edges {p.edges:.2f}, session {p.session:.2f}, cues {p.cues:.2f})"
    if p.person:
        words += f"; said by the person the query names (+{p.person:.1f})"
    if p.currency < 1:
        words += f"; no longer current (× {p.currency:.2f})"
    if p.scope_weight != 1:
        words += f"; from an ancestor scope (× {p.scope_weight:.2f})"
    if p.time_match != 1:
        words += f"; time match × {p.time_match:.2f}"
    return words


def path_in_words(item: RecallItem, labels: Mapping[str, str]) -> str | None:
    """``“Sam moved to Porto” —MENTIONS→ “Porto”``: the seed and every hop to this memory;
    None when the memory was found directly (no hop)."""
    if len(item.path) <= 1:
        return None
    parts = []
    for step in item.path:
        name = f"“{labels.get(step.node_id, step.node_id[:8])}”"
        parts.append(f"—{step.relationship}→ {name}" if step.relationship else name)
    return " ".join(parts)


def explanation(item: RecallItem, labels: Mapping[str, str]) -> str:
    """One sentence per aspect: channels, score parts, activation path."""
    path = path_in_words(item, labels)
    reached = f"; reached by activation: {path}" if path else ""
    return f"{channels_in_words(item)}; {score_in_words(item)}{reached}"


async def path_labels(memory: Memory, scope: Scope, result: RecallResult) -> dict[str, str]:
    """Snippets of every memory on the items' activation paths (recalled or not), by id."""
    labels = {i.node.id: snippet(i.node, 50) for i in result.items}
    missing = sorted({s.node_id for i in result.items for s in i.path} - labels.keys())
    if missing:
        labels.update({n.id: snippet(n, 50) for n in await memory.get_nodes(scope, missing)})
    return labels
