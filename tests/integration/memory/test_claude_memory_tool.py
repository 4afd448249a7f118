"""Claude's memory tool over hippograph: the SDK's own tool runner against the local fake
Messages API (real wire format) and real Neo4j. A scripted conversation creates, edits,
renames and deletes files; a second session (a new connection, a new memory, a new runner)
sees what the first left; the synchronous runner works from a thread."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from anthropic import Anthropic, AsyncAnthropic
from anthropic.types.beta import BetaMemoryTool20250818ViewCommand

from hippograph.embeddings import HashingEmbeddings
from hippograph.errors import ConfigurationError
from hippograph.integrations import ClaudeMemoryTool, ClaudeMemoryToolSync
from hippograph.memory import Memory
from hippograph.scope import Scope
from hippograph.testing.fake_anthropic import FakeAnthropic, FakeReply, FakeText, FakeToolUse
from tests.support.fixtures_anthropic import fake_anthropic, fake_anthropic_server  # noqa: F401
from tests.support.memory_internals import internals

COFFEE = "/memories/prefs/coffee.md"


def _calls(*inputs: dict[str, Any]) -> FakeReply:
    """One model reply asking for these memory commands."""
    return FakeReply(content=[FakeToolUse("memory", dict(i)) for i in inputs])


def _results(fake: FakeAnthropic) -> list[tuple[str, bool]]:
    """Every tool result the runner sent back, in order: (text, is_error)."""
    out: list[tuple[str, bool]] = []
    for request in fake.requests:
        last = request.body["messages"][-1]
        if last["role"] != "user" or not isinstance(last["content"], list):
            continue
        for block in last["content"]:
            if block.get("type") == "tool_result":
                content = block.get("content")
                text = content if isinstance(content, str) else "".join(b["text"] for b in content or [])
                out.append((text, bool(block.get("is_error"))))
    return out


async def _converse(fake: FakeAnthropic, tool: ClaudeMemoryTool, *replies: FakeReply) -> list[tuple[str, bool]]:
    fake.reset()
    fake.enqueue(*replies, FakeReply.of_text("Done."))
    client = AsyncAnthropic(api_key="sk-test", base_url=fake.base_url, max_retries=0)
    try:
        runner = client.beta.messages.tool_runner(
            model="claude-test", max_tokens=512, tools=[tool],
            messages=[{"role": "user", "content": "Remember what matters."}],
        )  # fmt: skip
        final = await runner.until_done()
    finally:
        await client.close()
    assert [b.text for b in final.content if b.type == "text"] == ["Done."]
    assert fake.pending == 0
    assert fake.requests[0].body["tools"] == [{"type": "memory_20250818", "name": "memory"}]
    return _results(fake)


@pytest.fixture
async def second_memory(neo4j_server: tuple[str, str], hashing: HashingEmbeddings) -> AsyncIterator[Memory]:
    """Another session: its own connection and memory over the same database."""
    uri, password = neo4j_server
    memory = await Memory.connect(uri, password=password, embedder=hashing, warm_plans=False)
    yield memory
    await memory.close()


async def test_a_conversation_creates_edits_renames_and_deletes_files(
    memory: Memory,
    second_memory: Memory,
    tenant: Scope,
    fake_anthropic: FakeAnthropic,  # noqa: F811
) -> None:
    tool = ClaudeMemoryTool(memory, tenant)
    results = await _converse(
        fake_anthropic,
        tool,
        _calls({"command": "view", "path": "/memories"}),
        _calls(
            {"command": "create", "path": COFFEE, "file_text": "Alice drinks flat whites.\nNo sugar."},
            {"command": "create", "path": "/memories/notes.md", "file_text": "Release ships Friday."},
        ),
        _calls({"command": "str_replace", "path": COFFEE, "old_str": "flat whites", "new_str": "oat flat whites"}),
        _calls({"command": "insert", "path": "/memories/notes.md", "insert_line": 0, "insert_text": "Standup 9:30."}),
        _calls({"command": "rename", "old_path": "/memories/notes.md", "new_path": "/memories/work/notes.md"}),
        _calls({"command": "create", "path": "/memories/scratch.md", "file_text": "temporary"}),
        _calls({"command": "delete", "path": "/memories/scratch.md"}),
        _calls({"command": "create", "path": COFFEE, "file_text": "again"}),
        _calls({"command": "view", "path": "/memories/prefs/cofee.md"}),
        _calls({"command": "view", "path": "/memories/../../etc/passwd"}),
        _calls({"command": "view", "path": "/etc/passwd"}),
        _calls({"command": "view", "path": COFFEE, "view_range": [2, -1]}),
    )
    assert results == [
        ("Here're the files and directories up to 2 levels deep in /memories, excluding hidden items:\n"
         "0B\t/memories", False),
        (f"File created successfully at: {COFFEE}", False),
        ("File created successfully at: /memories/notes.md", False),
        ("The memory file has been edited. Here is the snippet showing the change (with line numbers):\n"
         "     1\tAlice drinks oat flat whites.\n     2\tNo sugar.", False),
        ("The file /memories/notes.md has been edited.", False),
        ("Successfully renamed /memories/notes.md to /memories/work/notes.md", False),
        ("File created successfully at: /memories/scratch.md", False),
        ("Successfully deleted /memories/scratch.md", False),
        (f"File {COFFEE} already exists", True),
        ("The path /memories/prefs/cofee.md does not exist. Please provide a valid path. "
         f"The closest existing files: {COFFEE}, /memories/work/notes.md", True),
        ("Path /memories/../../etc/passwd would escape /memories directory", True),
        ("Path must start with /memories, got: /etc/passwd", True),
        (f"Here's the content of {COFFEE} with line numbers:\n     2\tNo sugar.", False),
    ]  # fmt: skip

    history = await internals(memory).semantic.history(tenant, COFFEE)
    assert [(v.content, v.superseded_by is None) for v in history] == [
        ("Alice drinks flat whites.\nNo sugar.", False),
        ("Alice drinks oat flat whites.\nNo sugar.", True),
    ]
    assert history[0].superseded_by == history[1].id
    moved = await internals(memory).semantic.repo.current_fact(tenant, "/memories/work/notes.md")
    assert moved is not None and moved.properties["renamed_from"] == "/memories/notes.md"
    assert await internals(memory).semantic.repo.current_fact(tenant, "/memories/notes.md") is None
    await internals(memory).engine.drain()

    # a second session: a new connection, memory, tool and runner see the first one's files
    results = await _converse(
        fake_anthropic,
        ClaudeMemoryTool(second_memory, tenant),
        _calls({"command": "view", "path": "/memories"}),
        _calls({"command": "view", "path": "/memories/work/notes.md"}),
        _calls({"command": "delete", "path": "/memories/work"}),
        _calls({"command": "view", "path": "/memories/work/notes.md"}),
    )
    size_coffee = len(b"Alice drinks oat flat whites.\nNo sugar.")
    size_notes = len(b"Standup 9:30.\nRelease ships Friday.\n")  # insert ends the file with a newline
    assert results[0] == (
        "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items:\n"
        f"{size_coffee + size_notes}B\t/memories\n"
        f"{size_coffee}B\t/memories/prefs/\n"
        f"{size_coffee}B\t/memories/prefs/coffee.md\n"
        f"{size_notes}B\t/memories/work/\n"
        f"{size_notes}B\t/memories/work/notes.md",
        False,
    )
    assert results[1] == (
        "Here's the content of /memories/work/notes.md with line numbers:\n"
        "     1\tStandup 9:30.\n     2\tRelease ships Friday.\n     3\t",
        False,
    )
    assert results[2] == ("Successfully deleted /memories/work", False)
    assert results[3][1] is True and results[3][0].startswith("The path /memories/work/notes.md does not exist.")
    await internals(second_memory).engine.drain()


async def test_the_synchronous_runner_from_a_thread(
    memory: Memory,
    tenant: Scope,
    fake_anthropic: FakeAnthropic,  # noqa: F811
) -> None:
    tool = ClaudeMemoryToolSync(memory, tenant, loop=asyncio.get_running_loop())
    fake_anthropic.enqueue(
        _calls({"command": "create", "path": "/memories/a.md", "file_text": "one\ntwo"}),
        _calls({"command": "view", "path": "/memories/a.md"}),
        FakeReply(content=[FakeText("Done.")]),
    )

    def run() -> None:
        with Anthropic(api_key="sk-test", base_url=fake_anthropic.base_url, max_retries=0) as client:
            client.beta.messages.tool_runner(
                model="claude-test", max_tokens=512, tools=[tool], messages=[{"role": "user", "content": "Note it."}]
            ).until_done()

    await asyncio.to_thread(run)
    assert _results(fake_anthropic) == [
        ("File created successfully at: /memories/a.md", False),
        ("Here's the content of /memories/a.md with line numbers:\n     1\tone\n     2\ttwo", False),
    ]
    with pytest.raises(ConfigurationError, match="own event loop's thread"):
        tool.view(BetaMemoryTool20250818ViewCommand(command="view", path="/memories"))
    await internals(memory).engine.drain()
