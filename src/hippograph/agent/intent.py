"""What triage decides about a turn: the intent verdict with its evidence, the tool routing,
and the settings that steer both. Plain values, read by the configuration, the events and
the stages alike; the classifier and the triage stage are in :mod:`hippograph.agent.triage`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from hippograph.llm.types import ToolSpec
from hippograph.models import Layer

DEFAULT_ALWAYS_INCLUDE_TOOLS: tuple[str, ...] = ("hydrate_context",)
"""Tools routing never drops."""


class Intent(StrEnum):
    """What the user wants: to know something, to get something done, or unclear."""

    KNOWLEDGE = "knowledge"
    ACTION = "action"
    AMBIGUOUS = "ambiguous"


class TriageMode(StrEnum):
    """How much a verdict changes the turn."""

    OFF = "off"
    OBSERVE = "observe"
    ENFORCE = "enforce"


@dataclass(frozen=True, slots=True)
class IntentResult:
    """A verdict with the evidence behind it."""

    verdict: Intent
    knowledge_score: float
    action_score: float
    matched_knowledge: tuple[str, ...] = ()
    matched_action: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ToolRouting:
    """Which tools go to the model.

    Attributes:
        tools: The tools to send (all of them unless the mode is ``enforce``).
        kept: Names the verdict keeps.
        dropped: Names the verdict drops (sent anyway under ``observe``).
    """

    verdict: Intent | None
    mode: TriageMode
    tools: list[ToolSpec]
    kept: tuple[str, ...] = ()
    dropped: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class TriageConfig:
    """Triage settings; the defaults (all off) change nothing."""

    intent_mode: TriageMode = TriageMode.OFF
    tool_routing_mode: TriageMode = TriageMode.OFF
    always_include_tools: tuple[str, ...] = DEFAULT_ALWAYS_INCLUDE_TOOLS
    tool_intents: Mapping[str, Intent] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class TriageDecision:
    """The outcome of triage for one turn."""

    intent: IntentResult | None
    intent_mode: TriageMode
    routing: ToolRouting
    layers: frozenset[Layer]

    @property
    def verdict(self) -> Intent | None:
        """The verdict, or None when the classifier is off."""
        return self.intent.verdict if self.intent else None
