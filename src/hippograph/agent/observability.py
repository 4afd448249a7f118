"""Observability hooks: per-stage timings, token usage and every event of every turn.

Pass objects with ``on_stage``, ``on_usage`` and ``on_event`` to ``Agent(hooks=[...])``
(subclass :class:`AgentHooksBase` to implement only some). Hooks run inline and must be
quick; one that raises is logged and skipped, never breaking a turn. Background
consolidation reports through the same hooks when it finishes (stage ``consolidate``, and
a ``StageFailed`` event per failure).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Protocol, runtime_checkable

from hippograph.agent.events import AgentEvent
from hippograph.agent.stages import Stage
from hippograph.llm.types import TokenUsage
from hippograph.tracing import span

log = logging.getLogger(__name__)

STAGES = (
    Stage.SESSION,
    Stage.TRIAGE,
    Stage.HYDRATE,
    Stage.PROMPT,
    Stage.MODEL,
    Stage.TOOLS,
    Stage.FABRICATION,
    Stage.EXTRACTION,
    Stage.SCHEDULE,
)
"""The foreground stages of a turn, in order (``model`` and ``tools`` may repeat)."""
OVERHEAD_STAGES = frozenset(STAGES) - {Stage.MODEL, Stage.TOOLS}


@runtime_checkable
class AgentHooks(Protocol):
    """Callbacks for metrics and tracing."""

    def on_stage(self, name: str, ms: float) -> None:
        """A stage of a turn (or background consolidation) took ``ms`` milliseconds."""
        ...

    def on_usage(self, usage: TokenUsage) -> None:
        """A model call reported its token usage."""
        ...

    def on_event(self, event: AgentEvent) -> None:
        """An event was emitted (also background StageFailed events after the turn)."""
        ...


class AgentHooksBase:
    """No-op hooks to subclass."""

    def on_stage(self, name: str, ms: float) -> None:
        """Ignore a stage timing."""

    def on_usage(self, usage: TokenUsage) -> None:
        """Ignore a usage report."""

    def on_event(self, event: AgentEvent) -> None:
        """Ignore an event."""


class RecordingHooks(AgentHooksBase):
    """Keeps everything it is told (tests, notebooks, debugging)."""

    def __init__(self) -> None:
        self.stages: list[tuple[str, float]] = []
        self.usages: list[TokenUsage] = []
        self.events: list[AgentEvent] = []

    def on_stage(self, name: str, ms: float) -> None:
        """Record a timing."""
        self.stages.append((name, ms))

    def on_usage(self, usage: TokenUsage) -> None:
        """Record a usage."""
        self.usages.append(usage)

    def on_event(self, event: AgentEvent) -> None:
        """Record an event."""
        self.events.append(event)


class HookSet:
    """Calls every hook, shielding the turn from hooks that raise."""

    def __init__(self, hooks: Sequence[AgentHooks]) -> None:
        self._hooks = tuple(hooks)

    def stage(self, name: str, ms: float) -> None:
        """Report a stage timing."""
        for hook in self._hooks:
            self._call(hook, "on_stage", name, ms)

    def usage(self, usage: TokenUsage) -> None:
        """Report a usage."""
        for hook in self._hooks:
            self._call(hook, "on_usage", usage)

    def event(self, event: AgentEvent) -> None:
        """Report an event."""
        for hook in self._hooks:
            self._call(hook, "on_event", event)

    @staticmethod
    def _call(hook: AgentHooks, method: str, *args: object) -> None:
        try:
            getattr(hook, method)(*args)
        except Exception:
            log.warning("observability hook %s.%s failed", type(hook).__name__, method, exc_info=True)


class StageClock:
    """Per-turn stage timings: time spent in our own code and awaits, not in the consumer."""

    def __init__(self, hooks: HookSet) -> None:
        self._hooks = hooks
        self.stages: dict[str, float] = {}

    @contextmanager
    def time(self, name: str) -> Iterator[None]:
        """Time a block as part of stage ``name``, in a span ``hippograph.agent.<name>`` (the
        block never yields to the consumer, so the span covers only the turn's own work)."""
        started = time.perf_counter()
        try:
            with span(f"hippograph.agent.{name}", {"hippograph.agent.stage": name}):
                yield
        finally:
            self.add(name, (time.perf_counter() - started) * 1000.0)

    def add(self, name: str, ms: float) -> None:
        """Add ``ms`` to stage ``name``."""
        self.stages[name] = self.stages.get(name, 0.0) + ms

    def report(self) -> None:
        """Send every stage's total to the hooks."""
        for name, ms in self.stages.items():
            self._hooks.stage(name, ms)

    @property
    def total_ms(self) -> float:
        """All stages."""
        return sum(self.stages.values())

    @property
    def overhead_ms(self) -> float:
        """All stages but the model and the tools: the pipeline's own cost."""
        return sum(ms for name, ms in self.stages.items() if name in OVERHEAD_STAGES)
