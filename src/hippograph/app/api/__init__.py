"""The GraphQL API (FastAPI + Strawberry): agent turns, streamed, and graph inspection with
explanations, behind scope-bound API keys.

``create_app(settings, api_settings)`` builds the ASGI app; its lifespan owns the Neo4j
driver and the memory. ``hippograph serve`` runs it with uvicorn. Importing this package
loads nothing heavy: FastAPI and Strawberry are imported by :mod:`hippograph.app.api.app`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hippograph.app.api.app import create_app
    from hippograph.app.api.settings import ApiSettings

__all__ = ["ApiSettings", "create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from hippograph.app.api.app import create_app

        return create_app
    if name == "ApiSettings":
        from hippograph.app.api.settings import ApiSettings

        return ApiSettings
    raise AttributeError(f"module 'hippograph.app.api' has no attribute {name!r}")
