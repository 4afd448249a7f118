"""Hydrate: recall + spreading activation into a token-budgeted, scrubbed memory context.

The layers come from triage: recall searches the semantic, episodic and procedural layers the
verdict keeps; working memory adds the last turns verbatim. Everything fits in the token
budget. (Prospective triggers are evaluated beside hydration, in their own prompt section:
:mod:`hippograph.agent.reminders`.) A failing recall never fails the turn: the failure becomes an
:class:`~hippograph.agent.events.StageFailed` and the context falls back to working memory.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from collections.abc import Awaitable, Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import JsonValue

from hippograph.agent.config import HydrateSettings
from hippograph.agent.events import ActivatedNode, Activation, ActivationPath, StageFailed
from hippograph.models import Layer
from hippograph.retrieval.context import MemoryContext, approx_tokens
from hippograph.retrieval.types import RecallResult
from hippograph.scrub import scrub_text

if TYPE_CHECKING:
    from hippograph.layers import MemoryOrchestrator
    from hippograph.layers.turn_reads import TurnReads
    from hippograph.scope import Scope

log = logging.getLogger(__name__)

RECALL_LAYERS = (Layer.SEMANTIC, Layer.EPISODIC, Layer.PROCEDURAL)
MAX_LABEL_CHARS = 120
T = TypeVar("T")


@dataclass
class Hydration:
    """The memory context of one hydration and how it came about.

    Attributes:
        text: The context text (empty when nothing was found).
        activation: The Activation event (None when recall did not run or failed).
        errors: StageFailed events of the stages that failed (the context is then partial).
        ms: Wall time of the hydration.
    """

    text: str = ""
    activation: Activation | None = None
    recall: RecallResult | None = None
    context: MemoryContext | None = None
    errors: list[StageFailed] = field(default_factory=list)
    ms: float = 0.0


class Hydrator:
    """Builds memory contexts from a :class:`MemoryOrchestrator`."""

    def __init__(self, memory: MemoryOrchestrator, settings: HydrateSettings) -> None:
        self._memory = memory
        self._settings = settings

    async def hydrate(
        self,
        scope: Scope,
        query: str,
        layers: Collection[Layer] = tuple(Layer),
        *,
        top_k: int | None = None,
        session_id: str | None = None,
        turn_reads: TurnReads | None = None,
    ) -> Hydration:
        """Recall for ``query`` within ``layers`` and render the context (the working
        memories from ``turn_reads`` when given: the turn's combined read, whether recall runs
        or only the last turns are shown).

        Never raises for a store or retrieval failure; those are in ``errors``.
        """
        started = time.perf_counter()
        s = self._settings
        out = Hydration()
        query = query.strip()[: s.max_query_chars]
        wanted = [layer for layer in RECALL_LAYERS if layer in layers]
        working = s.include_working and Layer.WORKING in layers
        recall_layers = None if len(wanted) == len(RECALL_LAYERS) else wanted

        async def recall() -> tuple[RecallResult, MemoryContext] | None:
            if not wanted or not query:
                return None
            capability = self._memory.for_scope(scope, limit=s.top_k, token_budget=s.token_budget)
            found = await capability.recall(
                query, layers=recall_layers, limit=top_k, include_working=working, session_id=session_id,
                turn_reads=turn_reads,
            )  # fmt: skip
            return found.result, found.context

        recalled = await guarded("hydrate", recall(), out.errors)
        used = 0
        lines: list[str] = []
        if recalled is not None:
            out.recall, out.context = recalled
            out.activation = activation_event(out.recall, out.context, s.max_activation_nodes)
            out.errors.extend(  # what degraded: the context holds what the other parts found
                StageFailed(stage=f"hydrate.{d.part}", error_type=d.error_type, message=d.message)
                for d in out.recall.degraded
            )
            if out.context.text:
                lines.append(out.context.text)
            used = out.context.tokens
        elif working:  # recall off for this verdict, or failed: the last turns still help
            last = self._memory.last_turns(scope, session_id=session_id, turn_reads=turn_reads)
            nodes = await guarded("working", last, out.errors) or []
            for node in nodes:
                line = scrub_text(self._memory.working.render_for_prompt(node))
                cost = approx_tokens(line) + 1
                if used + cost <= s.token_budget:
                    lines.append(line)
                    used += cost
        out.text = "\n".join(lines)
        out.ms = (time.perf_counter() - started) * 1000.0
        return out


async def guarded(stage: str, work: Awaitable[T], errors: list[StageFailed]) -> T | None:
    """The result of ``work``, or None with its failure appended to ``errors`` as a StageFailed."""
    try:
        return await work
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        log.warning("%s failed: %s", stage, type(exc).__name__, exc_info=True)
        errors.append(StageFailed.from_exception(stage, exc))
        return None


def activation_event(result: RecallResult, context: MemoryContext | None, max_nodes: int) -> Activation:
    """The Activation event of a recall: recalled and activated nodes, paths, details."""
    nodes: list[ActivatedNode] = []
    seen: set[str] = set()
    for item in result.items:
        seen.add(item.node.id)
        nodes.append(
            ActivatedNode(
                id=item.node.id,
                score=round(item.score, 6),
                layer=item.node.layer.value,
                label=scrub_text(item.node.label)[:MAX_LABEL_CHARS] or None,
                hop=max(0, len(item.path) - 1),
                details={
                    "recalled": True,
                    "channels": {c.value: r for c, r in item.channels.items()},
                },
            )
        )
    log_ = result.activation
    for node in log_.activated:  # only as many as the event lists: the log may hold thousands
        if len(nodes) >= max_nodes:
            break
        if node.id not in seen:
            seen.add(node.id)
            nodes.append(
                ActivatedNode(
                    id=node.id,
                    score=round(node.activation, 6),
                    hop=max(0, node.hop),
                    details={"recalled": False},
                )
            )
    paths = [
        ActivationPath(
            node_ids=[step.node_id for step in node.path],
            relationships=[step.relationship or "" for step in node.path[1:]],
            score=round(node.activation, 6),
        )
        for node in itertools.islice((n for n in log_.activated if len(n.path) > 1), max_nodes)
    ]
    details: dict[str, JsonValue] = {
        "seeds": len(log_.seeds),
        "pending_connections": len(log_.pending),
        "capped": log_.capped,
        "timings_ms": _rounded(result.timings.model_dump()),
    }
    if context is not None:
        details.update(
            context_tokens=context.tokens,
            budget_tokens=context.budget,
            in_context=[e.id for e in context.entries],
            dropped=list(context.dropped),
        )
    return Activation(nodes=nodes[:max_nodes], paths=paths[:max_nodes], details=details)


def _rounded(values: dict[str, Any]) -> dict[str, JsonValue]:
    return {k: round(float(v), 3) for k, v in values.items()}
