"""The sleep consolidator: runs the consolidation phases over a scope and its subtree,
under a per-scope lease, and records a report for each run."""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

from hippograph.audit import AuditEntry
from hippograph.consolidation import repository as repo
from hippograph.consolidation.config import ConsolidationConfig
from hippograph.consolidation.context import PhaseContext, SkipPhase
from hippograph.consolidation.history import list_runs, save_report
from hippograph.consolidation.lease import Lease, ensure_scope_chain
from hippograph.consolidation.phases import PHASES, QUICK_NAP_ORDER, RUN_ORDER
from hippograph.consolidation.report import (
    ConsolidationReport,
    EntryPoint,
    Phase,
    PhaseReport,
    PhaseStatus,
    RunStatus,
)
from hippograph.consolidation.restore import restore_memory
from hippograph.consolidation.schedule import NapSchedule
from hippograph.errors import StoreError
from hippograph.scope import Scope
from hippograph.store.connection import Neo4jConnection
from hippograph.store.graph_store import GraphStore
from hippograph.tracing import SCOPE_KEY, span

log = logging.getLogger(__name__)
MAX_UNRELEASED = 1_000
"""Leases of ended runs kept to give back later (past it the oldest wait for ``lease_ttl``)."""


class HasConnection(Protocol):
    """What :meth:`SleepConsolidator.for_memory` needs of a memory: the database it lives in."""

    @property
    def connection(self) -> Neo4jConnection: ...


