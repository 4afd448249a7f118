"""The one write path for memory operations.

Every writer — a model's extracted ops, the agent's reply block, the GraphQL ``remember``
mutation, the MCP ``remember`` / ``set_trigger`` / ``retract`` tools — builds the same
operations (:mod:`hippograph.ops`) and hands them to :class:`OpWriter`, which scrubs every
text they store of credentials, applies each by its layer, checks registered skills against
the metacognitive gate and writes the audit entries, once.

:meth:`OpWriter.commit` applies many ops and reports each failure (a model's ops);
:meth:`OpWriter.write` applies one and raises (a caller that answers with the stored
memory or an error).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field

from hippograph.errors import HippographError, InvalidInputError
from hippograph.layers.episodic import EpisodicMemory
from hippograph.layers.metacognition import GateMode, MetacognitiveGate
from hippograph.layers.procedural import ProceduralMemory
from hippograph.layers.prospective import ProspectiveMemory
from hippograph.layers.repository import LayerRepository
from hippograph.layers.semantic import SemanticMemory
from hippograph.models import MemoryEdge, MemoryNode
from hippograph.ops import (
    CorrectProfile,
    CreateEvent,
    MemoryOp,
    RegisterSkill,
    ResolveTrigger,
    RetractNode,
    SetTrigger,
    SnoozeTrigger,
    UpsertNode,
)
from hippograph.retrieval.context import HANDLE_CHARS, HANDLE_PREFIX
from hippograph.scope import Scope
from hippograph.store.graph_store import GraphStore

__all__ = ["AUTHORED_TRIGGER_IMPORTANCE", "CommitReport", "OpWriter", "Written"]

MODEL_ACTOR = "model"
"""The actor audits name for ops without a principal (a model's)."""
AUTHORED_TRIGGER_IMPORTANCE = 6.0
"""The importance of a trigger a person sets (API, MCP) without naming one."""


class CommitReport(BaseModel):
    """What :meth:`Memory.commit <hippograph.memory.Memory.commit>` did with each op."""

    applied: list[dict[str, Any]] = Field(default_factory=list)
    failed: list[dict[str, Any]] = Field(default_factory=list)
    touched_ids: list[str] = Field(default_factory=list)


@dataclass(frozen=True)
class Written:
    """What one op wrote.

    Attributes:
        id: The memory the op touched (None: the gate refused the skill).
        node: That memory as stored (None for a retraction or a refused skill).
        gate: The metacognitive gate's note on a registered skill, if it judged one.
    """

    id: str | None
    node: MemoryNode | None = None
    gate: dict[str, Any] | None = None

    @property
    def stored(self) -> MemoryNode:
        """The memory the op stored.

        Raises:
            InvalidInputError: The op stored none (a retraction, a skill the gate refused).
        """
        if self.node is None:
            reason = self.gate["reason"] if self.gate else "the op stores no memory"
            raise InvalidInputError("op", str(reason))
        return self.node


@dataclass(frozen=True)
class OpWriter:
    """Applies memory operations to the layers of one store (built by ``Memory``)."""

    store: GraphStore
    semantic: SemanticMemory
    episodic: EpisodicMemory
    procedural: ProceduralMemory
    prospective: ProspectiveMemory
    gate: MetacognitiveGate
    clock: Callable[[], float]

    def _text(self, text: str) -> str:
        return self.semantic.services.scrubber.text(text)

    def _props(self, props: Mapping[str, Any]) -> dict[str, Any]:
        return self.semantic.services.scrubber.properties(props)

    async def commit(
        self,
        scope: Scope,
        ops: Sequence[MemoryOp],
        *,
        auto_approve_skills: bool = False,
        source_event_id: str | None = None,
        skill_gate: GateMode | str = GateMode.OFF,
        actor: str = MODEL_ACTOR,
    ) -> CommitReport:
        """Apply ``ops`` in order; each failure is reported, never raised."""
        report = CommitReport()
        mode = GateMode(skill_gate)
        for index, op in enumerate(ops):
            try:
                done = await self.write(
                    scope, op, auto_approve_skills=auto_approve_skills, source_event_id=source_event_id,
                    skill_gate=mode, actor=actor,
                )  # fmt: skip
            except HippographError as exc:
                report.failed.append({"index": index, "op": op.op, "error": str(exc)})
                continue
            gate = done.gate
            if done.id is None and gate is not None:
                report.failed.append({"index": index, "op": op.op, "error": gate["reason"], "gate": gate})
                continue
            report.applied.append({"index": index, "op": op.op, "id": done.id, **({"gate": gate} if gate else {})})
            if done.id:
                report.touched_ids.append(done.id)
        return report

    async def write(
        self,
        scope: Scope,
        op: MemoryOp,
        *,
        auto_approve_skills: bool = False,
        source_event_id: str | None = None,
        skill_gate: GateMode | str = GateMode.OFF,
        actor: str = MODEL_ACTOR,
    ) -> Written:
        """Apply one op: its texts scrubbed, by its layer, a skill through the gate.

        Raises:
            InvalidInputError: The op is not valid for its layer, or names no memory of ``scope``.
            HippographError: Any other failure of the layers or the store.
        """
        if isinstance(op, RegisterSkill):
            return await self._register_skill(scope, op, auto_approve_skills, GateMode(skill_gate))
        if isinstance(op, UpsertNode):
            fact = await self.semantic.store_fact(
                scope,
                self._text(op.label),
                self._text(op.content),
                properties=self._props(op.properties),
                importance=op.importance,
                key=op.key,
            )
            edges = []
            for rel in op.relationships:
                targets = await self.semantic.query_facts(scope, label=rel.target, limit=1)
                if targets:
                    edges.append(
                        MemoryEdge(
                            source=fact.id,
                            target=targets[0].id,
                            relationship=rel.type,
                            weight=rel.weight,
                            source_episodic_ids=[source_event_id] if source_event_id else [],
                        )
                    )
            await self.store.upsert_edges(scope, edges)
            return Written(fact.id, fact)
        if isinstance(op, CreateEvent):
            mentioned: list[str] = []
            for label in op.mentions:
                facts = await self.semantic.query_facts(scope, label=label, limit=1)
                mentioned.extend(f.id for f in facts)
            event = await self.episodic.store_event(
                scope,
                self._text(op.content),
                label=self._text(op.label),
                occurred_at=op.occurred_at,
                session_id=op.session_id,
                importance=op.importance,
                properties=self._props(op.properties),
                mentions=mentioned,
            )
            return Written(event.id, event)
        if isinstance(op, SetTrigger):
            trigger = await self.prospective.set_trigger(
                scope, self._text(op.condition), self._text(op.task), due_at=op.due_at, importance=op.importance,
                about=[self._text(a) for a in op.about] or None,
            )  # fmt: skip
            return Written(trigger.id, trigger)
        if isinstance(op, ResolveTrigger):
            node = await self.prospective.resolve_trigger(scope, op.id, outcome=op.outcome, actor=actor)
            return Written(node.id, node)
        if isinstance(op, SnoozeTrigger):
            node = await self.prospective.snooze_trigger(scope, op.id, op.until, actor=actor)
            return Written(node.id, node)
        if isinstance(op, CorrectProfile):
            value = self._text(op.value) if isinstance(op.value, str) else op.value
            node = await self.semantic.correct_profile(
                scope, op.name, op.key, value, reason=self._text(op.reason), actor=actor
            )
            return Written(node.id, node)
        if isinstance(op, RetractNode):
            await self.retract(scope, op.id, reason=op.reason, actor=actor)
            return Written(op.id)
        raise InvalidInputError("op", f"unsupported op {op!r:.60}")

    async def _register_skill(self, scope: Scope, op: RegisterSkill, auto_approve: bool, mode: GateMode) -> Written:
        """Store the op's skill unless the gate refuses it."""
        name, steps, context = self._text(op.name), [self._text(x) for x in op.steps], self._text(op.context)
        properties = self._props(op.properties)
        verdict = await self.gate.check(scope, name, steps, context) if mode is not GateMode.OFF else None
        if verdict is not None and verdict.contradicts:
            note: dict[str, Any] = {"verdict": "refused" if mode is GateMode.REFUSE else "flagged",
                                    "reason": verdict.reason, "preference_ids": verdict.preference_ids}  # fmt: skip
            audit = {"skill": name, **note}
            if mode is GateMode.REFUSE:
                await self.procedural.repo.record_audit(
                    scope, actor="metacognition", action="skill.refuse", target=verdict.preference_ids[0], detail=audit
                )
                return Written(None, gate=note)
            skill = await self.procedural.store_skill(
                scope, name, steps, context=context, importance=op.importance, status="draft",
                properties={**properties, "metacognition": note},
            )  # fmt: skip
            await self.procedural.repo.record_audit(
                scope, actor="metacognition", action="skill.flag", target=skill.id, detail=audit
            )
            return Written(skill.id, skill, note)
        skill = await self.procedural.store_skill(
            scope, name, steps, context=context, importance=op.importance,
            status="approved" if auto_approve else "draft", properties=properties or None,
        )  # fmt: skip
        return Written(skill.id, skill)

    async def retract(self, scope: Scope, node_id: str, *, reason: str, actor: str, phase: str | None = None) -> None:
        """Soft-delete a memory of this scope (or below) with its reason; restorable.

        ``node_id`` is a memory's id or the handle a prompt showed for it (``[id:<handle>]``,
        the start of its id, with or without ``id:``) when exactly one memory has it.

        Raises:
            InvalidInputError: ``node_id`` names no memory of ``scope``, or more than one.
        """
        repo = LayerRepository(self.store)
        retraction = _json({"reason": reason, "actor": actor, "phase": phase})
        now = self.clock()
        if await repo.retract(scope, node_id, now=now, retraction=retraction):
            return
        handle = node_id.removeprefix(HANDLE_PREFIX)
        if len(handle) >= HANDLE_CHARS:
            found = await repo.owned_ids_by_prefix(scope, handle)
            if len(found) == 1 and await repo.retract(scope, found[0], now=now, retraction=retraction):
                return
            if len(found) > 1:
                raise InvalidInputError("id", f"{node_id} names more than one memory of {scope.key}")
        raise InvalidInputError("id", f"{node_id} is not a memory of {scope.key}")


def _json(value: dict[str, Any]) -> str:
    return json.dumps({k: v for k, v in value.items() if v is not None}, sort_keys=True)
