"""Working memory ("now"): the last turns and the model's thinking, per session of a scope.

A FIFO of ``capacity`` (10) entries per full scope path; thinking text is capped at 500
characters and kept 24 hours; the last ``verbatim`` (2) entries go into the prompt verbatim.
Seen only from its own scope. Older entries can be summarised: ``off``, ``extractive`` (first
and last sentence) or ``llm`` (a summarize function, e.g. the agent's model).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import ClassVar, Literal

from hippograph.errors import InvalidInputError
from hippograph.layers.base import MemoryLayer, Scrubber, extractive_summary, make_node
from hippograph.models import Durability, Layer, MemoryNode
from hippograph.retrieval.derived import DRAWN_FROM, MAX_DRAWN_FROM
from hippograph.retrieval.types import RecallItem
from hippograph.scope import Scope
from hippograph.scrub import scrub_properties

THINKING_MAX_CHARS = 500
DAY = 86_400.0
SummaryMode = Literal["off", "extractive", "llm"]
SUMMARY_MODES: tuple[str, ...] = ("off", "extractive", "llm")
SUMMARY_MARK = "[working summary] "
Summarize = Callable[[list[str]], Awaitable[str]]
"""Summarises texts (``llm`` mode: a model call)."""


class WorkingMemory(MemoryLayer):
    layer: ClassVar[Layer] = Layer.WORKING
    capacity: int = 10
    verbatim: int = 2

    async def push(
        self,
        scope: Scope,
        text: str,
        *,
        kind: Literal["turn", "thinking"] = "turn",
        session_id: str | None = None,
        ttl: float = DAY,
        drawn_from: Sequence[str] = (),
    ) -> MemoryNode:
        """Add an entry, then drop the oldest of its session beyond ``capacity``.
        ``drawn_from``: the memories an answer in it was drawn from (``properties.drawn_from``:
        recall ranks the entry below them)."""
        if not isinstance(text, str) or not text.strip():
            raise InvalidInputError("text", "must be a non-empty string")
        if kind not in ("turn", "thinking"):
            raise InvalidInputError("kind", "must be 'turn' or 'thinking'")
        if kind == "thinking":
            text = text[:THINKING_MAX_CHARS]
        text = self.scrub(text)  # credentials never enter memory
        now = self.services.clock()
        node = make_node(
            self.layer,
            {
                "label": f"{kind}: {text[:80]}",
                "content": text,
                "session_id": session_id,
                "properties": {"kind": kind, DRAWN_FROM: list(drawn_from)[:MAX_DRAWN_FROM]}
                if drawn_from
                else {"kind": kind},
                "durability": Durability.TRANSIENT,
                "ttl": ttl,
                "created_at": now,
                "updated_at": now,
                "importance": 3.0,
            },
        )
        stored = (await self.add(scope, [node]))[0]
        await self.repo.delete_working_overflow(scope, keep=self.capacity, session_id=session_id)
        return stored

    async def get_context(
        self, scope: Scope, n: int | None = None, *, session_id: str | None = None, own: list[MemoryNode] | None = None
    ) -> list[MemoryNode]:
        """The newest ``n`` (default: capacity) entries of exactly this scope, oldest first:
        of one session and the entries pushed without a session when ``session_id`` is given
        (two chats never share their last turns), every entry of the scope when it is not.
        ``own``: the scope's own working memories already read this turn (read here if None)."""
        limit = self.capacity if n is None else n
        if not isinstance(limit, int) or limit < 0:
            raise InvalidInputError("n", "must be an integer ≥ 0")
        nodes = own if own is not None else await self.repo.own_nodes(scope, Layer.WORKING)
        kept = [m for m in nodes if session_id is None or m.session_id in (None, session_id)]
        kept.sort(key=lambda m: (m.created_at, m.id))
        return kept[-limit:] if limit else []

    async def clear(self, scope: Scope, session_id: str | None = None) -> int:
        return await self.repo.delete_scope_layer(scope, self.layer, session_id)

    def render_for_prompt(self, entry: MemoryNode | RecallItem, scrubber: Scrubber | None = scrub_properties) -> str:
        """The entry word for word (its label only repeats its start): ``[working] …``."""
        node = entry.node if isinstance(entry, RecallItem) else entry
        kind = "[working thinking]" if node.properties.get("kind") == "thinking" else "[working]"
        text = node.content or node.label
        return f"{kind} {self.scrub(text) if scrubber else text}"

    async def older(
        self, scope: Scope, *, session_id: str | None = None, verbatim: int | None = None
    ) -> list[MemoryNode]:
        """The entries of the working block that are not shown verbatim (oldest first): all
        but the last ``verbatim`` (None: this layer's ``verbatim``)."""
        entries = await self.get_context(scope, session_id=session_id)
        shown = self.verbatim if verbatim is None else verbatim
        return entries[:-shown] if shown else entries

    async def render_context(
        self,
        scope: Scope,
        mode: SummaryMode = "off",
        *,
        session_id: str | None = None,
        summarize: Summarize | None = None,
    ) -> str:
        """The working block of a prompt (of one session when ``session_id`` is given): older
        entries summarised per ``mode`` (``llm`` through ``summarize``, e.g. a model call),
        the last ``verbatim`` entries word for word.

        Raises:
            InvalidInputError: An unknown mode, or ``llm`` without ``summarize``.
        """
        if mode not in SUMMARY_MODES:
            raise InvalidInputError("mode", f"unknown summary mode {mode!r:.40}; one of {', '.join(SUMMARY_MODES)}")
        if mode == "llm" and summarize is None:
            raise InvalidInputError("summarize", "summary mode 'llm' needs a summarize function (a model)")
        entries = await self.get_context(scope, session_id=session_id)
        older, recent = entries[: -self.verbatim] or [], entries[-self.verbatim :]
        lines = []
        texts = [m.content for m in older]
        if texts and mode == "extractive":
            lines.append(SUMMARY_MARK + extractive_summary(texts).replace("\n", " "))
        elif texts and mode == "llm" and summarize is not None:
            lines.append(SUMMARY_MARK + self.scrub(await summarize(texts)).replace("\n", " "))
        lines.extend(self.render_for_prompt(m) for m in recent)
        return "\n".join(lines)
