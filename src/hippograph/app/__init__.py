"""The application edge: settings read from the environment, opening a memory from them, the
demo, the command line and (next to them) the HTTP API. The library below never reads the
environment; only this package does.

The names load lazily, so a command that needs neither (``hippograph neo4j status``) or only
part of the runtime does not import the memory and its driver to reach its own module."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hippograph._lazy import lazy_exports

if TYPE_CHECKING:
    from hippograph.app.runtime import open_memory
    from hippograph.app.settings import Settings

_EXPORTS: dict[str, tuple[str, str]] = {
    "open_memory": ("hippograph.app.runtime", "open_memory"),
    "Settings": ("hippograph.app.settings", "Settings"),
}

__all__ = ["Settings", "open_memory"]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
