"""The FastAPI app: GraphQL (GraphiQL at ``/graphql``, subscriptions over graphql-transport-ws
only), the SSE turn route, export / import, health, readiness, Prometheus metrics and the
dashboard at ``/``. The lifespan owns the Neo4j driver, the memory, the consolidator and the agent."""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from fastapi import Depends, FastAPI, Request
from fastapi.responses import JSONResponse, Response
from starlette.requests import HTTPConnection
from strawberry.exceptions import ConnectionRejectionError
from strawberry.fastapi import GraphQLRouter
from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL
from strawberry.types.unset import UNSET, UnsetType

from hippograph.agent import Agent, AgentConfig, demo_model
from hippograph.app.api.auth import ApiAuthError, PermissionDeniedError, Principal, bearer_token
from hippograph.app.api.context import ApiContext
from hippograph.app.api.dashboard import install_dashboard
from hippograph.app.api.errors import (
    RETRY_AFTER_SECONDS,
    UNAVAILABLE,
    UNAVAILABLE_MESSAGE,
    code_of,
    is_unavailable,
    unavailable_in,
)
from hippograph.app.api.limits import BudgetExceededError, RateLimitedError, authenticate
from hippograph.app.api.metrics import ApiMetrics, CountingConnection, MetricsMiddleware
from hippograph.app.api.repository import ApiRepository
from hippograph.app.api.schema.build import build_schema
from hippograph.app.api.services import ApiServices
from hippograph.app.api.settings import ApiSettings
from hippograph.app.api.sse import http_router
from hippograph.app.runtime import consolidation_model
from hippograph.app.settings import Settings
from hippograph.consolidation import SleepConsolidator
from hippograph.embeddings.base import EmbeddingProvider
from hippograph.errors import (
    ConfigurationError,
    ConflictError,
    HippographError,
    InvalidInputError,
    NotFoundError,
    StoreError,
)
from hippograph.llm.provider import ModelProvider
from hippograph.memory import Memory
from hippograph.store import GraphStore, migrate

log = logging.getLogger("hippograph.api")
LOCALHOST = "127.0.0.1"
UNSET_ACK: UnsetType = UNSET


def check_dev_mode(api: ApiSettings) -> None:
    if api.dev_mode and api.host != LOCALHOST:
        raise ConfigurationError(f"development mode (no keys) only binds to {LOCALHOST}, not {api.host}")


def _model(settings: Settings) -> ModelProvider:
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


