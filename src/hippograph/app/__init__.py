"""The application edge: settings read from the environment, opening a memory from them, the
demo, the command line and (next to them) the HTTP API. The library below never reads the
environment; only this package does."""

from hippograph.app.runtime import open_memory
from hippograph.app.settings import Settings

__all__ = ["Settings", "open_memory"]
