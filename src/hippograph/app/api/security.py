"""Who is asking: ONE :func:`authenticate` for every way in — a plain HTTP request, a GraphQL
request's context and a GraphQL WebSocket's connect message. In development mode everyone is
the development principal; otherwise the key comes from ``Authorization: Bearer …`` (on a
WebSocket: the connect message's ``authorization`` or ``apiKey``) and is checked, and counted
against its rate limit, in the key store."""

from __future__ import annotations

from collections.abc import Mapping

from starlette.requests import HTTPConnection

from hippograph.app.access.keys import Principal, bearer_token
from hippograph.app.access.limits import authenticate as authenticate_token
from hippograph.app.api.services import ApiServices


def services_of(connection: HTTPConnection) -> ApiServices:
    """The services the lifespan built (also a FastAPI dependency)."""
    services: ApiServices = connection.app.state.services
    return services


def token_of(connection: HTTPConnection, connection_params: object = None) -> str | None:
    """The key a request carries: its bearer header, or on a WebSocket its connect message's
    ``authorization`` (a bearer header's value) or ``apiKey``."""
    if connection.scope["type"] != "websocket":
        return bearer_token(connection.headers.get("authorization"))
    params: Mapping[str, object] = connection_params if isinstance(connection_params, dict) else {}
    raw = params.get("authorization") or params.get("Authorization")
    token = bearer_token(raw) if isinstance(raw, str) else None
    api_key = params.get("apiKey")
    if token is None and isinstance(api_key, str):
        token = api_key
    return token


async def authenticate(connection: HTTPConnection, connection_params: object = None) -> Principal:
    """The principal of a request or WebSocket (``connection_params``: its connect message).

    Raises:
        ApiAuthError: No key, an unknown one or a revoked one.
        RateLimitedError: The key's window is full.
    """
    services = services_of(connection)
    if services.settings.dev_mode:
        return Principal.development()
    return await authenticate_token(
        services.repo.keys,
        token_of(connection, connection_params),
        default_limit=services.settings.rate_limit_per_minute,
    )


def wants_ide(connection: HTTPConnection) -> bool:
    """A browser opening GraphiQL's page (its later requests carry the key)."""
    return connection.scope.get("method") == "GET" and "text/html" in connection.headers.get("accept", "")
