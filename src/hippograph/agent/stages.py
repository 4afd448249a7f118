"""The names of an agent turn's stages, and the holder a stage hands its output back in.

A turn runs these stages in order (:class:`~hippograph.agent.Agent` calls them one after the
other; each is one function of the module of its concern, taking its inputs as parameters,
yielding its events and leaving its typed output in an :class:`Out`):

- ``session``: :func:`hippograph.agent.sessions.open_session` → the ``Session`` (then the
  turn runs under its lock);
- ``triage``: :func:`hippograph.agent.triage.run_triage` → ``Triaged`` (the decision and
  the turn's tools);
- ``hydrate`` and ``prompt``: :func:`hippograph.agent.hydrate.build_prompt` → ``Prompt``
  (the system prompt with its sections, the messages, the memory context);
- ``model`` and ``tools``: :func:`hippograph.agent.model_loop.run_model_loop` → ``Draft``
  (the last reply and its held text, what the turn saw); a round of tools is
  :func:`hippograph.agent.tools.run_round`;
- ``fabrication``: :func:`hippograph.agent.fabrication.check_draft` → ``Checked`` (the
  reply, its extraction, the closing ``MessageEnd``);
- ``extraction``: :func:`hippograph.agent.ops_block.settle_ops` → ``Settled`` (the ops to
  apply and their event);
- ``schedule``: :func:`hippograph.agent.background.record_turn` (the exchange handed to
  background consolidation).

This module imports nothing of the agent, so any module may use the names.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Generic, TypeVar

__all__ = ["Out", "Stage", "StageError"]

T = TypeVar("T")


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


class Out(Generic[T]):
    """Where a stage (an async generator of events) leaves its output when it finishes."""

    __slots__ = ("value",)
    value: T


class StageError(Exception):
    """A failure inside a stage that names where it happened (the model call, a tool round);
    the turn reports ``error`` as that stage's fatal failure."""

    def __init__(self, stage: Stage, error: Exception) -> None:
        super().__init__(f"{stage}: {type(error).__name__}")
        self.stage, self.error = stage, error
