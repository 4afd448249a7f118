"""Claude's memory tool (``memory_20250818``) with hippograph as its store.

The Anthropic SDK runs the memory tool on the client: Claude asks to ``view``, ``create``,
``str_replace``, ``insert``, ``delete`` or ``rename`` files under ``/memories`` and the SDK's
tool runner calls a backend. :class:`ClaudeMemoryTool` is that backend over one hippograph
scope, in place of the SDK's local-directory one::

    memory = await hippograph.open_memory()
    tool = ClaudeMemoryTool(memory, Scope.root("user", "alice"))
    runner = client.beta.messages.tool_runner(model=..., max_tokens=..., messages=..., tools=[tool])
    final = await runner.until_done()

A file is a semantic fact of the scope: its path is the fact's subject ``key`` (and its
label), its text the fact's content. Every edit goes through the library's one write path
(:meth:`hippograph.memory.Memory.write`): the new text becomes the current version, the old
one is kept, superseded (``memory.fact_history(scope, path)`` lists them); credentials
are scrubbed. ``delete`` retracts (restorable, audited); ``rename`` writes the file at its new
path and retracts the old one. Directories are the paths' prefixes: they exist while a file
is in them. A ``view`` of a missing file names the closest files by recall.

A file's text is kept to the byte (whitespace, empty lines, the trailing newline, Unicode):
what ``view`` shows back is what was written, and an edit of whitespace alone is a new version.

:class:`ClaudeMemoryToolSync` serves the synchronous ``Anthropic`` client's runner from a
thread, running each command on the event loop that owns the memory.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

from hippograph._extras import requires_extra
from hippograph.errors import HippographError, validation_errors
from hippograph.integrations._sync import run_on_loop
from hippograph.integrations.memory_paths import ROOT, PathRefusedError, memory_path, parent_paths
from hippograph.memory import Memory
from hippograph.models import Layer, MemoryNode
from hippograph.ops import RetractNode, UpsertNode
from hippograph.scope import Scope

with requires_extra("anthropic"):
    from anthropic.lib.tools import BetaAbstractMemoryTool, BetaAsyncAbstractMemoryTool, ToolError
    from anthropic.types.beta import (
        BetaCacheControlEphemeralParam,
        BetaMemoryTool20250818CreateCommand,
        BetaMemoryTool20250818DeleteCommand,
        BetaMemoryTool20250818InsertCommand,
        BetaMemoryTool20250818RenameCommand,
        BetaMemoryTool20250818StrReplaceCommand,
        BetaMemoryTool20250818ViewCommand,
    )

__all__ = ["ClaudeMemoryTool", "ClaudeMemoryToolSync"]

MAX_LINES = 999_999
LINE_NUMBER_WIDTH = len(str(MAX_LINES))
LISTING_DEPTH = 2
ACTOR = "claude-memory-tool"
T = TypeVar("T")


class ClaudeMemoryTool(BetaAsyncAbstractMemoryTool):
    """The memory tool for ``AsyncAnthropic``'s tool runner, storing files in ``scope``.

    Args:
        memory: The hippograph memory (its store and embedder).
        scope: Whose memory directory: files are facts of exactly this scope. Give the tool a
            scope its own (or one only the tool writes): a new file may be merged into an
            unkeyed fact of the scope that it closely resembles, as any new fact is.
        actor: Who the audit trail names for the tool's writes and deletes.
        suggestions: How many existing files a ``view`` of a missing file names (0: none).
        cache_control: Passed to the tool's definition (prompt caching).
    """

    def __init__(
        self,
        memory: Memory,
        scope: Scope,
        *,
        actor: str = ACTOR,
        suggestions: int = 3,
        cache_control: BetaCacheControlEphemeralParam | None = None,
    ) -> None:
        super().__init__(cache_control=cache_control)
        self.memory = memory
        self.scope = scope
        self.actor = actor
        self.suggestions = suggestions

    async def view(self, command: BetaMemoryTool20250818ViewCommand) -> str:
        path = _path(command.path)
        files = await self._files(path)
        if path in files:
            return _numbered(path, files[path].content, command.view_range)
        below = {p: n for p, n in files.items() if p != path}
        if path != ROOT and not below:
            raise ToolError(await self._missing(path))
        header = (
            f"Here're the files and directories up to {LISTING_DEPTH} levels deep in {path}, excluding hidden items:"
        )
        return "\n".join([header, *_listing(path, {p: _size(n.content) for p, n in below.items()})])

    async def create(self, command: BetaMemoryTool20250818CreateCommand) -> str:
        path = _path(command.path)
        if path == ROOT or (await self._files(path)):
            raise ToolError(f"File {path} already exists")
        for parent in parent_paths(path):
            if await self._file(parent) is not None:
                raise ToolError(f"The path {parent} is a file, not a directory")
        await self._write(path, command.file_text)
        return f"File created successfully at: {path}"

    async def str_replace(self, command: BetaMemoryTool20250818StrReplaceCommand) -> str:
        path = _path(command.path)
        content = (await self._existing_file(path)).content
        count = content.count(command.old_str)
        if count == 0:
            raise ToolError(
                f"No replacement was performed, old_str `{command.old_str}` did not appear verbatim in {path}."
            )
        if count > 1:
            lines = _occurrence_lines(content, command.old_str)
            raise ToolError(
                f"No replacement was performed. Multiple occurrences of old_str `{command.old_str}` in lines: "
                f"{', '.join(map(str, lines))}. Please ensure it is unique"
            )
        changed = content[: content.find(command.old_str)].count("\n")
        new_content = content.replace(command.old_str, command.new_str)
        await self._write(path, new_content)
        new_lines = new_content.split("\n")
        start, end = max(0, changed - 2), min(len(new_lines), changed + 3)
        snippet = [f"{str(n).rjust(LINE_NUMBER_WIDTH)}\t{new_lines[n - 1]}" for n in range(start + 1, end + 1)]
        return "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n" + (
            "\n".join(snippet)
        )

    async def insert(self, command: BetaMemoryTool20250818InsertCommand) -> str:
        path = _path(command.path)
        content = (await self._existing_file(path)).content
        lines = content.split("\n")
        if lines[-1] == "":
            lines.pop()
        if command.insert_line < 0 or command.insert_line > len(lines):
            raise ToolError(
                f"Invalid `insert_line` parameter: {command.insert_line}. "
                f"It should be within the range [0, {len(lines)}]."
            )
        lines.insert(command.insert_line, command.insert_text.rstrip("\n"))
        new_content = "\n".join(lines)
        await self._write(path, new_content if new_content.endswith("\n") else new_content + "\n")
        return f"The file {path} has been edited."

    async def delete(self, command: BetaMemoryTool20250818DeleteCommand) -> str:
        path = _path(command.path)
        if path == ROOT:
            raise ToolError(f"Cannot delete the {ROOT} directory itself")
        files = await self._files(path)
        if not files:
            raise ToolError(f"The path {path} does not exist")
        for node in files.values():
            await self._retract(node, "deleted with Claude's memory tool")
        return f"Successfully deleted {path}"

    async def rename(self, command: BetaMemoryTool20250818RenameCommand) -> str:
        old, new = _path(command.old_path), _path(command.new_path)
        if old == ROOT:
            raise ToolError(f"Cannot rename the {ROOT} directory itself")
        if new == ROOT or await self._files(new):
            raise ToolError(f"The destination {new} already exists")
        if new.startswith(old + "/"):
            raise ToolError(f"Cannot move {old} into itself")
        for parent in parent_paths(new):
            if await self._file(parent) is not None:
                raise ToolError(f"The path {parent} is a file, not a directory")
        files = await self._files(old)
        if not files:
            raise ToolError(f"The path {old} does not exist")
        for path, node in files.items():
            target = new + path[len(old) :]
            # the new path first: a crash in between leaves both, never neither
            await self._write(target, node.content, renamed_from=path)
            await self._retract(node, f"renamed to {target} with Claude's memory tool")
        return f"Successfully renamed {old} to {new}"

    async def clear_all_memory(self) -> str:
        """Retract every file of the scope's memory directory."""
        for node in (await self._files(ROOT)).values():
            await self._retract(node, "cleared with Claude's memory tool")
        return "All memory cleared"

    # -- the files as facts ------------------------------------------------------------------
    async def _files(self, path: str) -> dict[str, MemoryNode]:
        """The current files at ``path`` and below it, by path."""
        facts = await self.memory.query_facts(
            self.scope, label_prefix=path, include_superseded=False, limit=None
        )  # a file's label is its path
        return {
            f.key: f
            for f in sorted(facts, key=lambda f: f.key or "")
            if f.key is not None
            and f.scope_key == self.scope.key
            and not f.retracted
            and (f.key == path or f.key.startswith(path + "/"))
        }

    async def _file(self, path: str) -> MemoryNode | None:
        return await self.memory.current_fact(self.scope, path)

    async def _existing_file(self, path: str) -> MemoryNode:
        node = await self._file(path) if path != ROOT else None
        if node is not None:
            return node
        if path == ROOT or await self._files(path):
            raise ToolError(f"The path {path} is not a file.")
        raise ToolError(f"The path {path} does not exist. Please provide a valid path.")

    async def _write(self, path: str, text: str, *, renamed_from: str | None = None) -> MemoryNode:
        try:
            with validation_errors("file_text"):
                op = UpsertNode(
                    op="upsert_node", label=path, content=text, key=path,
                    properties={"memory_tool": True, **({"renamed_from": renamed_from} if renamed_from else {})},
                )  # fmt: skip
            written = await self.memory.write(self.scope, op, actor=self.actor)
        except HippographError as exc:
            raise ToolError(str(exc)) from None
        return written.stored

    async def _retract(self, node: MemoryNode, reason: str) -> None:
        try:
            op = RetractNode(op="retract_node", id=node.id, reason=reason)
            await self.memory.write(self.scope, op, actor=self.actor)
        except HippographError as exc:
            raise ToolError(str(exc)) from None

    async def _missing(self, path: str) -> str:
        """The missing-path error, naming the files whose text recall finds closest to the path's words."""
        message = f"The path {path} does not exist. Please provide a valid path."
        words = " ".join(path[len(ROOT) :].replace("/", " ").replace("_", " ").replace("-", " ").split())
        if self.suggestions <= 0 or not words:
            return message
        try:
            result = await self.memory.recall(self.scope, words, layers=[Layer.SEMANTIC], top_k=self.suggestions * 4)
        except HippographError:
            return message  # the suggestion is a courtesy: the error stands without it
        closest: list[str] = []
        for item in result.items:
            key = item.node.key
            if (
                key is not None
                and key.startswith(ROOT + "/")
                and item.node.scope_key == self.scope.key
                and item.node.superseded_by is None
                and not item.node.retracted
                and key not in closest
            ):
                closest.append(key)
        if not closest:
            return message
        return message + " The closest existing files: " + ", ".join(closest[: self.suggestions])