class SleepConsolidator:
    """Runs consolidation ("sleep") over a scope and every scope below it.

    Args:
        conn: The Neo4j connection.
        config: Thresholds of every phase; the defaults when omitted.
        model: Optional hooks: a :class:`~hippograph.consolidation.Summarizer` writes episode
            summaries (phase 10), a :class:`~hippograph.consolidation.MergeJudge` confirms
            merges (phase 13). Without one, summaries are extractive and merges go by cosine.
        clock: Epoch seconds "now" for the phases (inject one to simulate time). Leases use
            the database server's clock.
    """

    def __init__(
        self,
        conn: Neo4jConnection,
        config: ConsolidationConfig | None = None,
        *,
        model: object | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.conn = conn
        self.config = config or ConsolidationConfig()
        self.model = model
        self.clock = clock
        self._schedule = NapSchedule(self.config.turns_between_naps)
        self._unreleased: dict[str, tuple[str, Lease]] = {}
        """Scope key → (run id, lease) of this consolidator's runs that ended while the
        database was down, so their release failed: given back before the next run instead
        of blocking the scope for ``lease_ttl``."""

    @classmethod
    def for_store(
        cls,
        store: GraphStore,
        config: ConsolidationConfig | None = None,
        *,
        model: object | None = None,
        clock: Callable[[], float] = time.time,
    ) -> SleepConsolidator:
        """A consolidator over the database of ``store``."""
        return cls(store.conn, config, model=model, clock=clock)

    @classmethod
    def for_memory(
        cls,
        memory: HasConnection,
        config: ConsolidationConfig | None = None,
        *,
        model: object | None = None,
        clock: Callable[[], float] = time.time,
    ) -> SleepConsolidator:
        """A consolidator over the database ``memory`` (a :class:`~hippograph.Memory`) lives in."""
        return cls(memory.connection, config, model=model, clock=clock)

    # -- entry points ---------------------------------------------------------------------
    async def quick_nap(self, scope: Scope, *, wait: bool = False) -> ConsolidationReport:
        """Phases 1 strengthen, 5 soul_corrections and 10 episodic_summary (one fold at most).

        Raises:
            AlreadyRunningError: Another run holds the scope (after ``wait_timeout`` if ``wait``).
        """
        return await self._execute(scope, EntryPoint.QUICK_NAP, QUICK_NAP_ORDER, wait=wait)

    async def run(
        self, scope: Scope, *, wait: bool = False, only: Iterable[Phase | str] | None = None
    ) -> ConsolidationReport:
        """Every phase, in dependency order (see :mod:`hippograph.consolidation.phases`).

        Args:
            scope: The scope; its whole subtree is consolidated.
            wait: Wait for a busy scope (up to ``config.wait_timeout``) instead of failing.
            only: Run just these phases (still in dependency order), e.g. to repair one thing.

        Raises:
            AlreadyRunningError: Another run holds the scope.
        """
        order = RUN_ORDER
        if only is not None:
            chosen = {Phase(p) for p in only}
            order = tuple(p for p in RUN_ORDER if p in chosen)
        return await self._execute(scope, EntryPoint.RUN, order, wait=wait)

    async def nightly_nap(self, scope: Scope, *, wait: bool = False) -> ConsolidationReport:
        """Every phase, when ``config.nightly_enabled``; otherwise a persisted report that says
        it was skipped and why. The operator's scheduler calls this; the library never does."""
        if not self.config.nightly_enabled:
            return await self._skipped(
                scope,
                EntryPoint.NIGHTLY_NAP,
                "nightly naps are off (config.nightly_enabled is False)",
            )
        return await self._execute(scope, EntryPoint.NIGHTLY_NAP, RUN_ORDER, wait=wait)

    def note_turn(self, scope: Scope) -> bool:
        """Count an agent turn of ``scope``; True every ``config.turns_between_naps`` turns,
        when the caller should run :meth:`quick_nap` (never True when that setting is 0)."""
        return self._schedule.note_turn(scope)

    # -- history and undo ---------------------------------------------------------------
    async def list_runs(self, scope: Scope, limit: int = 20, offset: int = 0) -> list[ConsolidationReport]:
        """Reports of the runs started on ``scope``, newest first."""
        return await list_runs(self.conn, scope, limit, offset)

    async def restore(self, scope: Scope, memory_id: str, actor: str) -> AuditEntry:
        """Restore a soft-retracted memory of ``scope`` (or below) within the grace period.

        Later phases leave a restored memory alone (it is not retracted or merged again).

        Args:
            scope: A scope that owns the memory (its own or an ancestor's scope).
            memory_id: The retracted memory.
            actor: Who restores it (kept in the audit entry).

        Returns:
            The audit entry recorded with the restore (its detail holds the old retraction).

        Raises:
            NotFoundError: No such memory in the subtree (never written, or already pruned).
            ConflictError: It is not retracted, or its grace period is over.
            InvalidInputError: A malformed id or actor.
        """
        return await restore_memory(
            self.conn, scope, memory_id, actor, now=self.clock(), grace=self.config.retraction_grace
        )

    # -- machinery ------------------------------------------------------------------------
    async def _skipped(self, scope: Scope, entry: EntryPoint, reason: str) -> ConsolidationReport:
        now = self.clock()
        report = ConsolidationReport(
            scope_key=scope.key,
            entry_point=entry,
            status=RunStatus.SKIPPED,
            skip_reason=reason,
            started_at=now,
            finished_at=now,
            phases_run=[_skip(p, reason) for p in RUN_ORDER],
        )
        await ensure_scope_chain(self.conn, scope)  # a skipped run needs no lease, only its scope
        await save_report(self.conn, report)
        return report

    async def _execute(
        self, scope: Scope, entry: EntryPoint, order: Sequence[Phase], *, wait: bool
    ) -> ConsolidationReport:
        attributes = {SCOPE_KEY: scope.key, "hippograph.consolidation.entry_point": entry.value}
        with span("hippograph.consolidation", attributes) as current:
            report = await self._run(scope, entry, order, wait=wait)
            current.set_attributes(
                {
                    "hippograph.consolidation.run_id": report.run_id,
                    "hippograph.consolidation.status": report.status.value,
                }
            )
            return report

    async def _run(self, scope: Scope, entry: EntryPoint, order: Sequence[Phase], *, wait: bool) -> ConsolidationReport:
        c = self.config
        report = ConsolidationReport(scope_key=scope.key, entry_point=entry, started_at=self.clock())
        await self._release_ended_runs()
        lease = await Lease.acquire(
            self.conn,
            scope,
            holder=_holder(report.run_id),
            ttl=c.lease_ttl,
            wait=wait,
            timeout=c.wait_timeout,
            poll=c.lease_poll,
        )
        ctx = PhaseContext(
            conn=self.conn,
            scope=scope,
            config=c,
            now=report.started_at,
            run_id=report.run_id,
            model=self.model,
            quick=entry is EntryPoint.QUICK_NAP,
            state=dict(lease.state),
            save_state=lease.save,
        )
        started = time.perf_counter()
        current: Phase | None = None
        try:
            for current in order:
                await lease.renew()
                report.phases_run.append(await _run_phase(current, ctx))
            current = None
        except asyncio.CancelledError:
            report.status, report.error = RunStatus.FAILED, f"cancelled in phase {current}"
            await asyncio.shield(self._terminate(report.run_id))
            raise
        except Exception as exc:
            report.status = RunStatus.FAILED
            report.error = f"{type(exc).__name__} in phase {current}"
            raise
        finally:
            report.finished_at = self.clock()
            report.duration_ms = round((time.perf_counter() - started) * 1000.0, 3)
            await asyncio.shield(self._finish(lease, report))
        return report

    async def _finish(self, lease: Lease, report: ConsolidationReport) -> None:
        try:
            await save_report(self.conn, report)
        finally:
            state = {"last_run_at": report.started_at} if report.status is RunStatus.COMPLETED else {}
            try:
                await lease.release(state)
            except StoreError:
                self._unreleased[lease.scope.key] = (report.run_id, lease)
                while len(self._unreleased) > MAX_UNRELEASED:
                    self._unreleased.pop(next(iter(self._unreleased)))
                raise

    async def _release_ended_runs(self) -> None:
        """Give back the leases of this consolidator's runs that ended while the database was
        down. Safe, so never two holders: the run has ended here, its statements still on the
        server are terminated first, and a release matches this run's holder only (a lease that
        expired and was taken meanwhile stays with its new holder). Another process cannot know
        the run ended: it waits for ``lease_ttl``."""
        for key, (run_id, lease) in list(self._unreleased.items()):
            try:
                await repo.terminate_run(self.conn, run_id)
                await lease.release({})
            except StoreError:
                return  # still unreachable: the next run tries again; lease_ttl bounds the wait meanwhile
            del self._unreleased[key]

    async def _terminate(self, run_id: str) -> None:
        try:
            await repo.terminate_run(self.conn, run_id)
        except Exception:  # best effort: the lease's expiry still bounds a stray statement
            log.warning("could not terminate the statements of cancelled run %s", run_id, exc_info=True)


async def _run_phase(phase: Phase, ctx: PhaseContext) -> PhaseReport:
    started = time.perf_counter()
    attributes = {"hippograph.consolidation.phase": phase.value, "hippograph.consolidation.phase_number": phase.number}
    with span(f"hippograph.consolidation.{phase.value}", attributes) as current:
        try:
            counts = await PHASES[phase](ctx)
        except SkipPhase as skip:
            current.set_attribute("hippograph.consolidation.phase_status", PhaseStatus.SKIPPED.value)
            return _skip(phase, str(skip))
        current.set_attribute("hippograph.consolidation.phase_status", PhaseStatus.RAN.value)
        current.set_attributes({f"hippograph.consolidation.counts.{k}": v for k, v in counts.items()})
    elapsed = round((time.perf_counter() - started) * 1000.0, 3)
    return PhaseReport(name=phase, number=phase.number, status=PhaseStatus.RAN, counts=counts, duration_ms=elapsed)


def _skip(phase: Phase, reason: str) -> PhaseReport:
    return PhaseReport(name=phase, number=phase.number, status=PhaseStatus.SKIPPED, skip_reason=reason)


def _holder(run_id: str) -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{run_id}"
