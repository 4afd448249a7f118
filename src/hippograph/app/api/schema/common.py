"""Small helpers shared by the resolvers."""

from __future__ import annotations

from typing import Any

import strawberry

from hippograph.app.api.context import ApiContext
from hippograph.errors import InvalidInputError


def ctx(info: strawberry.Info[Any, Any]) -> ApiContext:
    context = info.context
    assert isinstance(context, ApiContext)
    return context


def check_first(first: int, cap: int, field: str = "first") -> int:
    """``first`` within 1..cap (the hard cap of every list), else a caller error."""
    if not 1 <= first <= cap:
        raise InvalidInputError(field, f"must be between 1 and {cap}")
    return first
