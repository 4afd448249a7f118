"""ScriptedModel, the event accumulator, request validation and the backoff policy."""

from __future__ import annotations

import random

import pytest
from pydantic import ValidationError

from hippograph.agent.ops_block import extract_memory_ops
from hippograph.llm import (
    ChatMessage,
    ModelError,
    ModelProvider,
    ModelRequest,
    ScriptedModel,
    ScriptedReply,
    ScriptedToolCall,
    ThinkingBlock,
    TokenUsage,
    ToolUseBlock,
)
from hippograph.llm.accumulate import ResponseAccumulator
from hippograph.llm.events import (
    MessageEnd,
    MessageStart,
    ModelEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallStart,
    Usage,
)
from hippograph.llm.retry import Backoff, parse_retry_after

pytestmark = pytest.mark.unit

EXTRACT = '<MEMORY_EXTRACT>{"ops": [{"op": "upsert_node", "label": "Rex"}]}</MEMORY_EXTRACT>'


def _request(text: str = "hello") -> ModelRequest:
    return ModelRequest(messages=[ChatMessage(role="user", content=text)])


async def _events(model: ScriptedModel, request: ModelRequest) -> list[ModelEvent]:
    return [event async for event in model.stream(request)]


def test_is_a_model_provider() -> None:
    assert isinstance(ScriptedModel(["hi"]), ModelProvider)


async def test_streams_thinking_text_and_tool_calls_in_small_chunks() -> None:
    reply = ScriptedReply(
        thinking="The user wants the dog's name.",
        text=f"Your dog is Rex. {EXTRACT}",
        tool_calls=[ScriptedToolCall(name="hydrate_context", input={"query": "dog"})],
    )
    model = ScriptedModel([reply], chunk_size=5)
    events = await _events(model, _request())

    assert isinstance(events[0], MessageStart) and events[0].model == "scripted"
    assert isinstance(events[-2], Usage) and isinstance(events[-1], MessageEnd)
    thinking = [e for e in events if isinstance(e, ThinkingDelta)]
    texts = [e for e in events if isinstance(e, TextDelta)]
    deltas = [e for e in events if isinstance(e, ToolCallDelta)]
    assert all(len(e.text) <= 5 for e in thinking + texts)
    assert "".join(e.text for e in texts) == reply.text
    assert [e.name for e in events if isinstance(e, ToolCallStart)] == ["hydrate_context"]
    assert len(deltas) > 1
    assert events[-1].stop_reason == "tool_use"


async def test_stream_folds_into_the_same_response_as_complete() -> None:
    reply = ScriptedReply(
        thinking="hmm",
        text="Rex.",
        tool_calls=[ScriptedToolCall(name="t", input={"a": [1, 2]}, id="toolu_x")],
        usage=TokenUsage(input_tokens=3, output_tokens=4, cache_read_input_tokens=9),
    )
    model = ScriptedModel([reply, reply])
    acc = ResponseAccumulator()
    for event in await _events(model, _request()):
        acc.add(event)
    streamed = acc.response()
    complete = await model.complete(_request())

    assert streamed.content == complete.content
    assert streamed.content == [
        ThinkingBlock(thinking="hmm", signature="scripted-signature"),
        *complete.content[1:2],
        ToolUseBlock(id="toolu_x", name="t", input={"a": [1, 2]}),
    ]
    assert streamed.text == "Rex." and streamed.thinking == "hmm"
    assert streamed.usage == complete.usage == reply.usage
    assert streamed.as_message().role == "assistant"


async def test_the_extract_block_survives_streaming_for_the_extractor() -> None:
    model = ScriptedModel([f"Noted. {EXTRACT}"], chunk_size=3)
    response = await model.complete(_request())
    result = extract_memory_ops(response.text)
    assert result.reply == "Noted."
    assert [op.op for op in result.ops] == ["upsert_node"]


async def test_replies_in_order_then_a_clear_error() -> None:
    model = ScriptedModel(["one", "two"])
    assert (await model.complete(_request())).text == "one"
    assert model.remaining == 1
    assert (await model.complete(_request())).text == "two"
    with pytest.raises(ModelError, match="no reply left"):
        await model.complete(_request())
    assert len(model.requests) == 3


async def test_cycle_replays_from_the_start() -> None:
    model = ScriptedModel(["a", "b"], cycle=True)
    texts = [(await model.complete(_request())).text for _ in range(5)]
    assert texts == ["a", "b", "a", "b", "a"]
    assert model.remaining is None


async def test_a_function_reacts_to_the_request() -> None:
    def reply(request: ModelRequest) -> ScriptedReply | str:
        last = request.messages[-1].text
        return ScriptedReply(text=f"You said: {last}") if "dog" in last else "Tell me more."

    model = ScriptedModel(reply)
    assert (await model.complete(_request("my dog is Rex"))).text == "You said: my dog is Rex"
    assert (await model.complete(_request("hi"))).text == "Tell me more."
    assert model.remaining is None


async def test_estimated_usage_and_empty_text_reply() -> None:
    model = ScriptedModel([ScriptedReply()])
    response = await model.complete(_request("x" * 400))
    assert response.usage.input_tokens >= 100
    assert response.usage.output_tokens == 1
    assert response.text == "" and response.stop_reason == "end_turn"


def test_bad_chunk_size_is_refused() -> None:
    with pytest.raises(ValueError):
        ScriptedModel(["x"], chunk_size=0)


def test_request_validation() -> None:
    with pytest.raises(ValidationError):
        ModelRequest(messages=[])
    with pytest.raises(ValidationError, match="less than max_tokens"):
        ModelRequest(messages=_request().messages, max_tokens=2000, thinking_budget=2000)
    with pytest.raises(ValidationError):
        ModelRequest(messages=_request().messages, thinking_budget=100)


def test_unparseable_tool_input_is_kept_not_raised() -> None:
    acc = ResponseAccumulator()
    acc.add(MessageStart(message_id="m", model="x"))
    acc.add(ToolCallStart(index=0, id="t1", name="tool"))
    acc.add(ToolCallDelta(index=0, id="t1", partial_json='{"a": '))
    (call,) = acc.response().tool_calls
    assert call.input == {"_unparsed_input": '{"a": '}


def test_backoff_grows_exponentially_with_jitter_and_is_capped() -> None:
    backoff = Backoff(base=1.0, cap=10.0)
    rng = random.Random(7)
    delays = [backoff.delay(n, rng=rng) for n in range(1, 8)]
    assert 0.5 <= delays[0] <= 1.0
    assert 2.0 <= delays[2] <= 4.0
    assert delays[-1] == 10.0
    assert max(delays) == 10.0
    assert backoff.delay(1, retry_after=3.0) == 3.0
    assert backoff.delay(1, retry_after=99.0) == 10.0
    with pytest.raises(ValueError):
        Backoff(base=-1)


def test_parse_retry_after() -> None:
    assert parse_retry_after("2") == 2.0
    assert parse_retry_after(" 0.5 ") == 0.5
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") is None
    assert parse_retry_after("-1") is None
    assert parse_retry_after(None) is None
