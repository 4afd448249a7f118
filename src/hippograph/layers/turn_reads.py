"""An agent turn's small reads — its scope's own working memory, its pending-trigger
candidates, the persona it sees — in one statement instead of three, each read once per turn
beside recall and handed to the part that needs it.

The statement reads exactly what the three reads it replaces read (``search_scope_layer`` for
the working and the prospective layer, ``search_persona``); every part then filters, sorts and
renders those rows as before. Nothing is kept past the turn: each turn reads afresh, so no
write can leave a part stale. Should the one statement fail, each part reads on its own, as it
did before (a part's own failure is then its own, as before).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from hippograph.layers.repository import LayerRepository, TurnRows
from hippograph.layers.semantic import AGENT_IDENTITY, MAX_PERSONA_NODES, SOUL_PREFIX
from hippograph.models import MemoryNode
from hippograph.scope import Scope

if TYPE_CHECKING:
    from hippograph.store.graph_store import GraphStore

__all__ = ["TurnReads"]

log = logging.getLogger(__name__)


class TurnReads:
    """The turn's small reads of ``scope``, started at once in one statement: each part asked
    for is read; :meth:`working`, :meth:`prospective` and :meth:`persona` wait for it and give
    that part's rows (None when the part was not asked for or the statement failed: the
    caller then reads the part itself). :meth:`close` when the turn's reads are done."""

    def __init__(self, store: GraphStore, scope: Scope, *, working: bool, prospective: bool, persona: bool) -> None:
        self.scope = scope
        self._task: asyncio.Task[TurnRows] | None = None
        if working or prospective or persona:
            read = LayerRepository(store).turn_reads(
                scope, working=working, prospective=prospective, persona=persona, identity=AGENT_IDENTITY,
                prefix=SOUL_PREFIX, limit=MAX_PERSONA_NODES,
            )  # fmt: skip
            self._task = asyncio.ensure_future(read)

    async def working(self, scope: Scope) -> list[MemoryNode] | None:
        """The scope's own working memories, not retracted (the rows of ``own_nodes``)."""
        rows = await self._rows(scope)
        return rows.working if rows is not None else None

    async def prospective(self, scope: Scope) -> list[MemoryNode] | None:
        """The scope's own prospective memories, not retracted (the rows of ``own_nodes``)."""
        rows = await self._rows(scope)
        return rows.prospective if rows is not None else None

    async def persona(self, scope: Scope) -> list[MemoryNode] | None:
        """The persona nodes the scope sees (the rows of ``persona_nodes``)."""
        rows = await self._rows(scope)
        return rows.persona if rows is not None else None

    async def _rows(self, scope: Scope) -> TurnRows | None:
        if self._task is None or scope.key != self.scope.key:  # another scope's read is its own
            return None
        try:
            return await asyncio.shield(self._task)  # one part cancelled never cancels the others' read
        except Exception as exc:  # a cancel (BaseException) goes through
            log.warning("the turn's combined read failed (%s); each part reads on its own", type(exc).__name__)
            return None

    def close(self) -> None:
        """Cancel the read if no part waited for it; a failure nobody read is dropped here."""
        task = self._task
        if task is None:
            return
        if not task.done():
            task.cancel()
        elif not task.cancelled():
            task.exception()
