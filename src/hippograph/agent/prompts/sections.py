"""Prompt sections: the named sections of the agent's system prompt, built-in and the host's.

A :class:`PromptSection` has a name, an order and a renderer (sync or async) that gets the
turn's :class:`SectionInput` and returns the section's text (empty: left out this turn). Its
heading is its name, upper-cased (``on_call`` → ``## ON CALL``). A ``stable`` section belongs
to the cached instructions (its text must not change from turn to turn, or every turn pays for
a new cache entry); the others follow the memory context.

Three sections are built in and come first, in this reserved order:

- ``persona`` (stable): the scope's ``AGENT_IDENTITY`` and its ``SOUL:<name>`` profiles;
- ``earlier_in_this_conversation``: the compacted long session and working memory's older
  entries, summarised;
- ``reminders``: the scope's pending triggers, fired ones first.

The host's sections follow in ``order`` (then name). All sections share one token budget: a
built-in section is charged first and never left out, a host's section is cut to its own
``max_tokens`` and left out whole when it no longer fits what is left. A renderer that raises
is reported as a recoverable ``StageFailed`` (``prompt.section:<name>``) and the turn goes on
without it.

Example::

    sections = PromptSections([
        PromptSection("house_rules", lambda _: "Answer in British English.", order=10, stable=True),
        PromptSection("on_call", on_call_roster, order=20, max_tokens=150),
    ], budget_tokens=400)
    agent = Agent(memory, model, prompt_sections=sections)
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from pydantic import JsonValue

from hippograph.agent.events import StageFailed
from hippograph.agent.prompts import CHARS_PER_TOKEN, approx_tokens
from hippograph.errors import InvalidInputError
from hippograph.layers.triggers import FireReason, RankedTrigger
from hippograph.llm.types import SystemPrompt
from hippograph.retrieval.context import HANDLE_PREFIX, handle_of
from hippograph.scope import Scope
from hippograph.scrub import scrub_text

__all__ = [
    "BUILT_IN_NAMES",
    "PromptSection",
    "PromptSections",
    "RenderedSections",
    "SectionInput",
    "built_in_sections",
    "persona_text",
    "reminders_text",
]

DEFAULT_BUDGET_TOKENS = 500
MAX_PROFILE_VALUE_CHARS = 200
PERSONA = "persona"
EARLIER = "earlier_in_this_conversation"
REMINDERS = "reminders"
BUILT_IN_NAMES = (PERSONA, EARLIER, REMINDERS)
"""The built-in sections, in their reserved order (before every host section)."""
_NAME = re.compile(r"^[a-z][a-z0-9_]{0,39}$")


@dataclass(frozen=True)
class SectionInput:
    """What a section may look at: the turn's scope, message, session and prompt mode."""

    scope: Scope
    message: str
    session_id: str
    prompt_mode: str


SectionRenderer = Callable[[SectionInput], str | Awaitable[str]]


@dataclass(frozen=True)
class PromptSection:
    """One named section of the system prompt.

    Attributes:
        name: Lower-case identifier (also the section's heading, upper-cased).
        render: Returns the section's text for a turn (sync or async; empty: left out).
        order: Sections render in ascending order (then by name), after the built-in ones.
        stable: Part of the cached instructions (same text every turn) rather than per turn.
        max_tokens: This section's own cap (about 3.5 characters a token); None: the budget's.
    """

    name: str
    render: SectionRenderer
    order: int = 100
    stable: bool = False
    max_tokens: int | None = None

    def __post_init__(self) -> None:
        if not _NAME.match(self.name):
            raise InvalidInputError("name", f"a section name matches {_NAME.pattern}")
        if self.max_tokens is not None and self.max_tokens < 1:
            raise InvalidInputError("max_tokens", "must be positive or None")


@dataclass
class RenderedSections:
    """The sections of one turn: the stable and the per-turn text, and what was left out."""

    stable: str = ""
    turn: str = ""
    included: list[str] = field(default_factory=list)
    over_budget: list[str] = field(default_factory=list)
    failures: list[StageFailed] = field(default_factory=list)


