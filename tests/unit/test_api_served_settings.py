"""The served agent's settings: from the environment, from a TOML or JSON file (below the
environment), validated with errors that name the bad field, and shown with secrets masked."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pydantic import SecretStr, ValidationError

from hippograph.agent.findings import FabricationMode
from hippograph.agent.intent import TriageMode
from hippograph.app.api.settings import (
    MASK,
    ApiSettings,
    NightlySchedule,
    describe_errors,
    effective_settings,
)
from hippograph.app.settings import Settings
from hippograph.consolidation import ConsolidationConfig
from hippograph.errors import ConfigurationError
from hippograph.models import Layer

pytestmark = pytest.mark.unit

TOML = """
daily_token_budget = 5000

[agent]
prompt_mode = "jit"

[agent.fabrication]
mode = "refuse"
refuse_min_confidence = 0.7

[agent.sessions]
compaction = "extractive"

[consolidation]
turns_between_naps = 3

[nightly]
at = "03:30"
scopes = ["org:acme"]
"""


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith("HIPPOGRAPH_API_"):
            monkeypatch.delenv(name)


def test_naps_are_on_by_default_and_zero_turns_them_off() -> None:
    assert ConsolidationConfig().turns_between_naps == 10
    served = ApiSettings()
    assert served.consolidation.turns_between_naps == 10
    assert not served.nightly.enabled and not served.served_consolidation().nightly_enabled
    assert ConsolidationConfig(turns_between_naps=0).turns_between_naps == 0


def test_the_agent_is_configured_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    env = {
        "HIPPOGRAPH_API_AGENT__TRIAGE__INTENT_MODE": "enforce",
        "HIPPOGRAPH_API_AGENT__FABRICATION__MODE": "refuse",
        "HIPPOGRAPH_API_AGENT__PROMPT_MODE": "jit",
        "HIPPOGRAPH_API_AGENT__SESSIONS__COMPACTION": "llm",
        "HIPPOGRAPH_API_AGENT__HYDRATE__ENABLED_LAYERS": '["semantic", "episodic"]',
        "HIPPOGRAPH_API_AGENT__MCP_SERVERS": '[{"name": "files", "command": "mcp-files", "env": {"TOKEN": "s3"}}]',
        "HIPPOGRAPH_API_CONSOLIDATION__TURNS_BETWEEN_NAPS": "0",
        "HIPPOGRAPH_API_NIGHTLY__EVERY": "3600",
        "HIPPOGRAPH_API_DAILY_TOKEN_BUDGET": "42",
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    s = ApiSettings()
    assert s.agent.triage.intent_mode is TriageMode.ENFORCE
    assert s.agent.fabrication.mode is FabricationMode.REFUSE
    assert s.agent.prompt_mode == "jit" and s.agent.sessions.compaction == "llm"
    assert s.agent.hydrate.enabled_layers == (Layer.SEMANTIC, Layer.EPISODIC)
    assert [m.name for m in s.agent.mcp_servers] == ["files"]
    assert s.consolidation.turns_between_naps == 0
    assert s.nightly.every == 3600 and s.served_consolidation().nightly_enabled
    assert s.daily_token_budget == 42


@pytest.mark.parametrize("suffix", [".toml", ".json"])
def test_a_config_file_sets_what_the_environment_does_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, suffix: str
) -> None:
    path = tmp_path / f"served{suffix}"
    if suffix == ".json":
        served = {
            "daily_token_budget": 5000,
            "agent": {"prompt_mode": "jit", "fabrication": {"mode": "refuse", "refuse_min_confidence": 0.7}},
            "consolidation": {"turns_between_naps": 3},
            "nightly": {"at": "03:30", "scopes": ["org:acme"]},
        }
        path.write_text(json.dumps(served), encoding="utf-8")
    else:
        path.write_text(TOML, encoding="utf-8")
    monkeypatch.setenv("HIPPOGRAPH_API_CONFIG_FILE", str(path))
    monkeypatch.setenv("HIPPOGRAPH_API_CONSOLIDATION__TURNS_BETWEEN_NAPS", "4")  # the environment wins
    s = ApiSettings(daily_token_budget=7)  # and the options win over both
    assert s.config_file == path
    assert s.agent.prompt_mode == "jit"
    assert s.agent.fabrication.mode is FabricationMode.REFUSE and s.agent.fabrication.refuse_min_confidence == 0.7
    assert s.consolidation.turns_between_naps == 4
    assert s.daily_token_budget == 7
    assert s.nightly.at is not None and s.nightly.at.hour == 3 and s.nightly.scopes == ("org:acme",)
    assert ApiSettings(config_file=path).daily_token_budget == 5000  # named as an option too


def test_a_bad_field_is_named_with_its_variable_and_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HIPPOGRAPH_API_AGENT__FABRICATION__MODE", "bogus")
    with pytest.raises(ValidationError) as bad_env:
        ApiSettings()
    message = describe_errors(bad_env.value)
    assert message.startswith("invalid setting agent.fabrication.mode (HIPPOGRAPH_API_AGENT__FABRICATION__MODE")
    assert "[agent.fabrication]" in message and "'bogus'" in message
    monkeypatch.delenv("HIPPOGRAPH_API_AGENT__FABRICATION__MODE")

    path = tmp_path / "bad.toml"
    path.write_text('[agent]\nfabricaton = "refuse"\n[consolidation]\nturns_between_naps = -1\n', encoding="utf-8")
    with pytest.raises(ValidationError) as bad_file:
        ApiSettings(config_file=path)
    lines = describe_errors(bad_file.value).splitlines()
    assert any(line.startswith("invalid setting agent.fabricaton ") and "Extra inputs" in line for line in lines)
    assert any(line.startswith("invalid setting consolidation.turns_between_naps ") for line in lines)


def test_an_unreadable_config_file_is_a_configuration_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match=r"missing\.toml"):
        ApiSettings(config_file=tmp_path / "missing.toml")
    broken = tmp_path / "broken.toml"
    broken.write_text("[agent\nprompt_mode = 1", encoding="utf-8")
    with pytest.raises(ConfigurationError, match="not valid TOML"):
        ApiSettings(config_file=broken)
    listed = tmp_path / "list.json"
    listed.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(ConfigurationError, match="table of settings"):
        ApiSettings(config_file=listed)


def test_the_nightly_schedule() -> None:
    at = NightlySchedule(at="03:30")  # type: ignore[arg-type]
    before = datetime(2026, 1, 5, 3, 0, tzinfo=UTC).timestamp()
    after = datetime(2026, 1, 5, 4, 0, tzinfo=UTC).timestamp()
    assert at.seconds_until_next(before) == 30 * 60
    assert at.seconds_until_next(after) == 23.5 * 3600
    assert NightlySchedule(every=60).seconds_until_next(after) == 60
    with pytest.raises(ValidationError, match="not both"):
        NightlySchedule(at="03:30", every=60)  # type: ignore[arg-type]
    with pytest.raises(ValidationError) as bad:
        NightlySchedule(scopes=("org acme",))
    assert bad.value.errors()[0]["loc"] == ("scopes",)
    with pytest.raises(ValueError, match="no nightly schedule"):
        NightlySchedule().seconds_until_next(after)


def test_effective_settings_mask_secrets() -> None:
    api = ApiSettings(
        agent={  # type: ignore[arg-type]
            "mcp_servers": [
                {"name": "files", "command": "mcp-files", "env": {"TOKEN": "s3cret-env"}},
                {
                    "name": "tickets",
                    "url": "https://bot:pw-in-url@mcp.example.com/mcp?key=q-secret",
                    "headers": {"Authorization": "Bearer s3cret-header"},
                },
            ]
        }
    )
    app = Settings(
        neo4j_uri="neo4j+s://neo4j:uri-secret@db.example.com",
        neo4j_password=SecretStr("pw-secret"),
        anthropic_api_key=SecretStr("sk-ant-secret"),
    )
    shown = effective_settings(api, app)
    text = json.dumps(shown)
    for secret in ("s3cret-env", "pw-in-url", "q-secret", "s3cret-header", "uri-secret", "pw-secret", "sk-ant-secret"):
        assert secret not in text
    files, tickets = shown["api"]["agent"]["mcp_servers"]  # type: ignore[index, misc]
    assert files["env"] == {"TOKEN": MASK} and tickets["headers"] == {"Authorization": MASK}  # type: ignore[index]
    assert tickets["url"] == f"https://{MASK}@mcp.example.com/mcp?{MASK}"  # type: ignore[index]
    assert shown["app"]["neo4j_uri"] == f"neo4j+s://{MASK}@db.example.com"  # type: ignore[index, call-overload]
    assert shown["api"]["consolidation"]["turns_between_naps"] == 10  # type: ignore[index, call-overload]


def test_the_ledger_failures_are_a_prometheus_counter() -> None:
    from hippograph.agent.budget import TokenBudget
    from hippograph.app.api.metrics import ApiMetrics

    metrics = ApiMetrics()
    budget = TokenBudget(daily_tokens=10)
    metrics.ledger_failures.budget = budget
    budget.failures.check, budget.failures.charge = 2, 3
    text = metrics.render().body.decode()
    assert 'hippograph_budget_ledger_failures_total{step="check"} 2.0' in text
    assert 'hippograph_budget_ledger_failures_total{step="charge"} 3.0' in text
