"""Triage: a deterministic intent classifier (no model call) and tool routing by verdict.

The message is NFKC-normalised and case-folded, split into words, and scored: action
verbs and knowledge verbs weigh 2, keywords 1; a leading imperative verb adds 1 to
action, a question (``?``, a wh-word or an auxiliary first) adds 1.5 to knowledge. The
higher score wins by at least ``margin``; otherwise (or with no signal) it is ambiguous.

Modes: ``off`` does nothing; ``observe`` classifies and reports but changes nothing;
``enforce`` acts on the verdict (fewer layers to hydrate, fewer tools to send).

The triage stage of a turn (:func:`run_triage`) gathers the turn's tools from the capabilities
registered, decides, and reports the verdict and the routing.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hippograph.agent.events import AgentEvent, IntentClassified, StageFailed, ToolRoutingDecision
from hippograph.agent.intent import (
    DEFAULT_ALWAYS_INCLUDE_TOOLS,
    Intent,
    IntentResult,
    ToolRouting,
    TriageConfig,
    TriageDecision,
    TriageMode,
)
from hippograph.agent.prompts import HYDRATE_CONTEXT_TOOL_NAME, hydrate_context_tool
from hippograph.agent.stages import Out, Stage
from hippograph.agent.tool_capabilities import ToolCapability, tools_for
from hippograph.agent.tools import AgentTool
from hippograph.llm.types import ToolSpec
from hippograph.models import Layer

if TYPE_CHECKING:
    from hippograph.agent.observability import StageClock
    from hippograph.scope import Scope


def _wordset(text: str) -> frozenset[str]:
    return frozenset(text.split())


ACTION_VERBS: frozenset[str] = _wordset(
    """
    add append apply approve archive assign book build buy call cancel change charge close
    commit configure create delete deploy disable download draft edit email enable execute
    export fix generate import install invite kill launch log make merge migrate move notify
    open order pay post publish purge push reboot record refund register reject release
    reload remind remove rename reply reset restart restore revert rollback run save schedule
    send set setup share ship start stop submit sync transfer trigger uninstall update
    upgrade upload write
    """
)
KNOWLEDGE_VERBS: frozenset[str] = _wordset(
    """
    compare define describe explain know learn mean recall remember summarize summarise
    tell think understand wonder clarify elaborate
    """
)
ACTION_KEYWORDS: frozenset[str] = _wordset(
    """
    asap now immediately ticket pr deployment server cluster pipeline job task reminder
    meeting calendar invoice payment file branch database script cron
    """
) | frozenset({"go ahead", "right away", "for me", "set up", "roll back"})
KNOWLEDGE_KEYWORDS: frozenset[str] = _wordset(
    """
    what who whom whose when where why which how fact facts history meaning definition
    difference reason details info information status favorite favourite preference
    """
) | frozenset({"do you know", "do you remember", "tell me about"})
QUESTION_STARTERS: frozenset[str] = _wordset(
    """
    what who whom whose when where why which how is are was were do does did can could
    would should will has have had am
    """
)

VERB_WEIGHT = 2.0
KEYWORD_WEIGHT = 1.0
IMPERATIVE_BONUS = 1.0
QUESTION_BONUS = 1.5
DEFAULT_MARGIN = 1.0

_WORD = re.compile(r"\w+(?:['\u2019]\w+)?")
_POLITE_OPENERS = frozenset({"please", "kindly", "now", "then", "ok", "okay", "hey"})


def normalize(text: str) -> str:
    """NFKC-normalised, case-folded text with collapsed whitespace."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def words(text: str) -> list[str]:
    """The words of already-normalised text."""
    return _WORD.findall(text)


class IntentClassifier:
    """Deterministic verb + keyword intent classifier.

    Args:
        action_verbs, knowledge_verbs, action_keywords, knowledge_keywords: Word lists
            (single words or phrases); they are normalised like the message.
        margin: How far ahead the winning score must be; closer is ambiguous.
    """

    def __init__(
        self,
        *,
        action_verbs: Iterable[str] = ACTION_VERBS,
        knowledge_verbs: Iterable[str] = KNOWLEDGE_VERBS,
        action_keywords: Iterable[str] = ACTION_KEYWORDS,
        knowledge_keywords: Iterable[str] = KNOWLEDGE_KEYWORDS,
        margin: float = DEFAULT_MARGIN,
    ) -> None:
        self._action_verbs = frozenset(normalize(w) for w in action_verbs)
        self._knowledge_verbs = frozenset(normalize(w) for w in knowledge_verbs)
        self._action_keywords = frozenset(normalize(w) for w in action_keywords)
        self._knowledge_keywords = frozenset(normalize(w) for w in knowledge_keywords)
        self._margin = margin

    def classify(self, text: str) -> IntentResult:
        """Classify one user message."""
        normalized = normalize(text)
        tokens = words(normalized)
        if not tokens:
            return IntentResult(Intent.AMBIGUOUS, 0.0, 0.0)
        padded = f" {' '.join(tokens)} "
        action_hits = _hits(tokens, padded, self._action_verbs)
        knowledge_hits = _hits(tokens, padded, self._knowledge_verbs)
        action_kw = _hits(tokens, padded, self._action_keywords)
        knowledge_kw = _hits(tokens, padded, self._knowledge_keywords)
        action = VERB_WEIGHT * len(action_hits) + KEYWORD_WEIGHT * len(action_kw)
        knowledge = VERB_WEIGHT * len(knowledge_hits) + KEYWORD_WEIGHT * len(knowledge_kw)
        first = next((t for t in tokens if t not in _POLITE_OPENERS), tokens[0])
        if first in self._action_verbs:
            action += IMPERATIVE_BONUS
        if normalized.rstrip().endswith("?") or tokens[0] in QUESTION_STARTERS:
            knowledge += QUESTION_BONUS
        return IntentResult(
            verdict=self._verdict(knowledge, action),
            knowledge_score=knowledge,
            action_score=action,
            matched_knowledge=tuple(knowledge_hits + knowledge_kw),
            matched_action=tuple(action_hits + action_kw),
        )

    def _verdict(self, knowledge: float, action: float) -> Intent:
        if knowledge == action == 0:
            return Intent.AMBIGUOUS
        if action - knowledge >= self._margin:
            return Intent.ACTION
        if knowledge - action >= self._margin:
            return Intent.KNOWLEDGE
        return Intent.AMBIGUOUS


