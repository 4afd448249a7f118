"""The files a page loads from the unpkg CDN, taken from the npm registry instead (unpkg serves
npm packages' files as they are, so the page's integrity hashes still hold): a browser test
answers the page's CDN requests with them, on a machine that reaches the registry but not the
CDN. Packed once with ``npm pack`` and kept under ``~/.cache/hippograph/cdn``."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

CDN_URL = re.compile(r"""(?:src|href)=["'](https://unpkg\.com/((?:@[^/@"']+/)?[^/@"']+)@([^/"']+)/([^"']+))["']""")
CONTENT_TYPES = {".js": "application/javascript", ".css": "text/css"}


def cache_dir() -> Path:
    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return root / "hippograph" / "cdn"


def _unpack(package: str, version: str) -> Path:
    folder = cache_dir() / f"{package.replace('/', '+')}@{version}"
    if (folder / "package").is_dir():
        return folder / "package"
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm is not installed")
    with tempfile.TemporaryDirectory() as tmp:
        packed = subprocess.run(
            [npm, "pack", f"{package}@{version}", "--pack-destination", tmp, "--silent"],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        if packed.returncode != 0:
            raise RuntimeError(f"npm pack {package}@{version} failed: {packed.stderr.strip()[-300:]}")
        [tgz] = Path(tmp).glob("*.tgz")
        cache_dir().mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(dir=cache_dir()))  # renamed into place whole: no half-unpacked folder
        with tarfile.open(tgz) as archive:
            archive.extractall(staging, filter="data")
        if not folder.exists():
            staging.rename(folder)
        else:
            shutil.rmtree(staging, ignore_errors=True)
    return folder / "package"


def cdn_files(html: str) -> dict[str, Path]:
    """Every unpkg URL the page names, mapped to the same file of the npm package.

    Raises:
        RuntimeError: npm is missing or cannot fetch a package.
    """
    files: dict[str, Path] = {}
    for url, package, version, path in CDN_URL.findall(html):
        file = _unpack(package, version) / path
        if not file.is_file():
            raise RuntimeError(f"{package}@{version} has no {path}")
        files[url] = file
    return files
