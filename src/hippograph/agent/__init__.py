"""The agent turn: triage, hydrate, model, fabrication check, extraction, consolidation."""
