"""One place turns the first pydantic error into an InvalidInputError naming the field."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, Field

from hippograph.errors import InvalidInputError, validation_errors

pytestmark = pytest.mark.unit


class _Thing(BaseModel):
    name: str = Field(min_length=1)
    tags: list[int] = Field(default_factory=list)


def test_the_field_is_prefixed_and_the_loc_kept_or_cut() -> None:
    with pytest.raises(InvalidInputError) as err, validation_errors("entry"):
        _Thing.model_validate({"name": "x", "tags": [1, "two"]})
    assert err.value.field == "entry.tags.1"
    with pytest.raises(InvalidInputError) as err, validation_errors("updates", depth=1):
        _Thing.model_validate({"name": "x", "tags": [1, "two"]})
    assert err.value.field == "updates.tags"
    with pytest.raises(InvalidInputError) as err, validation_errors(depth=1):
        _Thing.model_validate({"name": ""})
    assert err.value.field == "name" and "at least 1" in str(err.value)


def test_a_whole_model_error_names_the_fallback_and_nothing_else_is_touched() -> None:
    with pytest.raises(InvalidInputError) as err, validation_errors("filters", empty="filters"):
        _Thing.model_validate("not a mapping")
    assert err.value.field == "filters.filters"
    with pytest.raises(KeyError), validation_errors("x"):
        raise KeyError("not a validation error")
    with validation_errors("x"):
        thing = _Thing(name="ok")
    assert thing.name == "ok"
