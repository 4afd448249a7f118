"""Plugin prompt sections: a registry of named sections the host adds to the system prompt —
ordered, stable ones in the cached instructions and per-turn ones after the memory context,
within a token budget; a failing section is a recoverable StageFailed."""

from __future__ import annotations

import pytest

from hippograph.agent import AgentConfig, PromptSection, PromptSections, SectionInput
from hippograph.agent.events import StageFailed
from hippograph.errors import InvalidInputError
from hippograph.llm import ScriptedModel
from hippograph.scope import Scope
from tests.integration.agent.conftest import MakeAgent


async def _roster(given: SectionInput) -> str:
    return f"On call for {given.scope.key} in session {given.session_id[:4]}: Rui."


def _broken(given: SectionInput) -> str:
    raise RuntimeError("roster service down")


async def test_sections_render_in_order_into_the_prompt(tenant: Scope, make_agent: MakeAgent) -> None:
    sections = PromptSections(
        [
            PromptSection("on_call", _roster, order=20),
            PromptSection("house_rules", lambda _: "Answer in British English.", order=10, stable=True),
            PromptSection("glossary", lambda _: "SLO: service level objective.", order=15, stable=True),
            PromptSection("empty", lambda _: "  ", order=5),
        ]
    )
    model = ScriptedModel(["Rui is on call."])
    agent = make_agent(model, AgentConfig(), prompt_sections=sections)

    response = await agent.run(tenant, "Who is on call?")

    system = model.requests[0].system
    assert system is not None
    assert system.text.endswith(
        "## HOUSE RULES\nAnswer in British English.\n\n## GLOSSARY\nSLO: service level objective."
    )
    assert system.context.endswith(f"## ON CALL\nOn call for {tenant.key} in session {response.session_id[:4]}: Rui.")
    assert "## 9. MEMORY CONTEXT" in system.context.split("## ON CALL")[0]  # after the memory context
    assert sections.names == ["empty", "house_rules", "glossary", "on_call"]
    assert not any(isinstance(e, StageFailed) for e in response.events)


async def test_the_budget_and_a_failing_section(tenant: Scope, make_agent: MakeAgent) -> None:
    long = "word " * 200  # about 290 tokens
    sections = PromptSections(
        [
            PromptSection("first", lambda _: "Be brief.", order=1),
            PromptSection("broken", _broken, order=2),
            PromptSection("capped", lambda _: long, order=3, max_tokens=40),
            PromptSection("too_big", lambda _: long, order=4),
            PromptSection("last", lambda _: "Sign as Hippo.", order=5),
        ],
        budget_tokens=80,
    )
    rendered = await sections.render(SectionInput(tenant, "hi", "s1", "full"))
    assert rendered.included == ["first", "capped", "last"] and rendered.over_budget == ["too_big"]
    assert "## CAPPED" in rendered.turn and len(rendered.turn.split("## CAPPED")[1]) < 40 * 4
    [failure] = rendered.failures
    assert failure.stage == "prompt.section:broken" and failure.recoverable

    model = ScriptedModel(["Hi."])
    response = await make_agent(model, prompt_sections=sections).run(tenant, "hi")
    assert response.text == "Hi." and [e.stage for e in response.errors] == ["prompt.section:broken"]
    assert "Sign as Hippo." in (model.requests[0].system.context if model.requests[0].system else "")


def test_names_are_unique_and_well_formed() -> None:
    sections = PromptSections([PromptSection("rules", lambda _: "x")])
    with pytest.raises(InvalidInputError, match="registered already"):
        sections.add(PromptSection("rules", lambda _: "y"))
    with pytest.raises(InvalidInputError):
        PromptSection("Bad Name", lambda _: "x")
    assert sections.remove("rules") and not sections.remove("rules") and len(sections) == 0
