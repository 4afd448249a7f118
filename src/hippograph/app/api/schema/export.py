"""Write the schema contract: ``python -m hippograph.app.api.schema.export [path]`` prints the
SDL into ``schema.graphql`` (the repository root by default). The test suite fails when the
served schema drifts from that file, and names every breaking change."""

from __future__ import annotations

import sys
from pathlib import Path

from hippograph.app.api.schema.build import build_schema


def schema_sdl() -> str:
    return build_schema().as_str().rstrip() + "\n"


def main(argv: list[str]) -> None:
    target = Path(argv[0]) if argv else Path("schema.graphql")
    target.write_text(schema_sdl(), encoding="utf-8")
    print(f"wrote {target}")


if __name__ == "__main__":  # pragma: no cover
    main(sys.argv[1:])
