"""Prompt sections of the persona and the reminders, added to a built :class:`SystemPrompt`.

- the **persona** (the scope's ``AGENT_IDENTITY`` and its ``SOUL:<name>`` profiles) joins the
  stable instructions (it changes only when corrected, so it stays in the cached part);
- the **reminders** (the scope's pending triggers, fired ones first) join the per-turn
  context, after the memory context.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime

from pydantic import JsonValue

from hippograph.layers.triggers import FireReason, RankedTrigger
from hippograph.llm.types import SystemPrompt
from hippograph.retrieval.context import HANDLE_PREFIX, handle_of
from hippograph.scrub import scrub_text

__all__ = ["persona_section", "reminders_section", "with_sections"]

PERSONA_HEADER = "## PERSONA"
REMINDERS_HEADER = "## REMINDERS"
MAX_PROFILE_VALUE_CHARS = 200


def with_sections(prompt: SystemPrompt, *, instructions: str = "", context: str = "") -> SystemPrompt:
    """The prompt with a section added to its instructions and one to its context."""
    text = f"{prompt.text}\n\n{instructions}" if instructions else prompt.text
    more = "\n\n".join(part for part in (prompt.context, context) if part)
    return prompt.model_copy(update={"text": text, "context": more})


def persona_section(
    identity: str | None, profiles: Mapping[str, Mapping[str, JsonValue]], *, profile_keys: Sequence[str] | None = None
) -> str:
    """Who the agent is in this scope, and how to correct a profile ("" when nothing is known)."""
    if not identity and not profiles:
        return ""
    lines = [PERSONA_HEADER]
    if identity:
        lines.append(scrub_text(identity))
    for name, profile in sorted(profiles.items()):
        shown = ", ".join(f"{key}: {_value(value)}" for key, value in sorted(profile.items()))
        lines.append(f"Profile SOUL:{name} — {shown or '(empty)'}")
    if profiles:
        allowed = f" (keys: {', '.join(profile_keys)})" if profile_keys else ""
        lines.append(
            "When the user corrects one of these profiles, add to your memory block "
            f'{{"op": "correct_profile", "name": "<profile>", "key": "<key>", "value": …, "reason": "…"}}{allowed}.'
        )
    return "\n".join(lines)


def reminders_section(ranked: Sequence[RankedTrigger], *, max_shown: int) -> str:
    """The pending triggers, fired ones first, at most ``max_shown`` (the rest counted)."""
    if not ranked or max_shown <= 0:
        return ""
    lines = [REMINDERS_HEADER, "Triggers you set earlier (fired ones need action this turn):"]
    for r in ranked[:max_shown]:
        props = r.node.properties
        state = _state(r)
        task, condition = scrub_text(str(props.get("task", ""))), scrub_text(str(props.get("condition", "")))
        lines.append(f"- [{HANDLE_PREFIX}{handle_of(r.node.id)}] {state}: when {condition}: {task}")
    hidden = len(ranked) - max_shown
    if hidden > 0:
        lines.append(f"({hidden} more pending, ranked lower)")
    lines.append(
        'Once a fired one is done, add {"op": "resolve_trigger", "id": "HANDLE", "outcome": "…"}; to be '
        'reminded later, {"op": "snooze_trigger", "id": "HANDLE", "until": "2026-12-03T09:00"}.'
    )
    return "\n".join(lines)


def _state(r: RankedTrigger) -> str:
    if r.fired is FireReason.DUE and r.due_at is not None:
        return f"FIRED, due {_iso(r.due_at)}"
    if r.fired is FireReason.CONDITION:
        return f"FIRED, the message names {', '.join(r.matched)}"
    if r.snoozed_until is not None:
        return f"snoozed until {_iso(r.snoozed_until)}"
    return f"waiting, due {_iso(r.due_at)}" if r.due_at is not None else "waiting"


def _iso(at: float) -> str:
    return datetime.fromtimestamp(at, tz=UTC).isoformat(timespec="minutes")


def _value(value: JsonValue) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return scrub_text(text)[:MAX_PROFILE_VALUE_CHARS]
