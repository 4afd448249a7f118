"""AnthropicModel through the real ``anthropic`` SDK against the local fake Messages API."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from hippograph.errors import ConfigurationError, InvalidInputError
from hippograph.llm import (
    AnthropicModel,
    ChatMessage,
    ModelError,
    ModelProvider,
    ModelRequest,
    ModelRetriesExhaustedError,
    SystemPrompt,
    ThinkingBlock,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
)
from hippograph.llm.accumulate import ResponseAccumulator
from hippograph.llm.events import (
    MessageEnd,
    MessageStart,
    ModelEvent,
    TextDelta,
    ThinkingDelta,
    ThinkingSignature,
    ToolCallDelta,
    ToolCallStart,
    Usage,
)
from hippograph.llm.retry import Backoff
from hippograph.testing.fake_anthropic import (
    FakeAnthropic,
    FakeError,
    FakeReply,
    FakeStreamError,
    FakeText,
    FakeThinking,
    FakeToolUse,
)
from tests.support.fixtures_anthropic import fake_anthropic, fake_anthropic_server  # noqa: F401

pytestmark = pytest.mark.unit

SEARCH = ToolSpec(
    name="search_memory",
    description="Search long-term memory.",
    input_schema={"type": "object", "properties": {"query": {"type": "string"}}},
)


def _request(**kwargs: object) -> ModelRequest:
    base: dict[str, object] = {
        "system": SystemPrompt(text="You are a helpful agent."),
        "messages": [ChatMessage(role="user", content="What is my dog's name?")],
    }
    base.update(kwargs)
    return ModelRequest.model_validate(base)


class SleepRecorder:
    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


@pytest.fixture
async def model_and_sleeps(
    fake_anthropic: FakeAnthropic,  # noqa: F811
) -> AsyncIterator[tuple[AnthropicModel, SleepRecorder]]:
    sleeps = SleepRecorder()
    model = AnthropicModel(
        api_key="sk-test",
        base_url=fake_anthropic.base_url,
        max_retries=2,
        backoff=Backoff(base=0.5, cap=4.0),
        sleep=sleeps,
    )
    yield model, sleeps
    await model.aclose()


async def _events(model: AnthropicModel, request: ModelRequest) -> list[ModelEvent]:
    return [event async for event in model.stream(request)]


def test_is_a_model_provider() -> None:
    assert isinstance(AnthropicModel(api_key="sk-test"), ModelProvider)


def test_needs_a_key_or_client_and_sane_retries() -> None:
    with pytest.raises(ConfigurationError):
        AnthropicModel()
    with pytest.raises(InvalidInputError):
        AnthropicModel(api_key="sk-test", max_retries=-1)


async def test_non_streamed_text_and_request_on_the_wire(
    fake_anthropic: FakeAnthropic,  # noqa: F811
    model_and_sleeps: tuple[AnthropicModel, SleepRecorder],
) -> None:
    model, _ = model_and_sleeps
    fake_anthropic.enqueue(FakeReply.of_text("Your dog is called Rex."))
    response = await model.complete(_request(tools=[SEARCH], max_tokens=512))

    assert response.text == "Your dog is called Rex."
    assert response.stop_reason == "end_turn"
    assert response.model == model.model
    (sent,) = fake_anthropic.requests
    assert sent.path == "/v1/messages"
    assert sent.body["stream"] is False
    assert sent.body["max_tokens"] == 512
    assert sent.body["system"] == [
        {"type": "text", "text": "You are a helpful agent.", "cache_control": {"type": "ephemeral"}}
    ]
    assert sent.body["tools"][0]["name"] == "search_memory"
    assert sent.body["messages"] == [{"role": "user", "content": "What is my dog's name?"}]
    assert "thinking" not in sent.body


async def test_uncached_system_prompt_has_no_cache_control(
    fake_anthropic: FakeAnthropic,  # noqa: F811
    model_and_sleeps: tuple[AnthropicModel, SleepRecorder],
) -> None:
    model, _ = model_and_sleeps
    fake_anthropic.enqueue(FakeReply.of_text("ok"))
    await model.complete(_request(system=SystemPrompt(text="short", cache=False)))
    assert fake_anthropic.requests[0].body["system"] == [{"type": "text", "text": "short"}]


async def test_per_turn_context_follows_the_cache_breakpoint(
    fake_anthropic: FakeAnthropic,  # noqa: F811
    model_and_sleeps: tuple[AnthropicModel, SleepRecorder],
) -> None:
    model, _ = model_and_sleeps
    fake_anthropic.enqueue(FakeReply.of_text("ok"))
    system = SystemPrompt(text="Instructions.", context="Memory: the dog is Rex.")
    await model.complete(_request(system=system))
    assert fake_anthropic.requests[0].body["system"] == [
        {"type": "text", "text": "Instructions.", "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": "Memory: the dog is Rex."},
    ]


async def test_streamed_text_arrives_in_chunks_with_usage_and_end(
    fake_anthropic: FakeAnthropic,  # noqa: F811
    model_and_sleeps: tuple[AnthropicModel, SleepRecorder],
) -> None:
    model, _ = model_and_sleeps
    fake_anthropic.enqueue(FakeReply.of_text("Your dog is called Rex.", output_tokens=9))
    events = await _events(model, _request())

    assert isinstance(events[0], MessageStart)
    texts = [e for e in events if isinstance(e, TextDelta)]
    assert len(texts) > 1
    assert "".join(t.text for t in texts) == "Your dog is called Rex."
    assert isinstance(events[-2], Usage) and events[-2].output_tokens == 9
    assert isinstance(events[-1], MessageEnd) and events[-1].stop_reason == "end_turn"
    assert fake_anthropic.requests[0].body["stream"] is True


async def test_streamed_thinking_and_tool_use_fold_into_the_same_response_as_complete(
    fake_anthropic: FakeAnthropic,  # noqa: F811
    model_and_sleeps: tuple[AnthropicModel, SleepRecorder],
) -> None:
    model, _ = model_and_sleeps
    reply = FakeReply(
        content=[
            FakeThinking("The user asks about a pet; search memory.", signature="sig-123"),
            FakeText("Let me check."),
            FakeToolUse("search_memory", {"query": "dog name", "top_k": 3}, id="toolu_01"),
        ]
    )
    fake_anthropic.enqueue(reply, reply)
    request = _request(tools=[SEARCH], thinking_budget=1024, max_tokens=4096)
    events = await _events(model, request)
    complete = await model.complete(request)

    assert "".join(e.text for e in events if isinstance(e, ThinkingDelta)).startswith("The user")
    assert [e.signature for e in events if isinstance(e, ThinkingSignature)] == ["sig-123"]
    starts = [e for e in events if isinstance(e, ToolCallStart)]
    assert [(s.id, s.name, s.index) for s in starts] == [("toolu_01", "search_memory", 2)]
    assert all(e.id == "toolu_01" for e in events if isinstance(e, ToolCallDelta))
    acc = ResponseAccumulator()
    for event in events:
        acc.add(event)
    streamed = acc.response()
    assert streamed.content == complete.content
    assert streamed.stop_reason == complete.stop_reason == "tool_use"
    assert streamed.tool_calls == [
        ToolUseBlock(id="toolu_01", name="search_memory", input={"query": "dog name", "top_k": 3})
    ]
    assert streamed.content[0] == ThinkingBlock(
        thinking="The user asks about a pet; search memory.", signature="sig-123"
    )
    assert fake_anthropic.requests[0].body["thinking"] == {"type": "enabled", "budget_tokens": 1024}


async def test_tool_loop_messages_go_back_in_wire_format(
    fake_anthropic: FakeAnthropic,  # noqa: F811
    model_and_sleeps: tuple[AnthropicModel, SleepRecorder],
) -> None:
    model, _ = model_and_sleeps
    fake_anthropic.enqueue(
        FakeReply(content=[FakeToolUse("search_memory", {"query": "dog"}, id="toolu_07")]),
        FakeReply.of_text("Rex."),
    )
    first = await model.complete(_request(tools=[SEARCH]))
    follow_up = ChatMessage(role="user", content=[ToolResultBlock(tool_use_id="toolu_07", content="dog: Rex")])
    request = _request(
        tools=[SEARCH],
        messages=[_request().messages[0], first.as_message(), follow_up],
    )
    second = await model.complete(request)

    assert second.text == "Rex."
    sent = fake_anthropic.requests[1].body["messages"]
    assert sent[1] == {
        "role": "assistant",
        "content": [
            {
                "type": "tool_use",
                "id": "toolu_07",
                "name": "search_memory",
                "input": {"query": "dog"},
            }
        ],
    }
    assert sent[2]["content"][0] == {
        "type": "tool_result",
        "tool_use_id": "toolu_07",
        "content": "dog: Rex",
        "is_error": False,
    }


async def test_usage_counts_cache_tokens_streamed_and_not(
    fake_anthropic: FakeAnthropic,  # noqa: F811
    model_and_sleeps: tuple[AnthropicModel, SleepRecorder],
) -> None:
    model, _ = model_and_sleeps
    reply = FakeReply.of_text(
        "hi",
        input_tokens=20,
        output_tokens=3,
        cache_creation_input_tokens=1500,
        cache_read_input_tokens=0,
    )
    cached = FakeReply.of_text("hi", input_tokens=20, output_tokens=3, cache_read_input_tokens=1500)
    fake_anthropic.enqueue(reply, cached)
    created = await model.complete(_request())
    (usage,) = [e for e in await _events(model, _request()) if isinstance(e, Usage)]

    assert created.usage.cache_creation_input_tokens == 1500
    assert created.usage.total_input_tokens == 1520
    assert usage.totals().cache_read_input_tokens == 1500
    assert (usage.input_tokens, usage.output_tokens) == (20, 3)


async def test_overloaded_then_success_is_retried_with_backoff(
    fake_anthropic: FakeAnthropic,  # noqa: F811
    model_and_sleeps: tuple[AnthropicModel, SleepRecorder],
) -> None:
    model, sleeps = model_and_sleeps
    fake_anthropic.enqueue(FakeError.overloaded(), FakeReply.of_text("fine now"))
    fake_anthropic.enqueue(FakeError.overloaded(), FakeError.overloaded(), FakeReply.of_text("ok"))

    assert (await model.complete(_request())).text == "fine now"
    events = await _events(model, _request())

    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "ok"
    assert len(fake_anthropic.requests) == 5
    assert len(sleeps.delays) == 3
    assert 0.25 <= sleeps.delays[0] <= 0.5
    assert 0.5 <= sleeps.delays[2] <= 1.0


async def test_rate_limit_honours_retry_after(
    fake_anthropic: FakeAnthropic,  # noqa: F811
    model_and_sleeps: tuple[AnthropicModel, SleepRecorder],
) -> None:
    model, sleeps = model_and_sleeps
    fake_anthropic.enqueue(FakeError.rate_limited(retry_after=3), FakeReply.of_text("ok"))
    fake_anthropic.enqueue(FakeError.rate_limited(retry_after=60), FakeReply.of_text("ok"))

    assert (await model.complete(_request())).text == "ok"
    assert (await model.complete(_request())).text == "ok"
    assert sleeps.delays == [3.0, 4.0]  # the server's wait, capped at Backoff.cap


async def test_exhausted_retries_raise_a_clear_error(
    fake_anthropic: FakeAnthropic,  # noqa: F811
    model_and_sleeps: tuple[AnthropicModel, SleepRecorder],
) -> None:
    model, sleeps = model_and_sleeps
    fake_anthropic.enqueue(*[FakeError.overloaded()] * 3)

    with pytest.raises(ModelRetriesExhaustedError) as caught:
        await _events(model, _request())

    err = caught.value
    assert (err.attempts, err.status_code, err.error_type) == (3, 529, "overloaded_error")
    assert err.retryable
    assert "after 3 attempts" in str(err)
    assert len(sleeps.delays) == 2
    assert fake_anthropic.pending == 0


async def test_client_errors_are_not_retried(
    fake_anthropic: FakeAnthropic,  # noqa: F811
    model_and_sleeps: tuple[AnthropicModel, SleepRecorder],
) -> None:
    model, sleeps = model_and_sleeps
    fake_anthropic.enqueue(FakeError.invalid_request(), FakeReply.of_text("never sent"))

    with pytest.raises(ModelError) as caught:
        await model.complete(_request())

    assert (caught.value.status_code, caught.value.error_type) == (400, "invalid_request_error")
    assert not caught.value.retryable
    assert not isinstance(caught.value, ModelRetriesExhaustedError)
    assert sleeps.delays == []
    assert fake_anthropic.pending == 1


async def test_error_mid_stream_after_output_is_raised_not_replayed(
    fake_anthropic: FakeAnthropic,  # noqa: F811
    model_and_sleeps: tuple[AnthropicModel, SleepRecorder],
) -> None:
    model, sleeps = model_and_sleeps
    fake_anthropic.enqueue(FakeStreamError(), FakeReply.of_text("would duplicate output"))
    seen: list[ModelEvent] = []

    with pytest.raises(ModelError) as caught:
        async for event in model.stream(_request()):
            seen.append(event)

    assert [type(e) for e in seen] == [MessageStart]
    assert caught.value.error_type == "overloaded_error"
    assert caught.value.retryable
    assert sleeps.delays == []
    assert len(fake_anthropic.requests) == 1


async def test_connection_refused_is_retried_then_reported() -> None:
    sleeps = SleepRecorder()
    model = AnthropicModel(api_key="sk-test", base_url="http://127.0.0.1:9", max_retries=1, sleep=sleeps)
    try:
        with pytest.raises(ModelRetriesExhaustedError, match="connection failed"):
            await model.complete(_request())
    finally:
        await model.aclose()
    assert len(sleeps.delays) == 1
