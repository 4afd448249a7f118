"""The FastAPI app, assembled from its parts: the lifespan (:mod:`.lifespan`: the Neo4j
connection, the memory, the consolidator and the agent), security (:mod:`.security`: one
``authenticate`` for HTTP, GraphQL and WebSocket), the routes (:mod:`.routes`: GraphQL,
the SSE turn route, export / import, health, readiness, metrics; GraphQL's router refuses a
WebSocket from another origin), the dashboard at ``/`` and, around them all, the edge's guards
(:mod:`.hardening`: the body-size limit and the security headers). Each request (a GraphQL
WebSocket: each connection) is its own causal scope: on a cluster its reads see its own writes
and never wait for other requests' (:func:`~hippograph.store.causal.causal_scope`)."""

from __future__ import annotations

from fastapi import FastAPI
from starlette.types import ASGIApp, Receive, Scope, Send

from hippograph.app.api.dashboard import install_dashboard
from hippograph.app.api.hardening import EdgeGuard, ide_policy
from hippograph.app.api.lifespan import ModelFactory, default_model, lifespan
from hippograph.app.api.metrics import ApiMetrics, MetricsMiddleware
from hippograph.app.api.routes import install_routes
from hippograph.app.api.settings import ApiSettings
from hippograph.app.settings import Settings
from hippograph.errors import ConfigurationError
from hippograph.store.causal import causal_scope

LOCALHOST = "127.0.0.1"


def check_dev_mode(api: ApiSettings) -> None:
    if api.dev_mode and api.host != LOCALHOST:
        raise ConfigurationError(f"development mode (no keys) only binds to {LOCALHOST}, not {api.host}")


class CausalScopes:
    """Runs every HTTP request and WebSocket connection in a causal scope of its own."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        with causal_scope():
            await self.app(scope, receive, send)


def create_app(
    settings: Settings | None = None,
    api: ApiSettings | None = None,
    *,
    model_factory: ModelFactory | None = None,
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
    app = FastAPI(
        title="hippograph",
        lifespan=lifespan(settings, cfg, metrics, model_factory or default_model),
        docs_url=None,
        redoc_url=None,
    )
    app.add_middleware(CausalScopes)
    app.add_middleware(MetricsMiddleware, metrics=metrics)
    ide_html = install_routes(app, cfg, metrics)
    install_dashboard(app)
    app.add_middleware(  # outermost: a refused body or origin never reaches a route
        EdgeGuard,
        max_body_bytes=cfg.max_body_bytes,
        max_import_bytes=cfg.max_import_bytes,
        ide_csp=ide_policy(ide_html),
    )
    return app
