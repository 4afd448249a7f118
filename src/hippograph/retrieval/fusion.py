"""Channel fusion: z-scores over the candidate pool.

Each channel's score is turned into "standard deviations above the typical candidate", then
the channels are added with their weights. Unlike reciprocal-rank fusion this keeps score
gaps (a clear winner stays clear), and unlike raw sums it needs no scale constant — it is
invariant to Neo4j's (1 + cos) / 2 rescaling and to Lucene's global IDF scale.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence


def zscores(values: Mapping[str, float], ids: Sequence[str], missing: float = 0.0) -> dict[str, float]:
    """z-score of each id's value over ``ids`` (ids without a value count as ``missing``)."""
    xs = [values.get(i, missing) for i in ids]
    if not xs:
        return {}
    mean = sum(xs) / len(xs)
    var = sum((x - mean) ** 2 for x in xs) / len(xs)
    sd = math.sqrt(var)
    if sd <= 1e-12:
        return dict.fromkeys(ids, 0.0)
    return {i: (x - mean) / sd for i, x in zip(ids, xs, strict=True)}
