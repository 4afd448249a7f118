"""Triage: the deterministic intent classifier, tool routing, modes and layers."""

from __future__ import annotations

import pytest

from hippograph.agent.intent import DEFAULT_ALWAYS_INCLUDE_TOOLS, Intent, TriageConfig, TriageMode
from hippograph.agent.triage import IntentClassifier, enabled_layers, normalize, route_tools, triage
from hippograph.llm.types import ToolSpec
from hippograph.models import Layer

pytestmark = pytest.mark.unit

HYDRATE = ToolSpec(name="hydrate_context", description="Recall memories relevant to a query.")
SEARCH = ToolSpec(name="search_docs", description="Explain what the documentation says.")
DEPLOY = ToolSpec(name="deploy_service", description="Deploy a service to an environment.")
TICKET = ToolSpec(name="create_ticket", description="Create a ticket in the tracker.")
CLOCK = ToolSpec(name="clock", description="Current time.")
TOOLS = [HYDRATE, SEARCH, DEPLOY, TICKET, CLOCK]


@pytest.mark.parametrize(
    ("message", "verdict"),
    [
        ("What is my dog's name?", Intent.KNOWLEDGE),
        ("Do you remember where I parked?", Intent.KNOWLEDGE),
        ("Explain how the pipeline works", Intent.KNOWLEDGE),
        ("Tell me about the deployment pipeline", Intent.KNOWLEDGE),
        ("Deploy the api to staging now", Intent.ACTION),
        ("Please create a ticket for the login bug", Intent.ACTION),
        ("send the invoice to Acme", Intent.ACTION),
        ("Hmm", Intent.AMBIGUOUS),
        ("", Intent.AMBIGUOUS),
        ("Can you deploy it?", Intent.AMBIGUOUS),
    ],
)
def test_verdicts(message: str, verdict: Intent) -> None:
    assert IntentClassifier().classify(message).verdict is verdict


def test_unicode_is_normalised_before_scoring() -> None:
    classifier = IntentClassifier()
    fullwidth_deploy = "\uff24\uff25\uff30\uff2c\uff2f\uff39"
    fullwidth = classifier.classify(f"{fullwidth_deploy} the service")
    assert fullwidth.verdict is Intent.ACTION
    assert fullwidth.matched_action == ("deploy",)
    assert normalize("Stra\u00dfe\u00a0 \uff21\uff30\uff29") == "strasse api"


def test_result_explains_itself() -> None:
    result = IntentClassifier().classify("Please create a ticket now")
    assert result.action_score > result.knowledge_score == 0
    assert set(result.matched_action) == {"create", "ticket", "now"}


def test_word_lists_and_margin_are_configurable() -> None:
    custom = IntentClassifier(action_verbs={"Frobnicate"}, margin=5.0)
    assert custom.classify("frobnicate the widget").verdict is Intent.AMBIGUOUS
    assert IntentClassifier(action_verbs={"Frobnicate"}).classify("frobnicate the widget").verdict is Intent.ACTION


def test_routing_off_sends_everything() -> None:
    routing = route_tools(TOOLS, Intent.KNOWLEDGE, mode=TriageMode.OFF)
    assert routing.tools == TOOLS
    assert routing.dropped == ()


def test_routing_enforce_narrows_by_verdict_and_pins_hydrate_context() -> None:
    knowledge = route_tools(TOOLS, Intent.KNOWLEDGE, mode=TriageMode.ENFORCE)
    action = route_tools(TOOLS, Intent.ACTION, mode=TriageMode.ENFORCE)
    ambiguous = route_tools(TOOLS, Intent.AMBIGUOUS, mode=TriageMode.ENFORCE)

    assert [t.name for t in knowledge.tools] == ["hydrate_context", "search_docs", "clock"]
    assert set(knowledge.dropped) == {"deploy_service", "create_ticket"}
    assert [t.name for t in action.tools] == [
        "hydrate_context",
        "deploy_service",
        "create_ticket",
        "clock",
    ]
    assert action.dropped == ("search_docs",)
    assert ambiguous.tools == TOOLS
    assert "hydrate_context" in DEFAULT_ALWAYS_INCLUDE_TOOLS


def test_routing_observe_reports_but_sends_everything() -> None:
    routing = route_tools(TOOLS, Intent.KNOWLEDGE, mode=TriageMode.OBSERVE)
    assert routing.tools == TOOLS
    assert set(routing.dropped) == {"deploy_service", "create_ticket"}


def test_explicit_tool_intents_and_pins_win() -> None:
    routing = route_tools(
        TOOLS,
        Intent.ACTION,
        mode=TriageMode.ENFORCE,
        tool_intents={"clock": Intent.KNOWLEDGE},
        always_include=("search_docs",),
    )
    assert [t.name for t in routing.tools] == ["search_docs", "deploy_service", "create_ticket"]


def test_triage_defaults_change_nothing() -> None:
    decision = triage("Deploy the api", TOOLS)
    assert decision.intent is None and decision.verdict is None
    assert decision.routing.tools == TOOLS
    assert decision.layers == frozenset(Layer)


def test_triage_enforced_action_narrows_tools_and_layers() -> None:
    config = TriageConfig(intent_mode=TriageMode.ENFORCE, tool_routing_mode=TriageMode.ENFORCE)
    decision = triage("Deploy the api to staging", TOOLS, config)
    assert decision.verdict is Intent.ACTION
    assert "search_docs" not in [t.name for t in decision.routing.tools]
    assert decision.layers == {Layer.WORKING, Layer.PROSPECTIVE}


def test_observed_verdict_does_not_narrow_layers() -> None:
    assert enabled_layers(Intent.ACTION, TriageMode.OBSERVE) == frozenset(Layer)
    assert enabled_layers(Intent.KNOWLEDGE, TriageMode.ENFORCE) == frozenset(Layer)