def create_app(
    settings: Settings | None = None,
    api: ApiSettings | None = None,
    *,
    model_factory: Callable[[Settings], ModelProvider] | None = None,
) -> FastAPI:
    """The ASGI app. Its lifespan connects to Neo4j (the configured one, else the local one),
    applies the library's and the API's schema, and builds the memory, consolidator and agent.

    Raises:
        ConfigurationError: Development mode on an address other than 127.0.0.1.
    """
    settings = settings or Settings()
    cfg = api or ApiSettings()
    check_dev_mode(cfg)
    metrics = ApiMetrics()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        from hippograph.app.runtime import freeze_startup_objects, neo4j_target

        uri, password = await asyncio.to_thread(neo4j_target, settings)
        conn = await CountingConnection.connect(
            uri,
            user=settings.neo4j_user,
            password=password,
            database=settings.neo4j_database,
            retry_time=cfg.store_retry_seconds,
        )
        memory: Memory | None = None
        agent: Agent | None = None
        try:
            await migrate(conn)
            repo = ApiRepository(conn)
            await repo.apply_schema()
            memory = Memory(GraphStore(conn), _embedder(cfg))
            consolidator = SleepConsolidator(conn, model=consolidation_model(settings))
            agent = Agent(memory, (model_factory or _model)(settings), AgentConfig(), consolidator=consolidator)
            app.state.services = ApiServices(memory, consolidator, agent, repo, cfg, metrics)
            freeze_startup_objects()
            yield
        finally:
            if agent is not None:
                try:
                    await agent.drain()
                except Exception:
                    log.warning("background work failed at shutdown", exc_info=True)
            if memory is not None:
                await memory.close()
            else:
                await conn.close()

    app = FastAPI(title="hippograph", lifespan=lifespan, docs_url=None, redoc_url=None)
    app.add_middleware(MetricsMiddleware, metrics=metrics)

    def services_dep(connection: HTTPConnection) -> ApiServices:
        services: ApiServices = connection.app.state.services
        return services

    async def principal_dep(request: Request, services: ApiServices = Depends(services_dep)) -> Principal:
        if cfg.dev_mode:
            return Principal.development()
        token = bearer_token(request.headers.get("authorization"))
        return await authenticate(services.repo, token, default_limit=cfg.rate_limit_per_minute)

    async def context_getter(connection: HTTPConnection, services: ApiServices = Depends(services_dep)) -> ApiContext:
        if connection.scope["type"] == "websocket":
            return ApiContext(services, None, websocket=True)
        if cfg.dev_mode:
            return ApiContext(services, Principal.development())
        token = bearer_token(connection.headers.get("authorization"))
        wants_ide = connection.scope.get("method") == "GET" and "text/html" in connection.headers.get("accept", "")
        if token is None and wants_ide:
            return ApiContext(services, None)  # GraphiQL's page; its requests carry the key
        principal = await authenticate(services.repo, token, default_limit=cfg.rate_limit_per_minute)
        return ApiContext(services, principal)

    class ApiGraphQLRouter(GraphQLRouter[ApiContext, None]):
        async def on_ws_connect(self, context: ApiContext) -> UnsetType | dict[str, object] | None:
            if cfg.dev_mode:
                context.authenticate(Principal.development())
                return UNSET_ACK
            params = context.connection_params if isinstance(context.connection_params, dict) else {}
            raw = params.get("authorization") or params.get("Authorization")
            token = bearer_token(raw) if isinstance(raw, str) else None
            if token is None and isinstance(params.get("apiKey"), str):
                token = params["apiKey"]
            try:
                principal = await authenticate(context.services.repo, token, default_limit=cfg.rate_limit_per_minute)
            except (ApiAuthError, RateLimitedError) as exc:
                raise ConnectionRejectionError({"message": str(exc), "code": code_of(exc)}) from None
            context.authenticate(principal)
            return UNSET_ACK

        def create_response(self, response_data: Any, sub_response: Response) -> Response:
            response = super().create_response(response_data, sub_response)
            if unavailable_in(response_data):  # the database is down: 503, and when to retry
                response.status_code = 503
                response.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
            return response

    graphql = ApiGraphQLRouter(
        build_schema(cfg),
        context_getter=context_getter,
        subscription_protocols=[GRAPHQL_TRANSPORT_WS_PROTOCOL],
        graphql_ide="graphiql",
    )
    app.include_router(graphql, prefix="/graphql")
    app.include_router(http_router(principal_dep, services_dep))

    @app.get("/healthz")
    async def healthz() -> dict[str, str]:
        """The process is up (does not touch Neo4j)."""
        return {"status": "ok"}

    @app.get("/readyz")
    async def readyz(services: ApiServices = Depends(services_dep)) -> Response:
        """Ready when Neo4j answers a query."""
        try:
            await services.repo.ping()
        except HippographError as exc:
            log.warning("not ready: %s", type(exc).__name__)
            headers = {"Retry-After": str(RETRY_AFTER_SECONDS)}
            return JSONResponse({"status": "unavailable", "neo4j": "unreachable"}, status_code=503, headers=headers)
        return JSONResponse({"status": "ready", "neo4j": "ok"})

    @app.get("/metrics")
    async def prometheus() -> Response:
        return metrics.render()

    _install_error_handlers(app)
    install_dashboard(app)
    return app


_STATUS: tuple[tuple[type[Exception], int], ...] = (
    (ApiAuthError, 401),
    (PermissionDeniedError, 403),
    (NotFoundError, 404),
    (ConflictError, 409),
    (InvalidInputError, 400),
    (RateLimitedError, 429),
    (BudgetExceededError, 429),
)


def _install_error_handlers(app: FastAPI) -> None:
    async def known(request: Request, exc: Exception) -> Response:
        status = next(code for cls, code in _STATUS if isinstance(exc, cls))
        headers: dict[str, str] = {}
        retry = getattr(exc, "retry_after", None)
        if retry is not None:
            headers["Retry-After"] = str(retry)
        if status == 401:
            headers["WWW-Authenticate"] = "Bearer"
        body: dict[str, Any] = {"error": {"code": code_of(exc), "message": str(exc)}}
        return JSONResponse(body, status_code=status, headers=headers)

    async def unknown(request: Request, exc: Exception) -> Response:
        error_id = uuid.uuid4().hex[:12]
        log.error("internal error %s on %s", error_id, request.url.path, exc_info=exc)
        return JSONResponse({"error": {"code": "INTERNAL", "message": f"Internal error (id {error_id})."}}, 500)

    async def store(request: Request, exc: Exception) -> Response:
        if not is_unavailable(exc):
            return await unknown(request, exc)
        log.warning("database unavailable on %s: %s", request.url.path, type(exc).__name__)
        body = {"error": {"code": UNAVAILABLE, "message": UNAVAILABLE_MESSAGE}}
        return JSONResponse(body, status_code=503, headers={"Retry-After": str(RETRY_AFTER_SECONDS)})

    for cls, _ in _STATUS:
        app.add_exception_handler(cls, known)
    app.add_exception_handler(StoreError, store)
    app.add_exception_handler(Exception, unknown)
