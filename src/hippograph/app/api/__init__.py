"""The GraphQL API (FastAPI + Strawberry): agent turns, streamed, and graph inspection with
explanations, behind scope-bound API keys.

``create_app(settings, api_settings)`` builds the ASGI app; its lifespan owns the Neo4j
driver and the memory. ``hippograph serve`` runs it with uvicorn. Importing this package
loads nothing heavy: FastAPI and Strawberry are imported by :mod:`hippograph.app.api.app`.
"""
