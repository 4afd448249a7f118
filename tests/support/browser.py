"""What the headless-browser tests share: Debian's chromium (driven by Playwright, which
downloads no browser of its own) and the folder their screenshots are kept in."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-dev-shm-usage"]


def artifact_dir(name: str) -> Path:
    """``$HIPPOGRAPH_TEST_ARTIFACTS/<name>`` (default ``test-artifacts/<name>`` in the checkout), created."""
    root = Path(os.environ.get("HIPPOGRAPH_TEST_ARTIFACTS", Path(__file__).resolve().parents[2] / "test-artifacts"))
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    return folder
