"""Fabrication check: unsupported ids, key=value and action claims; the four modes."""

from __future__ import annotations

import pytest

from hippograph.agent.fabrication import FabricationChecker, find_unsupported_claims
from hippograph.agent.findings import DEFAULT_SAFE_REPLY, FabricationMode, FindingKind

pytestmark = pytest.mark.unit

RUN_ID = "123e4567-e89b-12d3-a456-426614174000"
DRAFT = (
    f"I deployed the api to staging. Run {RUN_ID} finished, "
    "build id: 3f2a9c1, commit 9b8c7d6e5f4a3b2c1d0e, replicas=3 and status=green."
)


def _kinds(draft: str, **evidence: object) -> dict[FindingKind, float]:
    findings = find_unsupported_claims(draft, **evidence)  # type: ignore[arg-type]
    return {f.kind: f.confidence for f in findings}


def test_every_kind_is_found_when_nothing_supports_it() -> None:
    findings = find_unsupported_claims(DRAFT)
    by_text = {f.text: (f.kind, f.confidence) for f in findings}

    assert by_text["I deployed the api to staging"] == (FindingKind.VERB_CLAIM, 0.85)
    assert by_text[RUN_ID] == (FindingKind.UUID, 0.9)
    assert by_text["3f2a9c1"] == (FindingKind.SHORT_HEX_NEAR_KEY, 0.75)
    assert by_text["9b8c7d6e5f4a3b2c1d0e"] == (FindingKind.HEX_ID, 0.85)
    assert by_text["replicas=3"] == (FindingKind.KV, 0.8)
    assert by_text["status=green"] == (FindingKind.KV, 0.6)
    assert [f.start for f in findings] == sorted(f.start for f in findings)
    assert all(DRAFT[f.start : f.end] == f.text for f in findings)


def test_short_hex_next_to_an_action_verb() -> None:
    kinds = _kinds("Done: I pushed a1b2c3d to main")
    assert FindingKind.SHORT_HEX_NEAR_VERB in kinds


def test_claims_supported_by_tool_results_memory_or_user_are_not_findings() -> None:
    tool = f"deploy_service: api deployed to staging; run {RUN_ID}; build 3f2a9c1; replicas=3"
    memory = "commit 9b8c7d6e5f4a3b2c1d0e is the release"
    user = "is the status green?"
    assert find_unsupported_claims(DRAFT, tool_results=[tool], memory_context=memory, user_message=user) == []


def test_ids_match_case_and_dash_insensitively() -> None:
    draft = f"Run {RUN_ID.upper()} done."
    assert find_unsupported_claims(draft, tool_results=[RUN_ID.replace("-", "")]) == []


def test_a_user_request_does_not_prove_the_action_was_done() -> None:
    draft = "I've created the ticket for the login bug."
    asked = find_unsupported_claims(draft, user_message="please create a ticket for the login bug")
    done = find_unsupported_claims(draft, tool_results=["create_ticket: ticket created"])
    assert [f.kind for f in asked] == [FindingKind.VERB_CLAIM]
    assert done == []


def test_action_claims_are_less_suspicious_when_some_tool_ran() -> None:
    claim = "I restarted the worker."
    assert _kinds(claim)[FindingKind.VERB_CLAIM] == 0.85
    assert _kinds(claim, tool_results=["clock: 12:00"])[FindingKind.VERB_CLAIM] == 0.7


def test_ordinary_prose_is_not_flagged() -> None:
    prose = "We decided to add a facade to the decade-old cafe; it faced east. Any news?"
    assert find_unsupported_claims(prose) == []


def test_off_skips_the_check() -> None:
    report = FabricationChecker(FabricationMode.OFF).check(DRAFT)
    assert report.action == "none" and report.findings == [] and report.reply == DRAFT


def test_observe_reports_and_keeps_the_draft() -> None:
    report = FabricationChecker(FabricationMode.OBSERVE).check(DRAFT)
    assert report.action == "observed"
    assert report.reply == DRAFT
    assert report.max_confidence == 0.9


def test_revise_gives_instructions_for_a_second_draft() -> None:
    report = FabricationChecker(FabricationMode.REVISE).check(DRAFT)
    assert report.action == "revise"
    assert report.revision_instructions is not None
    assert RUN_ID in report.revision_instructions
    assert report.reply == DRAFT


def test_refuse_swaps_in_the_safe_reply_at_high_confidence_only() -> None:
    checker = FabricationChecker(FabricationMode.REFUSE)
    refused = checker.check(DRAFT)
    low = checker.check("All set, status=green.")

    assert refused.action == "refused" and refused.reply == DEFAULT_SAFE_REPLY
    assert low.action == "observed" and low.reply == "All set, status=green."
    assert low.max_confidence == 0.6


def test_refuse_threshold_and_safe_reply_are_configurable() -> None:
    checker = FabricationChecker(FabricationMode.REFUSE, refuse_min_confidence=0.5, safe_reply="Not sure.")
    assert checker.check("All set, status=green.").reply == "Not sure."
    with pytest.raises(ValueError):
        FabricationChecker(FabricationMode.REFUSE, refuse_min_confidence=1.5)


def test_a_clean_draft_passes_in_every_mode() -> None:
    for mode in FabricationMode:
        report = FabricationChecker(mode).check("Your dog is called Rex.", memory_context="dog: Rex")
        assert (report.action, report.reply) == ("none", "Your dog is called Rex.")