class PromptSections:
    """The host's sections of an agent's system prompt, rendered with the built-in ones into
    each turn's prompt.

    Args:
        sections: The sections to start with.
        budget_tokens: Tokens all sections together may take (the built-in ones included).

    Raises:
        InvalidInputError: Two sections share a name, a section takes a built-in one's name,
            or the budget is not positive.
    """

    def __init__(self, sections: Iterable[PromptSection] = (), *, budget_tokens: int = DEFAULT_BUDGET_TOKENS) -> None:
        if budget_tokens < 1:
            raise InvalidInputError("budget_tokens", "must be positive")
        self.budget_tokens = budget_tokens
        self._sections: dict[str, PromptSection] = {}
        for section in sections:
            self.add(section)

    def add(self, section: PromptSection) -> None:
        """Register ``section``.

        Raises:
            InvalidInputError: A section of that name is registered already, or built in.
        """
        if section.name in BUILT_IN_NAMES:
            raise InvalidInputError("name", f"{section.name!r} is a built-in section")
        if section.name in self._sections:
            raise InvalidInputError("name", f"a section {section.name!r} is registered already")
        self._sections[section.name] = section

    def remove(self, name: str) -> bool:
        """Unregister the section ``name``; False when there was none."""
        return self._sections.pop(name, None) is not None

    @property
    def names(self) -> list[str]:
        """The registered sections, in rendering order."""
        return [s.name for s in self._ordered()]

    def __len__(self) -> int:
        return len(self._sections)

    async def render(self, given: SectionInput, *, built_in: Sequence[PromptSection] = ()) -> RenderedSections:
        """Render the ``built_in`` sections, then every registered one, in order, within the budget."""
        out = RenderedSections()
        stable: list[str] = []
        turn: list[str] = []
        left = self.budget_tokens
        reserved = len(built_in)
        for i, section in enumerate([*built_in, *self._ordered()]):
            try:
                text = section.render(given)
                body = (await text if inspect.isawaitable(text) else text).strip()
            except Exception as exc:
                out.failures.append(StageFailed.from_exception(f"prompt.section:{section.name}", exc))
                continue
            if not body:
                continue
            block = _cut(f"## {section.name.replace('_', ' ').upper()}\n{body}", section.max_tokens)
            cost = approx_tokens(block)
            if i >= reserved and cost > left:
                out.over_budget.append(section.name)
                continue
            left = max(left - cost, 0)
            (stable if section.stable else turn).append(block)
            out.included.append(section.name)
        out.stable, out.turn = "\n\n".join(stable), "\n\n".join(turn)
        return out

    async def apply(
        self, system: SystemPrompt, given: SectionInput, *, built_in: Sequence[PromptSection] = ()
    ) -> tuple[SystemPrompt, RenderedSections]:
        """``system`` with this turn's sections: stable ones after the instructions, the
        others after the per-turn context."""
        rendered = await self.render(given, built_in=built_in)
        text = f"{system.text}\n\n{rendered.stable}" if rendered.stable else system.text
        context = "\n\n".join(p for p in (system.context, rendered.turn) if p)
        return system.model_copy(update={"text": text, "context": context}), rendered

    def _ordered(self) -> list[PromptSection]:
        return sorted(self._sections.values(), key=lambda s: (s.order, s.name))


def built_in_sections(*, persona: str, earlier: str, reminders: str) -> list[PromptSection]:
    """The built-in sections of one turn, from their texts (an empty one is left out)."""
    return [
        PromptSection(PERSONA, _fixed(persona), order=-3, stable=True),
        PromptSection(EARLIER, _fixed(earlier), order=-2),
        PromptSection(REMINDERS, _fixed(reminders), order=-1),
    ]


def _fixed(text: str) -> SectionRenderer:
    return lambda _: text


def persona_text(
    identity: str | None, profiles: Mapping[str, Mapping[str, JsonValue]], *, profile_keys: Sequence[str] | None = None
) -> str:
    """The persona section's text: who the agent is in this scope, and how to correct a profile
    ("" when nothing is known)."""
    if not identity and not profiles:
        return ""
    lines: list[str] = []
    if identity:
        lines.append(scrub_text(identity))
    for name, profile in sorted(profiles.items()):
        shown = ", ".join(f"{key}: {_value(value)}" for key, value in sorted(profile.items()))
        lines.append(f"Profile SOUL:{name} — {shown or '(empty)'}")
    if profiles:
        allowed = f" (keys: {', '.join(profile_keys)})" if profile_keys else ""
        lines.append(
            "When the user corrects one of these profiles, add to your memory block "
            f'{{"op": "correct_profile", "name": "<profile>", "key": "<key>", "value": …, "reason": "…"}}{allowed}.'
        )
    return "\n".join(lines)


def reminders_text(ranked: Sequence[RankedTrigger], *, max_shown: int) -> str:
    """The reminders section's text: the pending triggers, fired ones first, at most
    ``max_shown`` (the rest counted)."""
    if not ranked or max_shown <= 0:
        return ""
    lines = ["Triggers you set earlier (fired ones need action this turn):"]
    for r in ranked[:max_shown]:
        props = r.node.properties
        state = _state(r)
        task, condition = scrub_text(str(props.get("task", ""))), scrub_text(str(props.get("condition", "")))
        lines.append(f"- [{HANDLE_PREFIX}{handle_of(r.node.id)}] {state}: when {condition}: {task}")
    hidden = len(ranked) - max_shown
    if hidden > 0:
        lines.append(f"({hidden} more pending, ranked lower)")
    lines.append(
        'Once a fired one is done, add {"op": "resolve_trigger", "id": "HANDLE", "outcome": "…"}; to be '
        'reminded later, {"op": "snooze_trigger", "id": "HANDLE", "until": "2026-12-03T09:00"}.'
    )
    return "\n".join(lines)


def _cut(block: str, max_tokens: int | None) -> str:
    if max_tokens is None or approx_tokens(block) <= max_tokens:
        return block
    limit = int(max_tokens * CHARS_PER_TOKEN)
    return block[: max(limit - 1, 0)].rstrip() + "…"


def _state(r: RankedTrigger) -> str:
    if r.fired is FireReason.DUE and r.due_at is not None:
        return f"FIRED, due {_iso(r.due_at)}"
    if r.fired is FireReason.CONDITION:
        if r.matched:
            return f"FIRED, the message names {', '.join(r.matched)}"
        return "FIRED, the message is about this"
    if r.reminded and r.due_at is not None:
        return f"reminded earlier in this conversation, due {_iso(r.due_at)}"
    if r.snoozed_until is not None:
        return f"snoozed until {_iso(r.snoozed_until)}"
    return f"waiting, due {_iso(r.due_at)}" if r.due_at is not None else "waiting"


def _iso(at: float) -> str:
    return datetime.fromtimestamp(at, tz=UTC).isoformat(timespec="minutes")


def _value(value: JsonValue) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return scrub_text(text)[:MAX_PROFILE_VALUE_CHARS]
