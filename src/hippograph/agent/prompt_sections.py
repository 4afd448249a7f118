"""Plugin prompt sections: named sections a host adds to the agent's system prompt.

A :class:`PromptSection` has a name, an order and a renderer (sync or async) that gets the
turn's :class:`SectionInput` and returns the section's text (empty: left out this turn). A
``stable`` section belongs to the cached instructions (after the built-in sections 1–8; its
text must not change from turn to turn, or every turn pays for a new cache entry); the others
follow the memory context. Sections render in ``order`` (then name) and share a token budget:
each is cut to its own ``max_tokens``, and a section that no longer fits the budget is left
out whole. A renderer that raises is reported as a recoverable ``StageFailed``
(``prompt.section:<name>``) and the turn goes on without it.

Example::

    sections = PromptSections([
        PromptSection("house_rules", lambda _: "Answer in British English.", order=10, stable=True),
        PromptSection("on_call", on_call_roster, order=20, max_tokens=150),
    ], budget_tokens=400)
    agent = Agent(memory, model, prompt_sections=sections)
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field

from hippograph.agent.events import StageFailed
from hippograph.agent.prompts import CHARS_PER_TOKEN, approx_tokens
from hippograph.errors import InvalidInputError
from hippograph.llm.types import SystemPrompt
from hippograph.scope import Scope

__all__ = ["PromptSection", "PromptSections", "RenderedSections", "SectionInput"]

DEFAULT_BUDGET_TOKENS = 500
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
        order: Sections render in ascending order (then by name).
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
    """The registry of plugin sections of an agent, rendered into each turn's system prompt.

    Args:
        sections: The sections to start with.
        budget_tokens: Tokens all sections together may take.

    Raises:
        InvalidInputError: Two sections share a name, or the budget is not positive.
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
            InvalidInputError: A section of that name is registered already.
        """
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

    async def render(self, given: SectionInput) -> RenderedSections:
        """Render every section for one turn, in order, within the budget."""
        out = RenderedSections()
        stable: list[str] = []
        turn: list[str] = []
        left = self.budget_tokens
        for section in self._ordered():
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
            if cost > left:
                out.over_budget.append(section.name)
                continue
            left -= cost
            (stable if section.stable else turn).append(block)
            out.included.append(section.name)
        out.stable, out.turn = "\n\n".join(stable), "\n\n".join(turn)
        return out

    async def apply(self, system: SystemPrompt, given: SectionInput) -> tuple[SystemPrompt, RenderedSections]:
        """``system`` with this turn's sections: stable ones after the instructions, the
        others after the per-turn context."""
        rendered = await self.render(given)
        text = f"{system.text}\n\n{rendered.stable}" if rendered.stable else system.text
        context = "\n\n".join(p for p in (system.context, rendered.turn) if p)
        return system.model_copy(update={"text": text, "context": context}), rendered

    def _ordered(self) -> list[PromptSection]:
        return sorted(self._sections.values(), key=lambda s: (s.order, s.name))


def _cut(block: str, max_tokens: int | None) -> str:
    if max_tokens is None or approx_tokens(block) <= max_tokens:
        return block
    limit = int(max_tokens * CHARS_PER_TOKEN)
    return block[: max(limit - 1, 0)].rstrip() + "…"
