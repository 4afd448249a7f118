"""A small disk for a data folder: a size-limited tmpfs mounted on a fresh folder, unmounted
afterwards. Mounting needs root (or CAP_SYS_ADMIN); without it the test is skipped and says why."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


@contextmanager
def small_disk(folder: Path, megabytes: int) -> Iterator[Path]:
    """``folder`` (created) with a tmpfs of ``megabytes`` MiB mounted on it, for the block's length."""
    folder.mkdir(parents=True, exist_ok=True)
    mount = ["mount", "-t", "tmpfs", "-o", f"size={megabytes}m,mode=0755", "tmpfs", str(folder)]
    try:
        done = subprocess.run(mount, capture_output=True, text=True, timeout=30, check=False)
    except OSError as exc:
        pytest.skip(f"a full disk needs a small tmpfs: `mount` cannot run here ({exc})")
    if done.returncode != 0:
        pytest.skip(f"a full disk needs a small tmpfs, and mounting one failed (root needed): {done.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "--lazy", str(folder)], capture_output=True, timeout=60, check=False)


def grow(folder: Path, megabytes: int) -> None:
    """Give the mounted tmpfs ``megabytes`` MiB (a remount keeps its files)."""
    remount = ["mount", "-o", f"remount,size={megabytes}m", str(folder)]
    subprocess.run(remount, capture_output=True, text=True, timeout=30, check=True)


def fill(path: Path, megabytes: int) -> None:
    """Write ``megabytes`` MiB of real data (tmpfs counts written pages, not a sparse size)."""
    block = b"\xa5" * (1 << 20)
    with path.open("wb") as fh:
        for _ in range(megabytes):
            fh.write(block)
