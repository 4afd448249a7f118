"""Exponential backoff with jitter and a cap, honouring a server's ``retry-after``."""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Backoff:
    """How long to wait before retry number ``attempt`` (1 = the first retry).

    The wait is ``base · 2^(attempt-1)``, scaled by a random factor in [0.5, 1] and
    capped at ``cap``; a ``retry-after`` sent by the server replaces it (still capped).

    Attributes:
        base: Seconds before the first retry (before jitter).
        cap: The longest wait, in seconds.
    """

    base: float = 1.0
    cap: float = 30.0

    def __post_init__(self) -> None:
        if self.base < 0 or self.cap < 0:
            raise ValueError("backoff base and cap must be non-negative")

    def delay(self, attempt: int, *, retry_after: float | None = None, rng: random.Random | None = None) -> float:
        """Seconds to wait before retry ``attempt``."""
        if retry_after is not None and retry_after >= 0:
            return min(retry_after, self.cap)
        exponent = min(max(attempt - 1, 0), 32)
        jitter = 0.5 + 0.5 * (rng or random).random()
        return min(self.base * 2.0**exponent * jitter, self.cap)


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a ``retry-after`` (or ``retry-after-ms``-converted) header value."""
    if value is None:
        return None
    try:
        seconds = float(value.strip())
    except ValueError:
        return None
    return seconds if seconds >= 0 else None
