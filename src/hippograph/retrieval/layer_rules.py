"""Per-layer recall rules: working memory is seen only from its own scope;
procedural skills are recalled only when approved and active, and a deeper scope's skill of a
name shadows shallower ones; at most ``episodic_raw_cap`` episodic items."""

from __future__ import annotations

from hippograph.models import Layer
from hippograph.retrieval.config import RecallConfig
from hippograph.retrieval.types import RecallItem
from hippograph.scope import Scope


def apply_layer_rules(scope: Scope, items: list[RecallItem], cfg: RecallConfig) -> list[RecallItem]:
    out: list[RecallItem] = []
    skills: dict[str, RecallItem] = {}
    episodic = 0
    for item in items:
        node = item.node
        if node.layer is Layer.WORKING and node.scope_key != scope.key:
            continue
        if node.layer is Layer.PROSPECTIVE:
            continue
        if node.layer is Layer.PROCEDURAL:
            props = node.properties
            if props.get("status", "approved") != "approved" or props.get("active", True) is False:
                continue
            name = node.label.removeprefix("authored:").casefold()
            if name not in skills or item.scope_distance < skills[name].scope_distance:
                skills[name] = item
            continue
        if node.layer is Layer.EPISODIC:
            if episodic >= cfg.episodic_raw_cap:
                continue
            episodic += 1
        out.append(item)
    out.extend(skills.values())
    out.sort(key=lambda i: (-i.score, i.node.id))
    return out
