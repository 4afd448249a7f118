// How many memories of the wanted layers the visible scopes hold ($population when the caller
// knows it; -1: count here). Failing, the exact-scan threshold stands in (the vector channel
// then scans exactly, which is always correct).
// part: population
// in: visible
// out: population = $exact_below
CALL (visible) {
  CALL (visible) {
    UNWIND CASE WHEN $population < 0 THEN [1] ELSE [] END AS _
    MATCH (m:Memory) USING INDEX SEEK m:Memory(scope_key)
    WHERE m.scope_key IN visible AND ($layers IS NULL OR m.layer IN $layers)
    RETURN count(m) AS counted
  }
  RETURN CASE WHEN $population < 0 THEN counted ELSE $population END AS population
}
