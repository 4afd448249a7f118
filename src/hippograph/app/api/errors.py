"""Which errors a client may read. The library's caller errors (bad input, not found, conflict)
and the API's own (auth, role, rate limit, budget) pass through with their message and a code;
a database that is down (a retryable store error) is ``UNAVAILABLE`` with a fixed message and a
retry delay (HTTP 503 with ``Retry-After``); everything else is replaced by "Internal error
(id …)" and logged under that id."""

from __future__ import annotations

import logging
import uuid
from typing import Any

from graphql.error import GraphQLError
from strawberry.extensions import MaskErrors

from hippograph.app.access.keys import ApiAuthError, PermissionDeniedError
from hippograph.app.access.limits import BudgetExceededError, RateLimitedError
from hippograph.errors import ConflictError, InvalidInputError, NotFoundError, StoreError

log = logging.getLogger("hippograph.api")

ERROR_CODES: tuple[tuple[type[Exception], str], ...] = (
    (InvalidInputError, "BAD_INPUT"),
    (NotFoundError, "NOT_FOUND"),
    (ConflictError, "CONFLICT"),
    (ApiAuthError, "UNAUTHENTICATED"),
    (PermissionDeniedError, "FORBIDDEN"),
    (RateLimitedError, "RATE_LIMITED"),
    (BudgetExceededError, "BUDGET_EXCEEDED"),
)


UNAVAILABLE = "UNAVAILABLE"
UNAVAILABLE_MESSAGE = "The database is unavailable; retry shortly."
RETRY_AFTER_SECONDS = 5
"""What ``Retry-After`` tells a client while the database is down."""


def is_unavailable(exc: BaseException | None) -> bool:
    """A store fault that a retry may cure (the database is down or restarting)."""
    return isinstance(exc, StoreError) and exc.retryable


def code_of(exc: BaseException | None) -> str | None:
    if is_unavailable(exc):
        return UNAVAILABLE
    for cls, code in ERROR_CODES:
        if isinstance(exc, cls):
            return code
    return None


def is_client_error(error: GraphQLError) -> bool:
    """GraphQL's own errors (syntax, validation, variable coercion, limits: raised before any
    resolver runs, so without a path) and the passed-through classes."""
    original = error.original_error
    if original is None or isinstance(original, GraphQLError) or error.path is None:
        return True
    return code_of(original) is not None


class MaskInternalErrors(MaskErrors):
    """:class:`MaskErrors` that lets client errors through with an ``extensions.code`` and
    masks the rest with an id that names the logged traceback."""

    def __init__(self) -> None:
        super().__init__(should_mask_error=lambda e: not is_client_error(e))

    def anonymise_error(self, error: GraphQLError) -> GraphQLError:
        error_id = uuid.uuid4().hex[:12]
        original = error.original_error
        log.error(
            "internal error %s: %s",
            error_id,
            type(original).__name__ if original else "unknown",
            exc_info=(type(original), original, original.__traceback__) if original else None,
        )
        return GraphQLError(
            message=f"Internal error (id {error_id}).",
            nodes=error.nodes,
            source=error.source,
            positions=error.positions,
            path=error.path,
            original_error=None,
            extensions={"code": "INTERNAL", "errorId": error_id},
        )

    def _process_errors(self, errors: list[GraphQLError]) -> list[GraphQLError]:
        processed = super()._process_errors(errors)
        return [_unavailable(e) if is_unavailable(e.original_error) else _with_code(e) for e in processed]


def _unavailable(error: GraphQLError) -> GraphQLError:
    log.warning("database unavailable: %s", type(error.original_error).__name__)
    return GraphQLError(
        message=UNAVAILABLE_MESSAGE,
        nodes=error.nodes,
        source=error.source,
        positions=error.positions,
        path=error.path,
        original_error=None,
        extensions={"code": UNAVAILABLE, "retryAfter": RETRY_AFTER_SECONDS},
    )


def unavailable_in(response: object) -> bool:
    """True when a GraphQL response (or batch) carries an ``UNAVAILABLE`` error: it is answered 503."""
    bodies = response if isinstance(response, list) else [response]
    return any(
        (err.get("extensions") or {}).get("code") == UNAVAILABLE
        for body in bodies
        if isinstance(body, dict)
        for err in body.get("errors") or []
        if isinstance(err, dict)
    )


def _with_code(error: GraphQLError) -> GraphQLError:
    code = code_of(error.original_error)
    if code is None:
        if error.extensions and "code" in error.extensions:
            return error
        if error.original_error is None or isinstance(error.original_error, GraphQLError) or error.path is None:
            code = "GRAPHQL_VALIDATION"
        else:
            return error
    extensions: dict[str, Any] = {**(error.extensions or {}), "code": code}
    retry = getattr(error.original_error, "retry_after", None)
    if retry is not None:
        extensions["retryAfter"] = retry
    error.extensions = extensions
    return error