def _hits(tokens: list[str], padded: str, vocabulary: frozenset[str]) -> list[str]:
    token_set = set(tokens)
    found = [w for w in vocabulary if (w in token_set if " " not in w else f" {w} " in padded)]
    return sorted(found)


def enabled_layers(verdict: Intent | None, mode: TriageMode) -> frozenset[Layer]:
    """Layers to hydrate: all, except for an enforced action (working and prospective only)."""
    if mode is TriageMode.ENFORCE and verdict is Intent.ACTION:
        return frozenset({Layer.WORKING, Layer.PROSPECTIVE})
    return frozenset(Layer)


def route_tools(
    tools: Sequence[ToolSpec],
    verdict: Intent | None,
    *,
    mode: TriageMode = TriageMode.OFF,
    tool_intents: Mapping[str, Intent] | None = None,
    always_include: Iterable[str] = DEFAULT_ALWAYS_INCLUDE_TOOLS,
    classifier: IntentClassifier | None = None,
) -> ToolRouting:
    """Narrow the tool list to the verdict.

    A tool serves the intent given in ``tool_intents``, else the one its name and
    description classify as; an ambiguous tool serves both. A knowledge verdict keeps
    knowledge tools, an action verdict action tools, an ambiguous one everything.
    Tools in ``always_include`` are kept whatever the verdict.
    """
    if mode is TriageMode.OFF or verdict is None:
        return ToolRouting(verdict, mode, list(tools), tuple(t.name for t in tools))
    pinned = set(always_include)
    intents = dict(tool_intents or {})
    judge = classifier or IntentClassifier()
    kept: list[ToolSpec] = []
    dropped: list[str] = []
    for tool in tools:
        serves = intents.get(tool.name) or _tool_intent(tool, judge)
        if tool.name in pinned or _keeps(verdict, serves):
            kept.append(tool)
        else:
            dropped.append(tool.name)
    sent = kept if mode is TriageMode.ENFORCE else list(tools)
    return ToolRouting(verdict, mode, sent, tuple(t.name for t in kept), tuple(dropped))


def _tool_intent(tool: ToolSpec, classifier: IntentClassifier) -> Intent:
    text = f"{tool.name.replace('_', ' ').replace('-', ' ')}. {tool.description}"
    return classifier.classify(text).verdict


def _keeps(verdict: Intent, serves: Intent) -> bool:
    return verdict is Intent.AMBIGUOUS or serves is Intent.AMBIGUOUS or serves is verdict


def triage(
    message: str,
    tools: Sequence[ToolSpec],
    config: TriageConfig | None = None,
    *,
    classifier: IntentClassifier | None = None,
) -> TriageDecision:
    """Classify the message and route the tools, as ``config`` says."""
    config = config or TriageConfig()
    judge = classifier or IntentClassifier()
    intent = None if config.intent_mode is TriageMode.OFF else judge.classify(message)
    verdict = intent.verdict if intent else None
    routing = route_tools(
        tools,
        verdict,
        mode=config.tool_routing_mode,
        tool_intents=config.tool_intents,
        always_include=config.always_include_tools,
        classifier=judge,
    )
    return TriageDecision(intent, config.intent_mode, routing, enabled_layers(verdict, config.intent_mode))


@dataclass(frozen=True, slots=True)
class Triaged:
    """The triage stage's output: the decision and the turn's tools by name (the routed specs
    are ``decision.routing.tools``)."""

    decision: TriageDecision
    tools: Mapping[str, AgentTool]


async def run_triage(
    message: str,
    scope: Scope,
    *,
    capabilities: Sequence[ToolCapability],
    config: TriageConfig,
    classifier: IntentClassifier,
    jit: bool,
    report_routing: bool,
    clock: StageClock,
    out: Out[Triaged],
) -> AsyncIterator[AgentEvent]:
    """The triage stage: the turn's tools (from the capabilities registered; with ``jit``,
    the ``hydrate_context`` tool too), then the decision; reports tool names that clashed, the
    verdict and (with ``report_routing``, when there are tools) the routing."""
    with clock.time(Stage.TRIAGE):
        tools, clashes = tools_for(capabilities, scope)
        if tools.pop(HYDRATE_CONTEXT_TOOL_NAME, None) is not None:
            clashes.append(HYDRATE_CONTEXT_TOOL_NAME)
        specs = [tool.spec for tool in tools.values()]
        if jit:
            specs.append(hydrate_context_tool())
        decision = triage(message, specs, config, classifier=classifier)
        out.value = Triaged(decision, tools)
    if clashes:
        yield StageFailed(
            stage=Stage.TRIAGE, error_type="ToolNameClash",
            message=f"tools left out, their names are taken: {', '.join(clashes)}"[:500],
        )  # fmt: skip
    if decision.intent is not None:
        yield IntentClassified.from_result(decision.intent, decision.intent_mode)
    if report_routing and specs:
        yield ToolRoutingDecision.from_routing(decision.routing)
