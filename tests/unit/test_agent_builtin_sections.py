"""One prompt-section mechanism: the built-in persona, earlier-turns and reminders sections
come first in their reserved order with the same heading style as the host's, are charged to
the one budget and never left out; the host's sections share what they leave."""

from __future__ import annotations

import pytest

from hippograph.agent import PromptSection, PromptSections, SectionInput
from hippograph.agent.prompts.sections import BUILT_IN_NAMES, built_in_sections
from hippograph.errors import InvalidInputError
from hippograph.llm.types import SystemPrompt
from hippograph.scope import Scope

pytestmark = pytest.mark.unit

GIVEN = SectionInput(Scope.root("org", "acme"), "hi", "s1", "full")


async def test_built_in_sections_come_first_with_one_heading_style() -> None:
    sections = PromptSections(
        [
            PromptSection("house_rules", lambda _: "Answer in British English.", order=-50, stable=True),
            PromptSection("on_call", lambda _: "Rui.", order=1),
        ]
    )
    built_in = built_in_sections(persona="I am Hippo.", earlier="Summary: a trip.", reminders="- call Bob")
    system, rendered = await sections.apply(SystemPrompt(text="RULES", context="CONTEXT"), GIVEN, built_in=built_in)
    assert rendered.included == [*BUILT_IN_NAMES, "house_rules", "on_call"]
    assert system.text == "RULES\n\n## PERSONA\nI am Hippo.\n\n## HOUSE RULES\nAnswer in British English."
    assert system.context == (
        "CONTEXT\n\n## EARLIER IN THIS CONVERSATION\nSummary: a trip.\n\n## REMINDERS\n- call Bob\n\n## ON CALL\nRui."
    )


async def test_built_in_sections_are_charged_to_the_budget_and_never_left_out() -> None:
    long = "word " * 200  # about 290 tokens
    sections = PromptSections([PromptSection("rules", lambda _: "Be brief.")], budget_tokens=100)
    built_in = built_in_sections(persona=long, earlier="", reminders="")
    rendered = await sections.render(GIVEN, built_in=built_in)
    assert rendered.included == ["persona"] and rendered.over_budget == ["rules"]
    assert long.strip() in rendered.stable

    rendered = await sections.render(GIVEN, built_in=built_in_sections(persona="Hippo.", earlier="", reminders=""))
    assert rendered.included == ["persona", "rules"] and rendered.over_budget == []


def test_a_host_section_cannot_take_a_built_in_name() -> None:
    for name in BUILT_IN_NAMES:
        with pytest.raises(InvalidInputError, match="built-in"):
            PromptSections([PromptSection(name, lambda _: "x")])
