"""Which errors a client may read. The library's caller errors (bad input, not found, conflict)
and the API's own (auth, role, rate limit, budget) pass through with their message and a code;
a database that is down (a retryable store error) is ``UNAVAILABLE`` and a database that failed
inside itself (a full disk: :class:`~hippograph.errors.StoreFailedError`) is ``STORE_FAILED``,
each with a fixed message and a retry delay (HTTP 503 with ``Retry-After``); everything else is
replaced by "Internal error (id …)" and logged under that id."""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from typing import Any

from graphql.error import GraphQLError
from strawberry.extensions import MaskErrors

from hippograph.app.access.keys import ApiAuthError, PermissionDeniedError
from hippograph.app.access.limits import BudgetExceededError, RateLimitedError
from hippograph.errors import ConflictError, InvalidInputError, NotFoundError, StoreError, StoreFailedError

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
STORE_FAILED = "STORE_FAILED"
STORE_FAILED_MESSAGE = (
    "The database cannot store data until an operator frees space and restarts it; "
    "a write in flight is either wholly applied or absent afterwards: retry later."
)
STORE_FAILED_RETRY_SECONDS = 60
"""What ``Retry-After`` tells a client while the database refuses every transaction."""


@dataclass(frozen=True, slots=True)
class Outage:
    """How the API answers a store fault that is the database's, not the request's: a code,
    a fixed message (no internals) and how long a client should wait (HTTP 503)."""

    code: str
    message: str
    retry_after: int


def outage_of(exc: BaseException | None) -> Outage | None:
    """The outage a store fault means: the database down or restarting (a retry may cure it),
    or failed inside itself (an operator must act); None for every other error."""
    if isinstance(exc, StoreFailedError):
        return Outage(STORE_FAILED, STORE_FAILED_MESSAGE, STORE_FAILED_RETRY_SECONDS)
    if isinstance(exc, StoreError) and exc.retryable:
        return Outage(UNAVAILABLE, UNAVAILABLE_MESSAGE, RETRY_AFTER_SECONDS)
    return None


def code_of(exc: BaseException | None) -> str | None:
    if outage := outage_of(exc):
        return outage.code
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
        return [_outage(e, outage) if (outage := outage_of(e.original_error)) else _with_code(e) for e in processed]


def log_outage(exc: BaseException, where: str) -> None:
    """A failed database needs an operator (an error); one that is down comes back (a warning)."""
    if isinstance(exc, StoreFailedError):
        log.error("database failed%s: %s", where, exc)
    else:
        log.warning("database unavailable%s: %s", where, type(exc).__name__)


def _outage(error: GraphQLError, outage: Outage) -> GraphQLError:
    assert error.original_error is not None
    log_outage(error.original_error, "")
    return GraphQLError(
        message=outage.message,
        nodes=error.nodes,
        source=error.source,
        positions=error.positions,
        path=error.path,
        original_error=None,
        extensions={"code": outage.code, "retryAfter": outage.retry_after},
    )


OUTAGE_CODES = frozenset({UNAVAILABLE, STORE_FAILED})


def retry_after_in(response: object) -> int | None:
    """The longest retry delay among a GraphQL response's (or batch's) outage errors, or None
    when it carries none: a response with one is answered 503 with ``Retry-After``."""
    bodies = response if isinstance(response, list) else [response]
    delays = [
        int(ext.get("retryAfter") or RETRY_AFTER_SECONDS)
        for body in bodies
        if isinstance(body, dict)
        for err in body.get("errors") or []
        if isinstance(err, dict)
        if (ext := err.get("extensions") or {}).get("code") in OUTAGE_CODES
    ]
    return max(delays, default=None)


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
