"""Phase 2's risk method is stated where users look, and the statement matches the code: the
known-limits page names the word list, its setting and why no sentiment model is used; the
setting exists and the default words are the ones the consolidation page lists."""

from __future__ import annotations

from pathlib import Path

import pytest

from hippograph.consolidation import ConsolidationConfig

pytestmark = pytest.mark.unit

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_the_known_limits_page_states_phase_two_tags_risk_by_a_word_list() -> None:
    limits = (DOCS / "limits.md").read_text(encoding="utf-8")
    start = limits.index("**Phase 2 tags risk by a word list, not by a sentiment model**")
    entry = " ".join(limits[start : limits.index("\n\n", start)].split())
    assert "`risk_terms`" in entry and "model hub" in entry and "vaderSentiment" in entry
    assert "risk_terms" in ConsolidationConfig.model_fields
    listed = (DOCS / "concepts" / "consolidation.md").read_text(encoding="utf-8")
    row = next(line for line in listed.splitlines() if "| tag_risk |" in line)
    assert "a word list, not a sentiment model" in row
    assert all(word in ConsolidationConfig().risk_terms for word in ("risk", "danger", "failure", "loss"))
