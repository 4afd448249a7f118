"""Where ``npm run build`` in ``dashboard/`` puts the built dashboard inside the package (it is
never committed). Kept apart from :mod:`hippograph.app.api.dashboard` so that code without the
``api`` extra (``hippograph doctor``) can ask too."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

__all__ = ["dashboard_dir"]


def dashboard_dir() -> Path:
    """Where the built dashboard lives inside the package (it may not exist)."""
    return Path(str(files("hippograph.app.api"))) / "dashboard_dist"
