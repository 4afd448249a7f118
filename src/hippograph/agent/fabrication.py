"""Fabrication check: claims in the draft reply that nothing the model saw supports.

Looks for identifiers (UUIDs, long hex ids, short hex ids next to an action verb or an
id-like key), ``key=value`` claims, and first-person action claims ("I ran / deployed /
created X"), and keeps those that appear in no tool result, memory context or user
message. Each finding has a kind and a confidence.

Modes: ``off`` skips the check; ``observe`` reports; ``revise`` reports and gives the
instructions for a second draft; ``refuse`` swaps the draft for a safe reply when a
finding reaches ``refuse_min_confidence`` (default 0.8), and otherwise observes.

The fabrication stage of a turn (:func:`check_draft`) checks the model stage's draft (its
last reply, memory block stripped) and observes, revises or refuses; then releases the reply's
held text. ``revise`` asks the model once more with the findings and streams the rewrite;
``refuse`` replaces the reply with the safe one and drops the draft's memory ops (a
``FabricationBlocked`` event after the ``FabricationDetected`` one says so). With the check off
the stage only settles the reply.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hippograph.agent.events import AgentEvent, FabricationBlocked, FabricationDetected
from hippograph.agent.findings import (
    DEFAULT_REFUSE_MIN_CONFIDENCE,
    DEFAULT_SAFE_REPLY,
    FabricationFinding,
    FabricationMode,
    FabricationReport,
    FindingKind,
)
from hippograph.agent.model_loop import Call, Draft, ModelCaller, assistant
from hippograph.agent.ops_block import parse_reply
from hippograph.agent.ops_block_result import ExtractionResult
from hippograph.agent.stages import Out, Stage
from hippograph.llm.events import MessageEnd, TextDelta
from hippograph.llm.types import ChatMessage, TextBlock

if TYPE_CHECKING:
    from hippograph.agent.observability import StageClock

_ACTION_PAST = (
    "ran|run|executed|deployed|created|made|sent|emailed|deleted|removed|updated|"
    "restarted|rebooted|installed|uninstalled|launched|scheduled|booked|merged|pushed|"
    "committed|uploaded|published|ordered|paid|transferred|called|cancell?ed|wrote|"
    "saved|started|stopped|fixed|built|configured|submitted|opened|closed|reset|"
    "migrated|rolled back|refunded|invited|archived|posted|filed|set up|generated"
)
_STEMS = {"ran": "run", "made": "make", "sent": "send", "paid": "pay", "wrote": "writ"}

_UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I)
_LONG_HEX = re.compile(r"\b[0-9a-f]{16,}\b", re.I)
_SHORT_HEX = re.compile(r"\b[0-9a-f]{6,15}\b", re.I)
_KV = re.compile(r"\b([A-Za-z_][\w.-]{0,40})\s*=\s*(\"[^\"\n]{1,80}\"|'[^'\n]{1,80}'|[^\s,;)]*[^\s,;).:!?])")
_ID_KEY = re.compile(
    r"\b(id|ids|uuid|sha|hash|commit|ref|build|run|job|ticket|order|version|request|"
    r"trace|transaction|txn|pr|issue|deploy(?:ment)?)\b\s*(?:#|no\.?|number|:|=)?\s*$",
    re.I,
)
_VERB_NEAR = re.compile(rf"\b({_ACTION_PAST})\b", re.I)
_VERB_CLAIM = re.compile(
    rf"\b(?:I|I've|I have|we|we've|we have)\s+(?:just\s+|already\s+|successfully\s+|now\s+)?"
    rf"({_ACTION_PAST})\b([^.!?,;:\n]{{0,80}})",
    re.I,
)
_NEAR_CHARS = 40
_OBJECT_WORD = re.compile(r"[\w.-]{3,}")
_STOPWORDS = frozenset(
    {"the", "and", "for", "with", "that", "this", "your", "you", "from", "into", "onto"}
    | {"then", "them", "have", "has", "its", "it's", "all", "new", "now", "just", "also"}
)


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def find_unsupported_claims(
    draft: str,
    *,
    tool_results: Sequence[str] = (),
    memory_context: str = "",
    user_message: str = "",
) -> list[FabricationFinding]:
    """Claims in ``draft`` that nothing the model was given supports.

    Identifiers and ``key=value`` claims are looked up in the tool results, the memory
    context and the user message. Action claims ("I deployed X") are looked up in the
    tool results and memory only: the user asking for an action does not show it was
    done. An action claim in a turn that called no tool at all is the most suspicious.
    """
    corpus = _fold("\n".join([*tool_results, memory_context, user_message]))
    action_corpus = _fold("\n".join([*tool_results, memory_context]))
    called = bool(tool_results)
    findings: list[FabricationFinding] = []
    taken: list[tuple[int, int]] = []

    def add(kind: FindingKind, start: int, end: int, confidence: float) -> None:
        if kind is not FindingKind.VERB_CLAIM:
            if any(start < e and s < end for s, e in taken):
                return
            taken.append((start, end))
        findings.append(FabricationFinding(kind, draft[start:end], confidence, start, end))

    for m in _UUID.finditer(draft):
        if not _supported_id(m.group(0), corpus):
            add(FindingKind.UUID, m.start(), m.end(), 0.9)
    for m in _LONG_HEX.finditer(draft):
        if _is_id_like(m.group(0)) and not _supported_id(m.group(0), corpus):
            add(FindingKind.HEX_ID, m.start(), m.end(), 0.85)
    for m in _SHORT_HEX.finditer(draft):
        token = m.group(0)
        if not _is_id_like(token) or _supported_id(token, corpus):
            continue
        before = draft[max(0, m.start() - _NEAR_CHARS) : m.start()]
        if _ID_KEY.search(before):
            add(FindingKind.SHORT_HEX_NEAR_KEY, m.start(), m.end(), 0.75)
        elif _VERB_NEAR.search(before):
            add(FindingKind.SHORT_HEX_NEAR_VERB, m.start(), m.end(), 0.7)
    for m in _KV.finditer(draft):
        key, value = m.group(1), m.group(2).strip("\"'")
        if _kv_supported(key, value, corpus):
            continue
        confidence = 0.8 if any(c.isdigit() for c in value) else 0.6
        add(FindingKind.KV, m.start(), m.end(), confidence)
    for m in _VERB_CLAIM.finditer(draft):
        if not _claim_supported(m.group(1), m.group(2), action_corpus):
            add(FindingKind.VERB_CLAIM, m.start(), m.end(), 0.7 if called else 0.85)
    return sorted(findings, key=lambda f: f.start)


def _is_id_like(token: str) -> bool:
    return any(c.isdigit() for c in token) and any(c.isalpha() for c in token)


def _supported_id(token: str, corpus: str) -> bool:
    folded = _fold(token)
    return folded in corpus or folded.replace("-", "") in corpus.replace("-", "")


def _kv_supported(key: str, value: str, corpus: str) -> bool:
    folded = _fold(value)
    if not folded:
        return True
    return folded in corpus


def _claim_supported(verb: str, obj: str, corpus: str) -> bool:
    verb = _fold(verb)
    stem = _STEMS.get(verb, verb[:-2] if verb.endswith("ed") else verb)
    stem = stem[:-1] if stem.endswith("e") else stem
    if stem[:4] not in corpus:
        return False
    words = [w for w in _OBJECT_WORD.findall(_fold(obj)) if w not in _STOPWORDS]
    return not words or any(w in corpus for w in words)


class FabricationChecker:
    """Runs the check in a mode.

    Args:
        mode: off / observe / revise / refuse.
        refuse_min_confidence: The confidence at which ``refuse`` swaps the draft.
        safe_reply: The reply shown instead of a refused draft.
    """

    def __init__(
        self,
        mode: FabricationMode = FabricationMode.OFF,
        *,
        refuse_min_confidence: float = DEFAULT_REFUSE_MIN_CONFIDENCE,
        safe_reply: str = DEFAULT_SAFE_REPLY,
    ) -> None:
        if not 0.0 <= refuse_min_confidence <= 1.0:
            raise ValueError("refuse_min_confidence must be within [0, 1]")
        self.mode = FabricationMode(mode)
        self.refuse_min_confidence = refuse_min_confidence
        self.safe_reply = safe_reply

    def check(
        self,
        draft: str,
        *,
        tool_results: Sequence[str] = (),
        memory_context: str = "",
        user_message: str = "",
    ) -> FabricationReport:
        """Check one draft against what the model was given this turn."""
        if self.mode is FabricationMode.OFF:
            return FabricationReport(self.mode, reply=draft)
        findings = find_unsupported_claims(
            draft,
            tool_results=tool_results,
            memory_context=memory_context,
            user_message=user_message,
        )
        if not findings:
            return FabricationReport(self.mode, reply=draft)
        if self.mode is FabricationMode.REVISE:
            return FabricationReport(self.mode, findings, "revise", draft, revision_instructions(findings))
        top = max(f.confidence for f in findings)
        if self.mode is FabricationMode.REFUSE and top >= self.refuse_min_confidence:
            return FabricationReport(self.mode, findings, "refused", self.safe_reply)
        return FabricationReport(self.mode, findings, "observed", draft)


def revision_instructions(findings: Sequence[FabricationFinding]) -> str:
    """A message asking the model to redraft without the unsupported claims."""
    lines = [f"- {f.kind}: {f.text!r}" for f in findings]
    return (
        "Your draft states things that no tool result, memory or user message supports:\n"
        + "\n".join(lines)
        + "\nRewrite the reply without them. Do not invent identifiers or claim actions "
        "you did not perform through a tool; say what you do not know instead."
    )


HOLDING_MODES = frozenset({FabricationMode.REVISE, FabricationMode.REFUSE})
"""Modes that must see the whole draft before the user sees any of it."""
KEEP_BLOCK_NOTE = "\nKeep your <MEMORY_EXTRACT> block, if you had one, at the end of the rewritten reply."


@dataclass(frozen=True)
class Checked:
    """The fabrication stage's output: the reply, its memory block's extraction, whether the
    draft was refused, and the ``MessageEnd`` that closes the turn (not yet yielded)."""

    reply: str
    extraction: ExtractionResult
    refused: bool
    end: MessageEnd


async def check_draft(
    draft: Draft,
    *,
    checker: FabricationChecker,
    caller: ModelCaller,
    max_ops: int,
    clock: StageClock,
    out: Out[Checked],
) -> AsyncIterator[AgentEvent]:
    """The fabrication stage: check the draft; yield the finding, any revision, then the
    reply's text (held back by the model stage in the holding modes)."""
    last = draft.last
    extraction = parse_reply(draft.raw_texts, max_ops=max_ops, clock=clock)
    reply, released, end, refused = extraction.reply.strip(), last.held, last.end, False
    if checker.mode is not FabricationMode.OFF:
        with clock.time(Stage.FABRICATION):
            report = checker.check(
                reply,
                tool_results=draft.tool_results,
                memory_context="\n".join(draft.memory_texts),
                user_message="\n".join([*(m.text for m in draft.messages if m.role == "user")]),
            )
        detected = FabricationDetected.from_report(report)
        if detected is not None:
            yield detected
        if report.action == "refused":
            refused, reply = True, report.reply
            released = [TextDelta(index=_text_index(last), text=reply)]
            yield FabricationBlocked(
                confidence=max(f.confidence for f in report.findings), min_confidence=checker.refuse_min_confidence,
                findings=len(report.findings), dropped_ops=len(extraction.ops), reply=reply,
            )  # fmt: skip
        elif report.action == "revise" and report.revision_instructions:
            yield last.end  # the draft's text is never shown; its message is closed
            revision = [
                *draft.messages,
                assistant(last.response),
                ChatMessage(role="user", content=report.revision_instructions + KEEP_BLOCK_NOTE),
            ]
            revised_call = Out[Call]()
            async for event in caller.call(revision, hold=False, out=revised_call, purpose="revision"):
                yield event
            end = revised_call.value.end
            revised = parse_reply([revised_call.value.response.text], max_ops=max_ops, clock=clock)
            reply = revised.reply.strip()
            if revised.strategy is not None:
                extraction = revised
            released = []
    for delta in released:
        yield delta
    out.value = Checked(reply, extraction, refused, end)


def _text_index(last: Call) -> int:
    """The content index the reply's text had (where the safe reply goes)."""
    if last.held:
        return last.held[0].index
    for i, block in enumerate(last.response.content):
        if isinstance(block, TextBlock):
            return i
    return 0
