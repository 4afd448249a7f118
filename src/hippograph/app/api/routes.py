"""The app's routes: GraphQL (GraphiQL at ``/graphql``, subscriptions over graphql-transport-ws
only), the plain-HTTP routes, health, readiness and Prometheus metrics, and the error handlers
that turn the library's errors into HTTP statuses."""

from __future__ import annotations

import logging
import uuid
from typing import Any

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.requests import HTTPConnection
from strawberry.exceptions import ConnectionRejectionError
from strawberry.fastapi import GraphQLRouter
from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL
from strawberry.types.unset import UNSET, UnsetType

from hippograph.app.access.keys import ApiAuthError, PermissionDeniedError, Principal
from hippograph.app.access.limits import BudgetExceededError, RateLimitedError
from hippograph.app.api.context import ApiContext
from hippograph.app.api.errors import RETRY_AFTER_SECONDS, code_of, log_outage, outage_of, retry_after_in
from hippograph.app.api.metrics import ApiMetrics
from hippograph.app.api.schema.build import build_schema
from hippograph.app.api.security import authenticate, services_of, token_of, wants_ide
from hippograph.app.api.services import ApiServices
from hippograph.app.api.settings import ApiSettings
from hippograph.app.api.sse import http_router, problems
from hippograph.errors import (
    ConfigurationError,
    ConflictError,
    HippographError,
    InvalidInputError,
    NotFoundError,
    StoreError,
)

log = logging.getLogger("hippograph.api")
UNSET_ACK: UnsetType = UNSET


async def principal_of(request: Request) -> Principal:
    """The asker of a plain HTTP request (a FastAPI dependency)."""
    return await authenticate(request)


async def context_of(connection: HTTPConnection, services: ApiServices = Depends(services_of)) -> ApiContext:
    """The GraphQL context: a WebSocket authenticates in its connect message; GraphiQL's page
    opens without a key."""
    if connection.scope["type"] == "websocket":
        return ApiContext(services, None, websocket=True)
    if not services.settings.dev_mode and wants_ide(connection) and token_of(connection) is None:
        return ApiContext(services, None)
    return ApiContext(services, await authenticate(connection))


class ApiGraphQLRouter(GraphQLRouter[ApiContext, None]):
    async def on_ws_connect(self, context: ApiContext) -> UnsetType | dict[str, object] | None:
        assert context.request is not None  # set by the router before the connect message
        try:
            principal = await authenticate(context.request, context.connection_params)
        except (ApiAuthError, RateLimitedError) as exc:
            raise ConnectionRejectionError({"message": str(exc), "code": code_of(exc)}) from None
        context.authenticate(principal)
        return UNSET_ACK

    def create_response(self, response_data: Any, sub_response: Response) -> Response:
        response = super().create_response(response_data, sub_response)
        if (retry := retry_after_in(response_data)) is not None:  # the database is down or failed
            response.status_code = 503
            response.headers["Retry-After"] = str(retry)
        return response


def install_routes(app: FastAPI, api: ApiSettings, metrics: ApiMetrics) -> str:
    """Adds the routes and error handlers; returns the HTML of GraphiQL's page (its security
    policy is derived from it)."""
    try:
        graphql = ApiGraphQLRouter(
            build_schema(api),
            context_getter=context_of,
            subscription_protocols=[GRAPHQL_TRANSPORT_WS_PROTOCOL],
            graphql_ide="graphiql",
            # a WebSocket from a page of another origin is refused (403) unless listed here
            allowed_origins=api.ws_allowed_origins,
        )
    except ValueError as exc:  # an entry of ws_allowed_origins that is not an origin
        raise ConfigurationError(f"HIPPOGRAPH_API_WS_ALLOWED_ORIGINS: {exc}") from None
    app.include_router(graphql, prefix="/graphql")
    app.include_router(http_router(principal_of, services_of))

    @app.get("/healthz")
    async def healthz() -> dict[str, str]:
        """The process is up (does not touch Neo4j)."""
        return {"status": "ok"}

    @app.get("/readyz")
    async def readyz(services: ApiServices = Depends(services_of)) -> Response:
        """Ready once the warm-up has finished (the embedder loaded, the server's plans made:
        the first users are served as fast as later ones) and while Neo4j answers a query."""
        warming = services.warming
        if warming is not None and not (warming.done() and not warming.cancelled() and warming.exception() is None):
            state = "warming" if not warming.done() else "failed"
            headers = {"Retry-After": str(RETRY_AFTER_SECONDS)}
            return JSONResponse({"status": "unavailable", "warm_up": state}, status_code=503, headers=headers)
        try:
            await services.repo.ping()
        except HippographError as exc:
            log.warning("not ready: %s", type(exc).__name__)
            headers = {"Retry-After": str(RETRY_AFTER_SECONDS)}
            return JSONResponse({"status": "unavailable", "neo4j": "unreachable"}, status_code=503, headers=headers)
        return JSONResponse({"status": "ready", "neo4j": "ok", "warm_up": "done"})

    @app.get("/metrics")
    async def prometheus() -> Response:
        return metrics.render()

    _install_error_handlers(app)
    return graphql.graphql_ide_html


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
        outage = outage_of(exc)
        if outage is None:
            return await unknown(request, exc)
        log_outage(exc, f" on {request.url.path}")
        body = {"error": {"code": outage.code, "message": outage.message}}
        return JSONResponse(body, status_code=503, headers={"Retry-After": str(outage.retry_after)})

    async def invalid(request: Request, exc: Exception) -> Response:
        """A query parameter or body FastAPI could not read: 400 ``BAD_INPUT`` in the API's own
        shape (not FastAPI's 422 ``detail``, which quotes the input)."""
        errors = exc.errors() if isinstance(exc, RequestValidationError) else []
        body = {"error": {"code": "BAD_INPUT", "message": problems(errors) or "invalid request"}}
        return JSONResponse(body, status_code=400)

    app.add_exception_handler(RequestValidationError, invalid)
    for cls, _ in _STATUS:
        app.add_exception_handler(cls, known)
    app.add_exception_handler(StoreError, store)
    app.add_exception_handler(Exception, unknown)
