"""Errors of model providers, part of the hierarchy of :mod:`hippograph.errors`.

    HippographError
    └── ModelError                 ─ the provider failed; ``retryable`` says if a retry may help
        └── ModelRetriesExhaustedError ─ it kept failing with retryable errors until the cap

Messages name the status code and error type, never the prompt or the reply.
"""

from __future__ import annotations

from hippograph.errors import HippographError


class ModelError(HippographError):
    """A model call failed.

    Attributes:
        status_code: The HTTP status, when the provider answered with one.
        error_type: The provider's error type (``overloaded_error``, ...), when known.
        retryable: True when the same request may succeed later.
    """

    def __init__(
        self,
        message: str,
        *,
        status_code: int | None = None,
        error_type: str | None = None,
        retryable: bool = False,
    ) -> None:
        self.status_code = status_code
        self.error_type = error_type
        self.retryable = retryable
        super().__init__(message)


class ModelRetriesExhaustedError(ModelError):
    """Every attempt failed with a retryable error; ``attempts`` says how many were made."""

    def __init__(
        self,
        message: str,
        *,
        attempts: int,
        status_code: int | None = None,
        error_type: str | None = None,
    ) -> None:
        self.attempts = attempts
        super().__init__(message, status_code=status_code, error_type=error_type, retryable=True)
