"""Which errors reach a client: caller errors with a code, everything else masked with an id."""

from __future__ import annotations

import logging

import pytest
from graphql import GraphQLError

from hippograph.app.access.keys import PermissionDeniedError
from hippograph.app.access.limits import RateLimitedError
from hippograph.app.api.errors import MaskInternalErrors, retry_after_in
from hippograph.errors import InvalidInputError, NotFoundError, StoreError, StoreFailedError, StoreUnavailableError


def located(exc: Exception) -> GraphQLError:
    return GraphQLError(str(exc), path=["node"], original_error=exc)


def test_caller_errors_pass_with_a_code_and_the_rest_is_masked(caplog: pytest.LogCaptureFixture) -> None:
    masker = MaskInternalErrors()
    with caplog.at_level(logging.ERROR, logger="hippograph.api"):
        out = masker._process_errors(
            [
                located(InvalidInputError("first", "must be between 1 and 100")),
                located(NotFoundError("scope org:x not found")),
                located(PermissionDeniedError("a reader key cannot do this")),
                located(RateLimitedError(12)),
                located(StoreError("Neo4j error Neo.ClientError.Statement.SyntaxError: secret query text")),
                located(RuntimeError("boom at /srv/app.py line 3")),
                GraphQLError("Cannot query field 'nope' on type 'Query'."),
            ]
        )
    codes = [e.extensions["code"] for e in out]  # type: ignore[index]
    assert codes == [
        "BAD_INPUT",
        "NOT_FOUND",
        "FORBIDDEN",
        "RATE_LIMITED",
        "INTERNAL",
        "INTERNAL",
        "GRAPHQL_VALIDATION",
    ]
    assert out[3].extensions["retryAfter"] == 12  # type: ignore[index]
    for masked in out[4:6]:
        assert masked.message.startswith("Internal error (id ")
        assert "secret" not in masked.message and "boom" not in masked.message
        assert masked.extensions["errorId"] in caplog.text  # type: ignore[index]
    assert out[0].message == "first: must be between 1 and 100"


def test_a_database_down_or_failed_is_an_outage_with_a_fixed_message_and_a_delay(
    caplog: pytest.LogCaptureFixture,
) -> None:
    masker = MaskInternalErrors()
    down = StoreUnavailableError("bolt://10.0.0.7:7687", "connection refused")
    failed = StoreFailedError("Neo.DatabaseError.General.UnknownError", "No space left on device")
    with caplog.at_level(logging.WARNING, logger="hippograph.api"):
        out = masker._process_errors([located(down), located(failed)])
    assert [e.extensions for e in out] == [
        {"code": "UNAVAILABLE", "retryAfter": 5},
        {"code": "STORE_FAILED", "retryAfter": 60},
    ]
    for error in out:
        assert "bolt://" not in error.message and "No space" not in error.message and "Neo." not in error.message
    assert "No space left on device" in caplog.text, "the operator's log says what failed"
    assert [r.levelname for r in caplog.records] == ["WARNING", "ERROR"]
    body = {"data": None, "errors": [e.formatted for e in out]}
    assert retry_after_in(body) == 60
    assert retry_after_in([{"data": {"ok": 1}}, body]) == 60
    assert retry_after_in({"data": None, "errors": [{"message": "x", "extensions": {"code": "BAD_INPUT"}}]}) is None
