"""The nap cadence: the agent notes each turn; every N turns of a scope a quick nap is due.
The library never schedules anything itself — the caller runs the nap (and nightly runs)."""

from __future__ import annotations

from collections import OrderedDict

from hippograph.errors import InvalidInputError
from hippograph.scope import Scope

MAX_SCOPES = 10_000


class NapSchedule:
    """Counts turns per scope (the most recent ``max_scopes`` scopes, least recent dropped).

    Args:
        turns_between_naps: A nap is due every this many turns; 0 means never.
    """

    def __init__(self, turns_between_naps: int, *, max_scopes: int = MAX_SCOPES) -> None:
        if turns_between_naps < 0:
            raise InvalidInputError("turns_between_naps", "must be ≥ 0")
        self.turns_between_naps = turns_between_naps
        self._max_scopes = max_scopes
        self._turns: OrderedDict[str, int] = OrderedDict()

    def note_turn(self, scope: Scope) -> bool:
        """Count one turn of ``scope``; True when a quick nap is due now (the count restarts)."""
        if self.turns_between_naps == 0:
            return False
        count = self._turns.pop(scope.key, 0) + 1
        due = count >= self.turns_between_naps
        self._turns[scope.key] = 0 if due else count
        while len(self._turns) > self._max_scopes:
            self._turns.popitem(last=False)
        return due

    def turns_since_nap(self, scope: Scope) -> int:
        return self._turns.get(scope.key, 0)
