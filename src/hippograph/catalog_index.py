"""Imports every component's query enum so the catalog test can see them all."""

from hippograph.store.queries import StoreQuery

__all__ = ["StoreQuery"]
