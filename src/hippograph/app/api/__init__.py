"""The GraphQL API (FastAPI + Strawberry): agent turns, streamed, and graph inspection with
explanations, behind scope-bound API keys.

``create_app(settings, api_settings)`` builds the ASGI app; its lifespan owns the Neo4j
driver and the memory. ``hippograph serve`` runs it with uvicorn. Importing this package
loads nothing heavy: FastAPI and Strawberry are imported by :mod:`hippograph.app.api.app`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hippograph._lazy import lazy_exports

if TYPE_CHECKING:
    from hippograph.app.api.app import create_app
    from hippograph.app.api.settings import ApiSettings

_EXPORTS: dict[str, tuple[str, str]] = {
    "create_app": ("hippograph.app.api.app", "create_app"),
    "ApiSettings": ("hippograph.app.api.settings", "ApiSettings"),
}

__all__ = ["ApiSettings", "create_app"]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
