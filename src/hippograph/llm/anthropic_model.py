"""Claude through the official ``anthropic`` SDK: streaming, tools, extended thinking,
system-prompt caching, usage accounting, and retries on overload (529) and rate limits (429).

Retries are ours, not the SDK's (the SDK client runs with ``max_retries=0``), so that a
stream is retried only while nothing has been yielded yet and every wait is observable.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from hippograph._extras import requires_extra

with requires_extra("anthropic"):
    import anthropic
    from anthropic import AsyncAnthropic

from hippograph.errors import ConfigurationError, InvalidInputError
from hippograph.llm.anthropic_wire import StreamMapper, WireParams, response_from_sdk, to_wire
from hippograph.llm.defaults import DEFAULT_MODEL
from hippograph.llm.errors import ModelError, ModelRetriesExhaustedError
from hippograph.llm.events import ModelEvent
from hippograph.llm.retry import Backoff, parse_retry_after
from hippograph.llm.types import ModelRequest, ModelResponse

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://api.anthropic.com"
DEFAULT_TIMEOUT = 120.0
RETRYABLE_STATUS = frozenset({429, 529})
RETRYABLE_ERROR_TYPES = frozenset({"overloaded_error", "rate_limit_error"})

Sleep = Callable[[float], Awaitable[None]]


class AnthropicModel:
    """A :class:`~hippograph.llm.provider.ModelProvider` on Claude.

    Args:
        api_key: The Anthropic API key (required unless ``client`` is given; the
            library never reads it from the environment).
        base_url: The API root, e.g. a proxy or a local fake; default the public API.
        model: The model used when a request names none.
        max_retries: Retries after the first attempt on 429 / 529 / connection errors.
        client: A pre-built ``AsyncAnthropic``; a copy with SDK retries off is used.
        timeout: Seconds per HTTP request.
        backoff: The wait between retries (exponential, jittered, capped).
        sleep: The coroutine used to wait (tests pass a recorder).

    Raises:
        ConfigurationError: Neither ``api_key`` nor ``client`` was given.
        InvalidInputError: ``max_retries`` is negative.
    """

    def __init__(
        self,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        model: str = DEFAULT_MODEL,
        max_retries: int = 3,
        client: AsyncAnthropic | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        backoff: Backoff | None = None,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        if client is None and not api_key:
            raise ConfigurationError("AnthropicModel needs an api_key or a pre-built client")
        if max_retries < 0:
            raise InvalidInputError("max_retries", "must be >= 0")
        self._api_key = api_key
        self._base_url = base_url or DEFAULT_BASE_URL
        self._model = model
        self._max_retries = max_retries
        self._given_client = client
        self._client: AsyncAnthropic | None = None
        self._timeout = timeout
        self._backoff = backoff or Backoff()
        self._sleep = sleep

    @property
    def model(self) -> str:
        """The default model name."""
        return self._model

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """One complete reply (non-streamed call), retried on overload and rate limits.

        Raises:
            ModelError: A non-retryable API error.
            ModelRetriesExhaustedError: Still failing after ``max_retries`` retries.
        """
        params = to_wire(request, default_model=self._model)
        attempt = 0
        while True:
            try:
                message = await self._sdk().messages.create(**_kwargs(params), stream=False)
                return response_from_sdk(message)
            except anthropic.APIError as err:
                await self._wait_or_raise(err, attempt)
                attempt += 1

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        """Stream one reply as typed events.

        A failure before the first event is retried like :meth:`complete`; a failure
        after events were yielded is raised as :class:`ModelError` (a retry would
        repeat output the caller has already seen).
        """
        params = to_wire(request, default_model=self._model)
        attempt = 0
        while True:
            emitted = False
            try:
                raw_stream = await self._sdk().messages.create(**_kwargs(params), stream=True)
                async with raw_stream:
                    mapper = StreamMapper()
                    async for raw in raw_stream:
                        for event in mapper.map(raw):
                            emitted = True
                            yield event
                return
            except anthropic.APIError as err:
                if emitted:
                    raise _model_error(err, retryable=_is_retryable(err)) from err
                await self._wait_or_raise(err, attempt)
                attempt += 1

    async def aclose(self) -> None:
        """Close the HTTP client this model created (a given client is left open)."""
        if self._client is not None and self._given_client is None:
            await self._client.close()
        self._client = None

    def _sdk(self) -> AsyncAnthropic:
        if self._client is None:
            if self._given_client is not None:
                self._client = self._given_client.with_options(max_retries=0)
            else:
                self._client = AsyncAnthropic(
                    api_key=self._api_key,
                    base_url=self._base_url,
                    max_retries=0,
                    timeout=self._timeout,
                )
        return self._client

    async def _wait_or_raise(self, err: anthropic.APIError, attempt: int) -> None:
        if not _is_retryable(err):
            raise _model_error(err, retryable=False) from err
        status, error_type = _status(err), _error_type(err)
        if attempt >= self._max_retries:
            raise ModelRetriesExhaustedError(
                f"Anthropic API still failing ({_describe(err)}) after {attempt + 1} attempts; giving up",
                attempts=attempt + 1,
                status_code=status,
                error_type=error_type,
            ) from err
        delay = self._backoff.delay(attempt + 1, retry_after=_retry_after(err))
        log.warning(
            "Anthropic API %s; retry %d/%d in %.2f s",
            _describe(err),
            attempt + 1,
            self._max_retries,
            delay,
        )
        await self._sleep(delay)


def _kwargs(params: WireParams) -> dict[str, Any]:
    return {
        "model": params.model,
        "max_tokens": params.max_tokens,
        "messages": params.messages,
        "system": params.system,
        "tools": params.tools,
        "thinking": params.thinking,
    }


def _status(err: anthropic.APIError) -> int | None:
    return err.status_code if isinstance(err, anthropic.APIStatusError) else None


def _error_type(err: anthropic.APIError) -> str | None:
    body = err.body
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and isinstance(error.get("type"), str):
            return str(error["type"])
    return None


def _is_retryable(err: anthropic.APIError) -> bool:
    if isinstance(err, anthropic.APIConnectionError):
        return True
    return _status(err) in RETRYABLE_STATUS or _error_type(err) in RETRYABLE_ERROR_TYPES


def _retry_after(err: anthropic.APIError) -> float | None:
    if not isinstance(err, anthropic.APIStatusError):
        return None
    headers = err.response.headers
    millis = parse_retry_after(headers.get("retry-after-ms"))
    if millis is not None:
        return millis / 1000.0
    return parse_retry_after(headers.get("retry-after"))


def _describe(err: anthropic.APIError) -> str:
    if isinstance(err, anthropic.APITimeoutError):
        return "request timed out"
    if isinstance(err, anthropic.APIConnectionError):
        return "connection failed"
    parts = [p for p in (_error_type(err), f"HTTP {_status(err)}") if p]
    return " ".join(parts)


def _model_error(err: anthropic.APIError, *, retryable: bool) -> ModelError:
    return ModelError(
        f"Anthropic API error: {_describe(err)}",
        status_code=_status(err),
        error_type=_error_type(err),
        retryable=retryable,
    )
