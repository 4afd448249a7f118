"""The public surface: exports, config validation, the extractive summary's bounds, and what a
failing phase leaves behind."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

import hippograph.consolidation as consolidation
from hippograph.consolidation import ConsolidationConfig, Phase, RunStatus, list_runs
from hippograph.consolidation.context import PhaseContext
from hippograph.consolidation.hooks import extractive_summary, first_and_last_sentence
from hippograph.consolidation.phases import PHASES, QUICK_NAP_ORDER, RUN_ORDER
from hippograph.scope import Scope
from hippograph.store import Neo4jConnection
from tests.integration.consolidation.conftest import Make
from tests.integration.consolidation.sleep_helpers import NOW

INJECTIONS = ["x`) WITH n MATCH (m) DETACH DELETE m //", "risk|.*", "a b", ""]


def test_exports_resolve_and_every_phase_is_ordered_once() -> None:
    assert all(hasattr(consolidation, name) for name in consolidation.__all__)
    assert sorted(RUN_ORDER) == sorted(Phase) and len(set(RUN_ORDER)) == len(Phase) == 15
    assert set(PHASES) == set(Phase) and set(QUICK_NAP_ORDER) <= set(RUN_ORDER)
    assert [Phase(p).number for p in QUICK_NAP_ORDER] == ["1", "5", "10"]


@pytest.mark.parametrize("bad", INJECTIONS)
def test_config_refuses_words_that_are_not_words(bad: str) -> None:
    with pytest.raises(ValidationError):
        ConsolidationConfig(risk_terms=(bad,))
    with pytest.raises(ValidationError):
        ConsolidationConfig(meta_stopwords=(bad,))


def test_config_bounds_and_reserved_profile_keys() -> None:
    with pytest.raises(ValidationError):
        ConsolidationConfig(soul_schema=("corrections",))
    with pytest.raises(ValidationError):
        ConsolidationConfig(merge_min_cosine=1.5)
    with pytest.raises(ValidationError):
        ConsolidationConfig(unknown_knob=1)  # type: ignore[call-arg]
    assert ConsolidationConfig(risk_terms=("Danger",)).risk_pattern == "(?s).*\\b(danger).*"


def test_extractive_summary_is_dated_and_bounded() -> None:
    assert first_and_last_sentence("One. Two! Three?", 100) == "One. … Three?"
    assert first_and_last_sentence("  only   one  ", 100) == "only one"
    assert len(first_and_last_sentence("word " * 100, 40)) == 40
    texts = [f"Event {i} happened. It was long: {'x' * 300}. The end {i}." for i in range(50)]
    times = [NOW + i for i in range(50)]
    out = extractive_summary(texts, times, line_chars=120, max_chars=1500)
    assert len(out) <= 1500 and out.startswith("Summary of 50 earlier episodes:\n- 2025-06-15: Event 0")
    assert "more …" in out and out.rstrip().endswith("The end 49.")


async def test_a_failing_phase_fails_the_run_and_frees_the_lease(
    conn: Neo4jConnection, tenant: Scope, make: Make, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def broken(ctx: PhaseContext) -> dict[str, int]:
        raise RuntimeError("boom")

    monkeypatch.setitem(PHASES, Phase.TAG_RISK, broken)
    with pytest.raises(RuntimeError, match="boom"):
        await make().run(tenant)
    failed = (await list_runs(conn, tenant))[0]
    assert failed.status is RunStatus.FAILED and failed.error == "RuntimeError in phase tag_risk"
    assert [p.name for p in failed.phases_run] == list(RUN_ORDER[: RUN_ORDER.index(Phase.TAG_RISK)])
    monkeypatch.undo()
    assert (await make().run(tenant)).status is RunStatus.COMPLETED
