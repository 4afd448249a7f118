"""The application edge wires Claude into consolidation when an Anthropic key is configured,
and keeps the extractive, no-model path otherwise."""

from __future__ import annotations

from pydantic import SecretStr

from hippograph.app.runtime import consolidation_model
from hippograph.app.settings import Settings
from hippograph.consolidation import MergeJudge, ModelConsolidation, Summarizer
from hippograph.testing.fake_anthropic import FakeAnthropic, FakeReply, FakeToolUse
from tests.support.fixtures_anthropic import fake_anthropic, fake_anthropic_server  # noqa: F401


def _settings(**kw: object) -> Settings:
    return Settings.model_validate({"anthropic_api_key": None, **kw})


def test_no_key_means_no_consolidation_model() -> None:
    assert consolidation_model(_settings()) is None
    assert consolidation_model(_settings(anthropic_api_key="k", consolidation_model=False)) is None


async def test_a_key_puts_claude_behind_both_hooks(fake_anthropic: FakeAnthropic) -> None:  # noqa: F811
    settings = _settings(
        anthropic_api_key=SecretStr("k"), anthropic_base_url=fake_anthropic.base_url, anthropic_model="claude-x"
    )
    model = consolidation_model(settings)
    assert isinstance(model, ModelConsolidation)
    assert isinstance(model, Summarizer) and isinstance(model, MergeJudge)
    fake_anthropic.enqueue(FakeReply([FakeToolUse("record_summary", {"summary": "Ana moved to Porto."})]))
    assert await model.summarize(["Ana said she moved.", "Ana lives in Porto now."]) == "Ana moved to Porto."
    [request] = fake_anthropic.requests
    assert request.body["model"] == "claude-x", request.headers
