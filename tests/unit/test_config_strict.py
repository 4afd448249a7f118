"""Every config model forbids unknown fields: a misspelt option is an error, not ignored.
One default model name for the whole library."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ValidationError

import hippograph as hg
from hippograph.agent import (
    ConsolidationSettings,
    ExtractionSettings,
    FabricationSettings,
    HydrateSettings,
    SessionSettings,
    ToolLoopSettings,
    TriageSettings,
)
from hippograph.app.settings import Settings
from hippograph.llm import DEFAULT_MODEL
from hippograph.retrieval import ActivationConfig, ScoreWeights

pytestmark = pytest.mark.unit

CONFIGS: list[type[BaseModel]] = [
    hg.RecallConfig,
    ActivationConfig,
    ScoreWeights,
    hg.AgentConfig,
    ConsolidationSettings,
    ExtractionSettings,
    FabricationSettings,
    HydrateSettings,
    SessionSettings,
    ToolLoopSettings,
    TriageSettings,
    hg.ConsolidationConfig,
    Settings,
]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: c.__name__)
def test_a_misspelt_option_is_an_error(config: type[BaseModel]) -> None:
    with pytest.raises(ValidationError, match="top_kk"):
        config(top_kk=5)


def test_known_options_still_work() -> None:
    assert hg.RecallConfig(top_k=7).top_k == 7
    assert Settings(neo4j_uri="bolt://127.0.0.1:7687").neo4j_uri == "bolt://127.0.0.1:7687"


def test_one_default_model_name() -> None:
    from hippograph.llm.anthropic_model import DEFAULT_MODEL as anthropic_default

    assert Settings.model_fields["anthropic_model"].default == DEFAULT_MODEL == anthropic_default


def test_the_sdk_api_key_variable_is_read_at_the_edge(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HIPPOGRAPH_ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-from-env")
    key = Settings().anthropic_api_key
    assert key is not None and key.get_secret_value() == "sk-from-env"
