"""The filter vocabulary of node queries, checked before any query runs."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from hippograph.errors import validation_errors
from hippograph.models import Durability, Layer, check_id


class NodeFilter(BaseModel):
    """Filters for ``query_nodes`` / ``query_subtree``; unset fields match everything."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    layers: list[Layer] | None = None
    ids: list[str] | None = None
    label: str | None = None
    label_prefix: str | None = None
    durability: Durability | None = None
    min_importance: float | None = Field(default=None, ge=0, le=10)
    include_retracted: bool = False
    created_after: float | None = None
    created_before: float | None = None

    @classmethod
    def parse(cls, filters: NodeFilter | dict[str, Any] | None) -> NodeFilter:
        if filters is None:
            return cls()
        if isinstance(filters, NodeFilter):
            return filters
        data = dict(filters)
        if "layer" in data:  # the singular spelling
            layer = data.pop("layer")
            data["layers"] = [layer] if layer is not None else None
        with validation_errors("filters", empty="filters"):
            parsed = cls.model_validate(data)
        for i, node_id in enumerate(parsed.ids or []):
            check_id(node_id, f"filters.ids[{i}]")
        return parsed

    def params(self) -> dict[str, Any]:
        data = self.model_dump(mode="json")
        return data
