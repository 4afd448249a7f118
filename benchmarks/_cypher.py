"""The benchmarks' own inspection queries (``benchmarks/cypher/``, one file each), run as they are:
they are not part of the product's catalog. Standard library only, so that a harness running an
older tree's package can import it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

CYPHER = Path(__file__).resolve().parent / "cypher"


async def run_file(conn: Any, name: str, **params: Any) -> list[dict[str, Any]]:
    """Run ``benchmarks/cypher/<name>.cypher`` on ``conn`` (a ``Neo4jConnection``) in an auto-commit session."""
    text = (CYPHER / f"{name}.cypher").read_text()
    async with conn.driver.session(database=conn.database) as session:
        result = await session.run(text, params)
        return list(await result.data())
