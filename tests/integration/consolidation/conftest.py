from __future__ import annotations

from collections.abc import Callable

import pytest

from hippograph.consolidation import ConsolidationConfig, SleepConsolidator
from hippograph.store import Neo4jConnection
from tests.integration.consolidation.sleep_helpers import NOW
from tests.support.fixtures_anthropic import fake_anthropic, fake_anthropic_server  # noqa: F401  (the fake Messages API)

Make = Callable[..., SleepConsolidator]


@pytest.fixture
def make(conn: Neo4jConnection) -> Make:
    """``make(now=…, model=…, **config)`` → a consolidator whose clock reads ``now``."""

    def build(now: float = NOW, model: object | None = None, **config: object) -> SleepConsolidator:
        return SleepConsolidator(conn, ConsolidationConfig(**config), model=model, clock=lambda: now)  # type: ignore[arg-type]

    return build
