"""What the fabrication check finds in a draft reply: its mode, each unsupported claim, and the
report of one check. Plain values, read by the configuration, the events and the stages
alike; the check itself is in :mod:`hippograph.agent.fabrication`."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal

DEFAULT_REFUSE_MIN_CONFIDENCE = 0.8
DEFAULT_SAFE_REPLY = (
    "I can't confirm that: my draft contained details (identifiers or actions) that no "
    "tool result or memory supports, so I won't state them. Could you tell me what you "
    "need, or let me check with the right tool?"
)


class FabricationMode(StrEnum):
    """What the check does with its findings."""

    OFF = "off"
    OBSERVE = "observe"
    REVISE = "revise"
    REFUSE = "refuse"


class FindingKind(StrEnum):
    """The kind of unsupported claim."""

    UUID = "uuid"
    HEX_ID = "hex_id"
    SHORT_HEX_NEAR_VERB = "short_hex_near_verb"
    SHORT_HEX_NEAR_KEY = "short_hex_near_key"
    KV = "kv"
    VERB_CLAIM = "verb_claim"


@dataclass(frozen=True, slots=True)
class FabricationFinding:
    """One claim that nothing supports; ``start``/``end`` locate it in the draft."""

    kind: FindingKind
    text: str
    confidence: float
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class FabricationReport:
    """The outcome of one check.

    Attributes:
        reply: The reply to show: the draft, or the safe reply when refused.
        action: ``none`` (nothing found or mode off), ``observed``, ``revise`` or ``refused``.
        revision_instructions: For ``revise``: what a second draft must fix.
    """

    mode: FabricationMode
    findings: list[FabricationFinding] = field(default_factory=list)
    action: Literal["none", "observed", "revise", "refused"] = "none"
    reply: str = ""
    revision_instructions: str | None = None

    @property
    def max_confidence(self) -> float:
        """The highest finding confidence, 0 when there are none."""
        return max((f.confidence for f in self.findings), default=0.0)
