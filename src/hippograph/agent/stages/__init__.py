"""The stages of an agent turn, one module each, composed in order by
:class:`~hippograph.agent.Agent`.

Each stage is an async generator ``run(turn, deps)`` over the turn's
:class:`~hippograph.agent.turn_state.TurnState` and the agent's
:class:`~hippograph.agent.stages.deps.StageDeps`, yielding typed events and timing itself on
the turn's one clock (``turn.clock``):

========================  ===============================================================
``session``               open (or resume) the chat; background failures of the last turn
``triage``                intent verdict and tool routing
``hydrate``               recall into the memory context, then the prompt
``model_loop``            model calls and tool rounds: ``model`` streams one call,
                          ``tools`` runs one round of tool calls
``fabrication``           the draft's check: observe, revise or refuse; releases held text
``extraction``            the reply's memory ops, as a ``MemoryExtracted`` event
``schedule``              the exchange handed to background consolidation
========================  ===============================================================

This module only names the stages (it imports nothing, so any module may use the names).
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["Stage"]


class Stage(StrEnum):
    """The name of a stage: in timings, hooks and ``StageFailed.stage``."""

    SESSION = "session"
    TRIAGE = "triage"
    HYDRATE = "hydrate"
    PROMPT = "prompt"
    MODEL = "model"
    TOOLS = "tools"
    FABRICATION = "fabrication"
    EXTRACTION = "extraction"
    SCHEDULE = "schedule"
    FINISH = "finish"
    """Checks after the model's last round (fabrication, extraction, schedule) as one
    failure site."""
    CONSOLIDATE = "consolidate"
    """Background consolidation of a finished turn (after the reply)."""
