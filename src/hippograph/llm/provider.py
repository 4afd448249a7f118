"""The interface every model provider implements (Anthropic, scripted, or your own)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol, runtime_checkable

from hippograph.llm.events import ModelEvent
from hippograph.llm.types import ModelRequest, ModelResponse


@runtime_checkable
class ModelProvider(Protocol):
    """A chat model that streams typed events or answers in one piece.

    ``stream`` yields the events described in :mod:`hippograph.llm.events`;
    ``complete`` returns what the same stream would fold into. Both raise
    :class:`~hippograph.llm.errors.ModelError` when the provider fails.
    """

    def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        """Stream one reply as typed events."""
        ...

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """Return one complete reply."""
        ...