class ClaudeMemoryToolSync(BetaAbstractMemoryTool):
    """The memory tool for the synchronous ``Anthropic`` client's tool runner.

    hippograph is asynchronous: each command runs as a coroutine on ``loop``, the running event
    loop that owns ``memory`` (its Neo4j driver), while the runner waits in its own thread. Call
    the runner from another thread than the loop's (``await asyncio.to_thread(...)``, or a
    loop started in a background thread).

    Args:
        memory: The hippograph memory.
        scope: Whose memory directory (see :class:`ClaudeMemoryTool`).
        loop: The event loop the memory was opened on.
        timeout: Seconds to wait for one command.
        actor: Who the audit trail names.
        suggestions: How many existing files a ``view`` of a missing file names.
        cache_control: Passed to the tool's definition (prompt caching).
    """

    def __init__(
        self,
        memory: Memory,
        scope: Scope,
        *,
        loop: asyncio.AbstractEventLoop,
        timeout: float = 60.0,
        actor: str = ACTOR,
        suggestions: int = 3,
        cache_control: BetaCacheControlEphemeralParam | None = None,
    ) -> None:
        super().__init__(cache_control=cache_control)
        self.tool = ClaudeMemoryTool(memory, scope, actor=actor, suggestions=suggestions)
        self.loop = loop
        self.timeout = timeout

    def view(self, command: BetaMemoryTool20250818ViewCommand) -> str:
        return self._run(self.tool.view(command))

    def create(self, command: BetaMemoryTool20250818CreateCommand) -> str:
        return self._run(self.tool.create(command))

    def str_replace(self, command: BetaMemoryTool20250818StrReplaceCommand) -> str:
        return self._run(self.tool.str_replace(command))

    def insert(self, command: BetaMemoryTool20250818InsertCommand) -> str:
        return self._run(self.tool.insert(command))

    def delete(self, command: BetaMemoryTool20250818DeleteCommand) -> str:
        return self._run(self.tool.delete(command))

    def rename(self, command: BetaMemoryTool20250818RenameCommand) -> str:
        return self._run(self.tool.rename(command))

    def clear_all_memory(self) -> str:
        """Retract every file of the scope's memory directory."""
        return self._run(self.tool.clear_all_memory())

    def _run(self, work: Coroutine[Any, Any, T]) -> T:
        return run_on_loop(
            self.loop,
            work,
            self.timeout,
            "ClaudeMemoryToolSync was called on its own event loop's thread, where it would wait on "
            "itself: run the synchronous tool runner in another thread, or use ClaudeMemoryTool",
        )


