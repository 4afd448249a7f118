"""Small helpers shared by the resolvers and the types.

The GraphQL types of the library's models are derived from the pydantic models with
Strawberry's pydantic integration (``from_model.type``, converted by :func:`derived`) where
that keeps the served schema as it is, else written out with a small ``.of`` mapping: the
integration puts fields that are not the model's (resolvers, extra fields) first and takes each
description from the model, so the types with resolvers or descriptions of their own are
written out."""

from __future__ import annotations

from typing import Any, TypeVar

import strawberry
from pydantic import BaseModel

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


T = TypeVar("T")


def derived(edge_type: type[T], value: BaseModel) -> T:
    """The GraphQL value of a domain model, for a type built from it with ``from_model.type``."""
    converted: T = edge_type.from_pydantic(value)  # type: ignore[attr-defined]
    return converted
