"""Phase 10 — episodic_summary: fold the oldest events of a crowded scope into summaries."""

from __future__ import annotations

import logging

from pydantic import JsonValue

from hippograph.consolidation.context import Counted, Counts, PhaseContext
from hippograph.consolidation.hooks import Summarizer, extractive_summary
from hippograph.consolidation.phases._nodes import derived_id, node_row
from hippograph.consolidation.queries import ConsolidationQuery as Q
from hippograph.models import Layer, MemoryNode
from hippograph.store.transaction import Row

log = logging.getLogger(__name__)
SUMMARY_LABEL = "META:episodic_summary"


class _Event(Row):
    id: str
    label: str | None = None
    content: str | None = None
    at: float | None = None
    """When it happened (else when it was written)."""


class _Fold(Row):
    """The oldest events of one crowded scope, and the scope's latest summary before them."""

    scope_key: str
    previous: str | None = None
    events: list[_Event]


class _Folded(Counted):
    summaries: int = 0
    folded: int = 0
    repointed: int = 0


async def _summary_text(ctx: PhaseContext, events: list[_Event]) -> tuple[str, str, bool]:
    """(text, method, whether a model failed): the model's summary, else the extractive one."""
    c = ctx.config
    failed = False
    texts = [e.content or e.label or "" for e in events]
    if isinstance(ctx.model, Summarizer):
        try:
            text = (await ctx.model.summarize(texts)).strip()
            if text:
                return text[: c.summary_max_chars], "model", False
            failed = True
            log.warning("episode summary model returned nothing; using the extractive summary")
        except Exception:  # a model failure must not stop the sleep
            failed = True
            log.warning("episode summary model failed; using the extractive summary", exc_info=True)
    times = [e.at for e in events]
    text = extractive_summary(texts, times, line_chars=c.summary_line_chars, max_chars=c.summary_max_chars)
    return text, "extractive", failed


async def episodic_summary(ctx: PhaseContext) -> Counts:
    """While a scope holds > 100 episodic events, fold its oldest 50 into a
    META:episodic_summary memory (importance 6.0): edges are re-pointed to it (MENTIONS keep
    the facts' provenance), it SUMMARIZES the scope's previous summary, the events go."""
    c = ctx.config
    max_folds = c.quick_nap_max_folds if ctx.quick else c.episodic_max_folds
    if max_folds == 0:
        return {"summaries": 0, "folded": 0, "repointed": 0}
    chunks = await ctx.read(
        Q.GET_EPISODE_FOLDS,
        _Fold,
        max_events=c.episodic_max_events,
        fold_size=c.episodic_fold_size,
        max_folds=max_folds,
    )
    rows = []
    model_written = model_failed = 0
    latest: dict[str, str | None] = {}
    for chunk in chunks:
        events, key = chunk.events, chunk.scope_key
        ids = [e.id for e in events]
        folded: list[JsonValue] = list(ids)
        text, method, failed = await _summary_text(ctx, events)
        model_written += method == "model"
        model_failed += failed
        times = [e.at for e in events if e.at is not None]
        node = MemoryNode(
            id=derived_id("summary", key, ids[0], ids[-1]),
            layer=Layer.EPISODIC,
            scope_key=key,
            label=SUMMARY_LABEL,
            content=text,
            importance=c.summary_importance,
            properties={
                "kind": "summary",
                "meta": True,
                "method": method,
                "events": len(ids),
                "summarized_ids": folded,
                "span_start": min(times, default=None),
                "span_end": max(times, default=None),
            },
            occurred_at=max(times, default=ctx.now),
            created_at=ctx.now,
            updated_at=ctx.now,
        )
        previous = latest.get(key, chunk.previous)
        latest[key] = node.id
        rows.append(node_row(node, event_ids=ids, previous=previous))
    if not rows:
        return {"summaries": 0, "folded": 0, "repointed": 0}
    row = await ctx.batch(Q.FOLD_EPISODES, _Folded, rows=rows, fold_batch=c.episodic_fold_batch)
    counts = row.counts()
    if model_written:
        counts["model_written"] = model_written
    if model_failed:
        counts["model_failed"] = model_failed
    return counts