def _path(raw: str) -> str:
    try:
        return memory_path(raw)
    except PathRefusedError as exc:
        raise ToolError(exc.reason) from None


def _numbered(path: str, content: str, view_range: list[int] | None) -> str:
    """The file with line numbers, as the SDK's own file-system backend shows it."""
    lines = content.split("\n")
    if len(lines) > MAX_LINES:
        raise ToolError(f"File {path} exceeds maximum line limit of 999,999 lines.")
    start = 1
    if view_range and len(view_range) == 2:
        first = max(1, view_range[0]) - 1
        last = len(lines) if view_range[1] == -1 else view_range[1]
        lines, start = lines[first:last], first + 1
    numbered = [f"{str(i + start).rjust(LINE_NUMBER_WIDTH)}\t{line}" for i, line in enumerate(lines)]
    return f"Here's the content of {path} with line numbers:\n" + "\n".join(numbered)


def _listing(path: str, sizes: dict[str, int]) -> list[str]:
    """``size<TAB>path`` of ``path`` and of what is up to two levels below it, depth first by
    name, directories with a trailing slash; a directory's size is the sum of its files'."""
    tree: dict[str, Any] = {}
    for file, size in sizes.items():
        node = tree
        *dirs, name = file[len(path) + 1 :].split("/")
        for part in dirs:
            node = node.setdefault(part, {})
        node[name] = size
    lines = [f"{_human(sum(sizes.values()))}\t{path}"]

    def walk(node: dict[str, Any], prefix: str, depth: int) -> None:
        for name in sorted(node):
            if name.startswith("."):
                continue
            child = node[name]
            if isinstance(child, dict):
                lines.append(f"{_human(_total(child))}\t{prefix}/{name}/")
                if depth < LISTING_DEPTH:
                    walk(child, f"{prefix}/{name}", depth + 1)
            else:
                lines.append(f"{_human(child)}\t{prefix}/{name}")

    walk(tree, path, 1)
    return lines


def _total(node: dict[str, Any]) -> int:
    return sum(_total(v) if isinstance(v, dict) else int(v) for v in node.values())


def _size(content: str) -> int:
    return len(content.encode("utf-8"))


def _human(size: int) -> str:
    """Bytes as the SDK's file-system backend prints them: ``0B``, ``512B``, ``1.5K``, ``2M``."""
    if size == 0:
        return "0B"
    units = ["B", "K", "M", "G"]
    i = min((size.bit_length() - 1) // 10, len(units) - 1)
    scaled = size / (1024**i)
    return f"{int(scaled)}{units[i]}" if scaled == int(scaled) else f"{scaled:.1f}{units[i]}"


def _occurrence_lines(content: str, needle: str) -> list[int]:
    lines, start = [], 0
    while (pos := content.find(needle, start)) != -1:
        lines.append(content[:pos].count("\n") + 1)
        start = pos + 1
    return lines
