"""The Dockerfile, checked without a Docker engine (none runs on the project's machines): every
file it copies from the build context exists and is not excluded by .dockerignore, and the
dashboard stage's output is the folder vite builds into and the API serves."""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit
ROOT = Path(__file__).resolve().parents[2]


def _instructions() -> list[tuple[str, str]]:
    lines = [line.strip() for line in (ROOT / "Dockerfile").read_text().splitlines()]
    return [(line.split()[0].upper(), line.split(maxsplit=1)[1]) for line in lines if line and not line.startswith("#")]


def _ignored(path: str) -> bool:
    patterns = [p.strip() for p in (ROOT / ".dockerignore").read_text().splitlines() if p.strip()]
    patterns = [p for p in patterns if not p.startswith("#")]
    parts = Path(path).parts
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    return any(
        fnmatch.fnmatch(prefix, p) or fnmatch.fnmatch(prefix, p.removeprefix("**/"))
        for p in patterns
        for prefix in prefixes
    )


def test_every_file_copied_from_the_context_exists_and_is_not_ignored() -> None:
    sources = []
    for op, args in _instructions():
        if op == "COPY" and not args.startswith("--from="):
            sources += args.split()[:-1]
    assert sources, "the Dockerfile copies nothing"
    for source in sources:
        assert (ROOT / source).exists(), f"COPY {source}: no such file in the checkout"
        assert not _ignored(source.rstrip("/")), f"COPY {source}: excluded by .dockerignore"


def test_the_dashboard_is_built_in_a_node_stage_and_copied_where_the_api_serves_it() -> None:
    ops = _instructions()
    stages = [args for op, args in ops if op == "FROM"]
    assert re.fullmatch(r"node:\d+\S* AS dashboard", stages[0]), stages
    node_major = int(re.search(r"node:(\d+)", stages[0]).group(1))  # type: ignore[union-attr]
    assert node_major >= 22 or node_major == 20, "vite needs Node.js 20.19+ or 22.12+"
    workdir = Path(next(args for op, args in ops if op == "WORKDIR"))
    vite = (ROOT / "dashboard" / "vite.config.ts").read_text()
    out_dir = re.search(r'outDir:\s*"([^"]+)"', vite).group(1)  # type: ignore[union-attr]
    built = (workdir / out_dir).resolve()
    [copied] = [args.split() for op, args in ops if op == "COPY" and args.startswith("--from=dashboard")]
    assert Path(copied[1]) == built, f"the stage builds into {built}, the image copies {copied[1]}"
    assert Path(copied[2]).as_posix().endswith("src/hippograph/app/api/dashboard_dist")
    assert ("RUN", "npm run build") in ops
    pip = next(i for i, (op, args) in enumerate(ops) if op == "RUN" and "pip install" in args)
    assert ops.index(("COPY", " ".join(copied))) < pip, "the dashboard must be in place before the package is built"
