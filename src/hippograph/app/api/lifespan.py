"""The app's lifespan: it owns the Neo4j connection, the memory, the consolidator, the agent
(configured by the API's settings: ``agent``, ``consolidation``, the daily token budget) and
the nightly consolidation task when a schedule is set, built once at start-up into
:class:`ApiServices` and closed (the task cancelled, the agent drained, its MCP sessions
closed) at shutdown."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager

from fastapi import FastAPI

from hippograph.agent import Agent, demo_model
from hippograph.app.access.limits import token_budget
from hippograph.app.api.metrics import ApiMetrics, CountingConnection
from hippograph.app.api.nightly import NightlyRunner
from hippograph.app.api.repository import ApiRepository
from hippograph.app.api.services import ApiServices
from hippograph.app.api.settings import ApiSettings
from hippograph.app.runtime import consolidation_model
from hippograph.app.settings import Settings
from hippograph.consolidation import SleepConsolidator
from hippograph.embeddings.base import EmbeddingProvider
from hippograph.llm.provider import ModelProvider
from hippograph.memory import Memory
from hippograph.store import GraphStore, migrate
from hippograph.store.vectors import check_embedder, model_id_of

log = logging.getLogger("hippograph.api")

ModelFactory = Callable[[Settings], ModelProvider]
Lifespan = Callable[[FastAPI], AbstractAsyncContextManager[None]]


def default_model(settings: Settings) -> ModelProvider:
    """Claude when an Anthropic key is configured, else the offline demo model."""
    if settings.anthropic_api_key:
        from hippograph.llm.anthropic_model import AnthropicModel

        return AnthropicModel(api_key=settings.anthropic_api_key.get_secret_value(), model=settings.anthropic_model)
    return demo_model()


def _embedder(api: ApiSettings) -> EmbeddingProvider:
    if api.embedder == "hashing":
        from hippograph.embeddings import HashingEmbeddings

        return HashingEmbeddings()
    from hippograph.embeddings import default_embedder

    return default_embedder()


def lifespan(settings: Settings, api: ApiSettings, metrics: ApiMetrics, model_factory: ModelFactory) -> Lifespan:
    """The lifespan of an app: connects to Neo4j (the configured one, else the local one),
    applies the library's and the API's schema and puts the services on ``app.state``."""

    @asynccontextmanager
    async def run(app: FastAPI) -> AsyncIterator[None]:
        from hippograph.app.runtime import freeze_startup_objects, neo4j_target

        uri, password = await asyncio.to_thread(neo4j_target, settings)
        conn = await CountingConnection.connect(
            uri,
            user=settings.neo4j_user,
            password=password,
            database=settings.neo4j_database,
            retry_time=api.store_retry_seconds,
        )
        metrics.store_faults.conn = conn
        memory: Memory | None = None
        agent: Agent | None = None
        warming: asyncio.Task[object] | None = None
        nightly: asyncio.Task[None] | None = None
        try:
            embedder = _embedder(api)  # refused when the database's vectors come from another one
            record = await check_embedder(conn, model_id_of(embedder), embedder.dimensions)
            await migrate(conn, dimensions=record.dimensions, similarity=record.similarity)
            repo = ApiRepository(conn)
            await repo.apply_schema()
            memory = Memory(GraphStore(conn), embedder, vector_slot=record.slot)
            consolidator = SleepConsolidator(conn, api.served_consolidation(), model=consolidation_model(settings))
            budget = token_budget(repo.keys, api.daily_token_budget)
            metrics.ledger_failures.budget = budget
            agent = Agent(memory, model_factory(settings), api.agent, consolidator=consolidator, budget=budget)
            services = ApiServices(memory, consolidator, agent, repo, api, metrics, app_settings=settings)
            if api.nightly.enabled:
                runner = services.nightly = NightlyRunner(consolidator, repo.scopes, api.nightly)
                nightly = asyncio.create_task(runner.forever(), name="hippograph-api-nightly")
            # the first users would wait for the embedder and the server's plans otherwise;
            # /healthz answers meanwhile, /readyz says ready once this is done
            warming = services.warming = asyncio.create_task(agent.warm(), name="hippograph-api-warm-up")
            warming.add_done_callback(_log_warm_up)
            app.state.services = services
            freeze_startup_objects()
            yield
        finally:
            for task in (warming, nightly):
                if task is not None:
                    task.cancel()
                    await asyncio.gather(task, return_exceptions=True)
            if agent is not None:
                try:
                    await agent.drain()
                except Exception:
                    log.warning("background work failed at shutdown", exc_info=True)
                try:
                    await agent.aclose()
                except Exception:
                    log.warning("closing the MCP sessions failed at shutdown", exc_info=True)
            if memory is not None:
                await memory.close()
            else:
                await conn.close()

    return run


def _log_warm_up(task: asyncio.Task[object]) -> None:
    if not task.cancelled() and (exc := task.exception()) is not None:
        log.error("warming up failed, the API stays not ready: %s: %s", type(exc).__name__, exc)
