"""The agent package's public API and the reference defaults of its settings."""

from __future__ import annotations

import pytest

import hippograph.agent as agent_pkg
from hippograph.agent import AgentConfig
from hippograph.agent.findings import FabricationMode
from hippograph.agent.intent import TriageMode
from hippograph.llm import ModelRequest

pytestmark = pytest.mark.unit


def test_all_matches_the_package() -> None:
    assert all(hasattr(agent_pkg, name) for name in agent_pkg.__all__)
    public = {n for n in vars(agent_pkg) if not n.startswith("_") and n[0].isupper()}
    assert public <= set(agent_pkg.__all__)


def test_reference_defaults() -> None:
    c = AgentConfig()
    assert c.prompt_mode == "full" and c.stream_model
    assert (c.triage.intent_mode, c.triage.tool_routing_mode) == (TriageMode.OFF, TriageMode.OFF)
    assert c.triage.always_include_tools == ("hydrate_context",)
    assert (c.hydrate.token_budget, c.hydrate.top_k, c.hydrate.include_working) == (2000, 5, True)
    assert c.fabrication.mode is FabricationMode.OFF and c.fabrication.refuse_min_confidence == 0.8
    assert c.extraction.enabled and c.extraction.max_ops == 50
    assert c.consolidation.enabled and not c.consolidation.auto_approve_skills
    assert c.consolidation.thinking_ttl == 86_400.0 and c.consolidation.quick_naps
    assert (c.sessions.max_per_tenant, c.sessions.evict_fraction) == (10_000, 0.1)


def test_settings_are_validated() -> None:
    with pytest.raises(ValueError, match="thinking_budget"):
        AgentConfig(thinking_budget=4096, max_tokens=4096)
    with pytest.raises(ValueError):
        AgentConfig.model_validate({"hydrate": {"token_budget": 10}})
    with pytest.raises(ValueError):
        AgentConfig.model_validate({"fabrication": {"mode": "shout"}})
    with pytest.raises(ValueError):
        AgentConfig.model_validate({"unknown": True})
    nested = AgentConfig.model_validate({"triage": {"intent_mode": "enforce"}, "tools": {"max_rounds": 1}})
    assert nested.triage.intent_mode is TriageMode.ENFORCE and nested.tools.max_rounds == 1


def test_demo_model_reacts_to_the_message() -> None:
    model = agent_pkg.demo_model()
    reply = agent_pkg.demo.demo_reply(
        ModelRequest.model_validate({"messages": [{"role": "user", "content": "My cat is Tom."}]})
    )
    assert "<MEMORY_EXTRACT>" in reply.text and "your cat is Tom" in reply.text
    assert model.remaining is None
